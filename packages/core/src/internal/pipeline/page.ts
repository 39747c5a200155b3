/**
 * A loaded page: the original response (kept byte for byte for the `bytes` output and the cache) plus when it was
 * fetched. The rendered DOM of a browser load will join it when rendering lands.
 */
export interface LoadedPage {
  readonly requestedUrl: string
  readonly url: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly contentType: string | undefined
  readonly body: Uint8Array
  /** Epoch milliseconds of the fetch (the cache age is measured from it). */
  readonly fetchedAt: number
}

interface StoredHeader {
  readonly v: 1
  readonly requestedUrl: string
  readonly url: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly contentType: string | null
  readonly fetchedAt: number
}

const textEncoder = new TextEncoder()
const textDecoder = new TextDecoder()

/** Serialises a page for the cache: a 4-byte header length, the JSON header, then the body. */
export const encodePage = (page: LoadedPage): Uint8Array => {
  const header: StoredHeader = {
    v: 1,
    requestedUrl: page.requestedUrl,
    url: page.url,
    status: page.status,
    headers: page.headers,
    contentType: page.contentType ?? null,
    fetchedAt: page.fetchedAt
  }
  const json = textEncoder.encode(JSON.stringify(header))
  const out = new Uint8Array(4 + json.byteLength + page.body.byteLength)
  new DataView(out.buffer).setUint32(0, json.byteLength)
  out.set(json, 4)
  out.set(page.body, 4 + json.byteLength)
  return out
}

/** Reads a page written by `encodePage`; undefined for anything else (an old or damaged entry is a miss). */
export const decodePage = (bytes: Uint8Array): LoadedPage | undefined => {
  try {
    const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0)
    const header = JSON.parse(textDecoder.decode(bytes.subarray(4, 4 + length))) as StoredHeader
    if (header.v !== 1) return undefined
    return {
      requestedUrl: header.requestedUrl,
      url: header.url,
      status: header.status,
      headers: header.headers,
      contentType: header.contentType ?? undefined,
      body: bytes.slice(4 + length),
      fetchedAt: header.fetchedAt
    }
  } catch {
    return undefined
  }
}
