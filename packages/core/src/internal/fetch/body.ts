/**
 * Reading a response body: undoing its `Content-Encoding` as a stream and stopping at the download cap. The cap counts
 * decoded bytes, so a decompression bomb is cut off after `maxBytes` of output, and reaching it destroys the body,
 * which makes undici drop the connection instead of reading the rest.
 */
import { pipeline, Readable } from "node:stream"
import * as zlib from "node:zlib"

/** Thrown when the decoded body passes the cap; the Fetcher reports `WebsiteError` `TooLarge`. */
export class BodyTooLarge extends Error {
  readonly code = "ESIFT_TOO_LARGE"
  constructor(readonly maxBytes: number) {
    super(`the body passed ${maxBytes} bytes`)
  }
}

type Decoder = (source: AsyncIterable<Uint8Array>) => AsyncIterable<Uint8Array>

// Sync flush tolerates a truncated stream (a server that closes early), as browsers do.
const zlibOptions: zlib.ZlibOptions = {
  flush: zlib.constants.Z_SYNC_FLUSH,
  finishFlush: zlib.constants.Z_SYNC_FLUSH,
  chunkSize: 64 * 1024 // fewer, larger output chunks: a page is usually tens to hundreds of KB
}
const brotliOptions: zlib.BrotliOptions = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
  chunkSize: 64 * 1024
}

const through = (transform: NodeJS.ReadWriteStream): Decoder => (source) =>
  pipeline(source, transform, () => { /* errors surface through iteration of `transform` */ }) as unknown as AsyncIterable<
    Uint8Array
  >

/** `deflate` is meant to be zlib-wrapped, but many servers send raw deflate; the first two bytes tell which. */
const inflate: Decoder = async function*(source) {
  const iterator = source[Symbol.asyncIterator]()
  const first = await iterator.next()
  if (first.done === true) return
  const head = first.value
  const wrapped = head.length >= 2 && (head[0]! & 0x0f) === 8 && ((head[0]! << 8) | head[1]!) % 31 === 0
  const rest = async function*() {
    yield head
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value
  }
  yield* through(wrapped ? zlib.createInflate(zlibOptions) : zlib.createInflateRaw(zlibOptions))(Readable.from(rest()))
}

const decoders: Record<string, Decoder> = {
  gzip: (source) => through(zlib.createGunzip(zlibOptions))(source),
  "x-gzip": (source) => through(zlib.createGunzip(zlibOptions))(source),
  br: (source) => through(zlib.createBrotliDecompress(brotliOptions))(source),
  deflate: inflate
}

/** The codings of a `Content-Encoding` header, in the order they were applied. */
export const codings = (contentEncoding: string | undefined): Array<string> =>
  (contentEncoding ?? "").split(",").map((c) => c.trim().toLowerCase()).filter((c) => c !== "" && c !== "identity")

/**
 * Reads `body` to the end, decoding `contentEncoding`, and fails with {@link BodyTooLarge} past `maxBytes` decoded
 * bytes. Codings we cannot decode are left as they are (we never ask for them). Destroys `body` on every exit.
 */
export const readBody = async (
  body: Readable,
  contentEncoding: string | undefined,
  contentLength: number | undefined,
  maxBytes: number
): Promise<Uint8Array> => {
  const applied = codings(contentEncoding)
  try {
    // Without a coding the declared length is the decoded length: refuse before reading a byte.
    if (applied.length === 0 && contentLength !== undefined && contentLength > maxBytes) throw new BodyTooLarge(maxBytes)
    let stream: AsyncIterable<Uint8Array> = body
    for (const coding of applied.reverse()) {
      const decoder = decoders[coding]
      if (decoder === undefined) break
      stream = decoder(stream)
    }
    const chunks: Array<Uint8Array> = []
    let total = 0
    for await (const chunk of stream) {
      total += chunk.byteLength
      if (total > maxBytes) throw new BodyTooLarge(maxBytes)
      chunks.push(chunk)
    }
    // A fresh array, not a view into Node's shared buffer pool.
    const out = new Uint8Array(total)
    let offset = 0
    for (const chunk of chunks) {
      out.set(chunk, offset)
      offset += chunk.byteLength
    }
    return out
  } finally {
    body.destroy()
  }
}
