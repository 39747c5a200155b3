/**
 * The layout of a cache entry that carries bytes with a description: a 4-byte big-endian length, the description as
 * UTF-8 JSON, then the bytes. Pages (`pipeline/page.ts`) and screenshots (`Screenshot.ts`) are stored this way.
 */

const textEncoder = new TextEncoder()
const textDecoder = new TextDecoder()

/** One entry of `header` (JSON) and `body`. */
export const frame = (header: unknown, body: Uint8Array): Uint8Array => {
  const json = textEncoder.encode(JSON.stringify(header))
  const out = new Uint8Array(4 + json.byteLength + body.byteLength)
  new DataView(out.buffer).setUint32(0, json.byteLength)
  out.set(json, 4)
  out.set(body, 4 + json.byteLength)
  return out
}

/** The parsed header and a view of the body of an entry made by `frame`; undefined when it is not one. */
export const unframe = (entry: Uint8Array): { readonly header: Record<string, unknown>; readonly body: Uint8Array } | undefined => {
  try {
    if (entry.byteLength < 4) return undefined
    const length = new DataView(entry.buffer, entry.byteOffset, entry.byteLength).getUint32(0)
    if (4 + length > entry.byteLength) return undefined
    const header: unknown = JSON.parse(textDecoder.decode(entry.subarray(4, 4 + length)))
    if (header === null || typeof header !== "object" || Array.isArray(header)) return undefined
    return { header: header as Record<string, unknown>, body: entry.subarray(4 + length) }
  } catch {
    return undefined
  }
}
