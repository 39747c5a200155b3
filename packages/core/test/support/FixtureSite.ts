/**
 * A real website for tests: a `node:http` server on 127.0.0.1 and a free port, answering from a route table. Every
 * exchange is recorded (request headers, bytes the server actually wrote, whether the client went away before the
 * response finished), so tests can assert what reached the server and that a client stopped early.
 *
 * Effect tests: `it.layer(FixtureSite.layer({ "/": FixtureSite.html("<p>hi</p>") }))("...", (it) => ...)` and
 * `const site = yield* FixtureSite`; or `FixtureSite.scoped(routes)` inside a scope. Plain tests: `await start(routes)`.
 */
import { Context, Effect, Layer, type Scope } from "effect"
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http"
import { readFile } from "node:fs/promises"
import type { AddressInfo, Socket } from "node:net"
import { extname, join, normalize, sep } from "node:path"
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib"

/** What the server saw and did for one request. */
export interface Exchange {
  readonly method: string
  /** Path and query, as requested. */
  readonly path: string
  readonly headers: IncomingHttpHeaders
  /** Body bytes the handler wrote (after compression), counted as the socket accepted them. */
  bytesSent: number
  /** The response was ended completely. */
  finished: boolean
  /** The connection closed before the response was finished: the client stopped reading or aborted. */
  aborted: boolean
  /** Resolves when the request's socket has closed. */
  readonly socketClosed: Promise<void>
}

/** Answers one request. `exchange` is its record, for handlers that stream and count. */
export type Handler = (req: IncomingMessage, res: ServerResponse, exchange: Exchange) => void | Promise<void>

/** Routes by path (without the query); `*` answers anything unmatched (default: 404). */
export type Routes = Record<string, Handler>

/** A running fixture site. */
export interface Site {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string
  readonly port: number
  /** Adds or replaces a route while running. */
  readonly route: (path: string, handler: Handler) => void
  /** Every exchange so far, oldest first. */
  readonly exchanges: ReadonlyArray<Exchange>
  /** The latest exchange for a path (without query), if any. */
  readonly last: (path: string) => Exchange | undefined
  /** Connections currently open to the server. */
  readonly openConnections: () => number
  readonly close: () => Promise<void>
}

interface Options {
  readonly status?: number
  readonly headers?: Record<string, string>
  readonly contentType?: string
}

const send = (res: ServerResponse, body: Uint8Array, options: Options & { encoding?: string }): void => {
  res.writeHead(options.status ?? 200, {
    "content-type": options.contentType ?? "text/html; charset=utf-8",
    "content-length": String(body.byteLength),
    ...(options.encoding === undefined ? {} : { "content-encoding": options.encoding }),
    ...options.headers
  })
  res.end(body)
}

const asBytes = (body: string | Uint8Array): Uint8Array => (typeof body === "string" ? Buffer.from(body, "utf8") : body)

/** Serves a fixed body (a string is sent as UTF-8), by default as `text/html; charset=utf-8` with status 200. */
export const html = (body: string | Uint8Array, options: Options = {}): Handler => (_req, res) =>
  send(res, asBytes(body), options)

/** Serves a body compressed with one `Content-Encoding` (`deflate-raw` is sent as `deflate` without the zlib wrapper). */
export const compressed = (
  body: string | Uint8Array,
  encoding: "gzip" | "br" | "deflate" | "deflate-raw",
  options: Options = {}
): Handler => {
  const raw = asBytes(body)
  const packed = encoding === "gzip" ? gzipSync(raw)
    : encoding === "br" ? brotliCompressSync(raw)
    : encoding === "deflate" ? deflateSync(raw) : deflateRawSync(raw)
  return (_req, res) => send(res, packed, { ...options, encoding: encoding === "deflate-raw" ? "deflate" : encoding })
}

/** Redirects to `location` (sent verbatim, so relative locations stay relative). */
export const redirect = (location: string, status = 302): Handler => (_req, res) => {
  res.writeHead(status, { location, "content-length": "0" })
  res.end()
}

/** Answers with a status code and a small HTML body. */
export const status = (code: number, body = `<h1>${code}</h1>`): Handler => html(body, { status: code })

/** Waits `headersAfterMs` before the headers, then sends `chunks` one per `intervalMs` (a page that is slow). */
export const slow = (options: { headersAfterMs?: number; chunks?: ReadonlyArray<string>; intervalMs?: number }): Handler =>
  async (_req, res, exchange) => {
    const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
    await wait(options.headersAfterMs ?? 0)
    if (res.destroyed) return
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    for (const chunk of options.chunks ?? ["<p>slow</p>"]) {
      if (res.destroyed) return
      res.write(chunk)
      exchange.bytesSent += Buffer.byteLength(chunk)
      await wait(options.intervalMs ?? 0)
    }
    res.end()
  }

