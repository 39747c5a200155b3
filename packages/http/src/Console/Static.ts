/**
 * The console's built files (`packages/console/dist`, or `SIFT_CONSOLE_DIR`), served at `/`: `index.html` with
 * `no-cache` (it names the current assets) and a strict Content-Security-Policy (no outside host), the hashed files
 * under `/assets/` as immutable for a year. Files are read once and kept in memory with their gzip form.
 *
 * @since 0.1.0
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

/** Where the built console is (the console package's `dist`, beside this package). */
export const directory = () => process.env.SIFT_CONSOLE_DIR ?? fileURLToPath(new URL("../../../console/dist/", import.meta.url))

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json"
}

/** The policy of the console's page: everything from this origin only. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"

interface Loaded {
  readonly bytes: Buffer
  readonly gzip: Buffer | undefined
  readonly type: string
}
const loaded = new Map<string, Loaded | null>()

const load = (file: string): Loaded | undefined => {
  const known = loaded.get(file)
  if (known !== undefined) return known ?? undefined
  let bytes: Buffer
  try {
    bytes = fs.readFileSync(file)
  } catch {
    // index.html is looked up again each time (a build may appear while serving); missing assets stay missing.
    if (!file.endsWith("index.html")) loaded.set(file, null)
    return undefined
  }
  const type = TYPES[path.extname(file)] ?? "application/octet-stream"
  const entry = { bytes, gzip: /^(text|application\/json|image\/svg)/.test(type) ? gzipSync(bytes) : undefined, type }
  // index.html changes with each build: never kept.
  if (!file.endsWith("index.html")) loaded.set(file, entry)
  return entry
}

const ASSET = /^\/assets\/[A-Za-z0-9._-]+$/

/** Whether a GET path is the console's to answer. */
export const isConsolePath = (pathname: string) => pathname === "/" || pathname === "/index.html" || ASSET.test(pathname)

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Sift console</title>
<body style="font-family:system-ui;max-width:40rem;margin:3rem auto;padding:0 1rem"><h1>The console is not built</h1>
<p>Run <code>npm run build</code> (or <code>npm install</code>, which builds it) at the repository root, then reload.
The API is served under <code>/v1</code> regardless.</p></body></html>`

/** Answers a console path: a file with its caching, or 404. */
export const serve = (pathname: string, acceptEncoding: string | undefined) =>
  Effect.sync(() => {
    const dir = directory()
    const isIndex = !ASSET.test(pathname)
    const file = isIndex ? path.join(dir, "index.html") : path.join(dir, pathname)
    const entry = load(file)
    const headers: Record<string, string> = { "x-content-type-options": "nosniff", "referrer-policy": "same-origin" }
    if (entry === undefined) {
      if (!isIndex) return HttpServerResponse.text("Not found", { status: 404, headers })
      return HttpServerResponse.text(NOT_BUILT, { status: 503, contentType: "text/html; charset=utf-8", headers: { ...headers, "cache-control": "no-cache" } })
    }
    headers["cache-control"] = isIndex ? "no-cache" : "public, max-age=31536000, immutable"
    if (isIndex) {
      headers["content-security-policy"] = CONTENT_SECURITY_POLICY
      headers["x-frame-options"] = "DENY"
    }
    headers["vary"] = "accept-encoding"
    const gzip = entry.gzip !== undefined && /\bgzip\b/.test(acceptEncoding ?? "")
    if (gzip) headers["content-encoding"] = "gzip"
    return HttpServerResponse.uint8Array(gzip ? entry.gzip! : entry.bytes, { contentType: entry.type, headers })
  })