/**
 * Streams `totalBytes` of HTML-ish filler without a Content-Length (chunked), honouring backpressure and stopping when
 * the client goes away; `exchange.bytesSent` then tells how far it got.
 */
export const large = (totalBytes: number, options: { chunkSize?: number; contentType?: string } = {}): Handler =>
  async (_req, res, exchange) => {
    const chunk = Buffer.alloc(options.chunkSize ?? 64 * 1024, "<p>filler filler filler</p>\n")
    res.writeHead(200, { "content-type": options.contentType ?? "text/html; charset=utf-8" })
    while (exchange.bytesSent < totalBytes && !res.destroyed) {
      const piece = chunk.subarray(0, Math.min(chunk.length, totalBytes - exchange.bytesSent))
      const ok = res.write(piece)
      exchange.bytesSent += piece.length
      if (!ok) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done)
            res.off("close", done)
            resolve()
          }
          res.on("drain", done)
          res.on("close", done)
        })
      }
    }
    if (!res.destroyed) res.end()
  }

const mimeTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".xml": "application/xml",
  ".txt": "text/plain; charset=utf-8",
  ".json": "application/json",
  ".css": "text/css",
  ".js": "text/javascript",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".gif": "image/gif",
  ".svg": "image/svg+xml",
  ".pdf": "application/pdf"
}

/**
 * Serves real files from `root` (`/a/` serves `a/index.html`), with a Content-Type from the extension; use it as the
 * `*` route. Paths cannot leave `root`.
 */
export const directory = (root: string): Handler => async (req, res) => {
  const path = decodeURIComponent((req.url ?? "/").split("?")[0]!)
  const file = normalize(join(root, path.endsWith("/") ? `${path}index.html` : path))
  if (file !== normalize(root) && !file.startsWith(normalize(root) + sep)) return status(403)(req, res, undefined as never)
  const body = await readFile(file).catch(() => undefined)
  if (body === undefined) return status(404)(req, res, undefined as never)
  send(res, body, { contentType: mimeTypes[extname(file).toLowerCase()] ?? "application/octet-stream" })
}

/** Echoes the request (method, path, headers) as JSON, for asserting what arrived. */
export const echo: Handler = (req, res) => {
  const body = JSON.stringify({ method: req.method, path: req.url, headers: req.headers })
  res.writeHead(200, { "content-type": "application/json" })
  res.end(body)
}

/** Starts a fixture site on 127.0.0.1 with a free port. */
export const start = async (routes: Routes = {}): Promise<Site> => {
  const table = new Map(Object.entries(routes))
  const exchanges: Array<Exchange> = []
  const sockets = new Set<Socket>()
  const onSocketClose = new WeakMap<Socket, Array<() => void>>()
  const server = createServer((req, res) => {
    let closed!: () => void
    const exchange: Exchange = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      bytesSent: 0,
      finished: false,
      aborted: false,
      socketClosed: new Promise<void>((resolve) => (closed = resolve))
    }
    exchanges.push(exchange)
    // One close listener per socket, not per request: keep-alive sockets carry many requests.
    const waiting = onSocketClose.get(req.socket)
    if (waiting === undefined) {
      const list = [closed]
      onSocketClose.set(req.socket, list)
      req.socket.once("close", () => list.forEach((resolve) => resolve()))
    } else {
      waiting.push(closed)
    }
    res.once("finish", () => (exchange.finished = true))
    res.once("close", () => (exchange.aborted = !exchange.finished))
    const path = (req.url ?? "/").split("?")[0]!
    const handler = table.get(path) ?? table.get("*") ?? status(404)
    Promise.resolve(handler(req, res, exchange)).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500)
      res.end(String(error))
    })
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    route: (path, handler) => void table.set(path, handler),
    exchanges,
    last: (path) => exchanges.findLast((e) => e.path.split("?")[0] === path),
    openConnections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}

/** The running fixture site of a test's layer. */
export class FixtureSite extends Context.Tag("@sift/core/test/FixtureSite")<FixtureSite, Site>() {}

/** Starts a site for the current scope and closes it when the scope ends. */
export const scoped = (routes: Routes = {}): Effect.Effect<Site, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => start(routes)), (site) => Effect.promise(() => site.close()))

/** A layer providing a running {@link FixtureSite} with these routes. */
export const layer = (routes: Routes = {}): Layer.Layer<FixtureSite> => Layer.scoped(FixtureSite, scoped(routes))
