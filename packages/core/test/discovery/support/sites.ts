/**
 * Several fixture "domains" on one local port: a {@link FixtureSite} whose catch-all route dispatches on the `Host`
 * header, and a Fetcher whose `SIFT_HOST_RESOLVER_RULES` maps every `*.test` host there. https variants of those hosts
 * reach the same plain-HTTP port and fail their TLS handshake, as a site without https would.
 */
import { ConfigProvider, Effect, Layer } from "effect"
import { gzipSync } from "node:zlib"
import * as Fetcher from "../../../src/Fetcher.js"
import * as FixtureSite from "../../support/FixtureSite.js"

/** Routes per host name (without port). */
export type Hosts = Record<string, FixtureSite.Routes>

/** Starts one server answering for every host in `hosts` (mutable: tests may add hosts before fetching). */
export const startSites = (hosts: Hosts): Promise<FixtureSite.Site> =>
  FixtureSite.start({
    "*": (req, res, exchange) => {
      const host = (req.headers.host ?? "").replace(/:\d+$/, "").toLowerCase()
      const routes = hosts[host]
      const path = (req.url ?? "/").split("?")[0]!
      const handler = routes?.[path] ?? routes?.["*"] ?? FixtureSite.status(404)
      return handler(req, res, exchange)
    }
  })

/**
 * The Fetcher of a test, configured as in production from `SIFT_HOST_RESOLVER_RULES` (every `*.test` host, subdomains
 * included, goes to the local site) and `SIFT_ALLOW_PRIVATE_TARGETS`.
 */
export const fetcherFor = (site: FixtureSite.Site): Layer.Layer<Fetcher.Fetcher> =>
  Fetcher.layerConfig.pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([
      ["SIFT_HOST_RESOLVER_RULES", `MAP *.test 127.0.0.1:${site.port}`],
      ["SIFT_ALLOW_PRIVATE_TARGETS", "true"]
    ])))),
    Layer.orDie
  )

/** Paths the site was asked for on `host`, in order. */
export const requested = (site: FixtureSite.Site, host: string): Array<string> =>
  site.exchanges.filter((e) => (e.headers.host ?? "").replace(/:\d+$/, "") === host).map((e) => e.path)

/** A `urlset` sitemap of these URLs. */
export const urlset = (urls: ReadonlyArray<string>, lastmod?: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
  urls.map((u) => `<url><loc>${escape(u)}</loc>${lastmod === undefined ? "" : `<lastmod>${lastmod}</lastmod>`}</url>\n`).join("") +
  "</urlset>\n"

/** A sitemap index of these sitemap URLs. */
export const sitemapIndex = (sitemaps: ReadonlyArray<string>): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
  sitemaps.map((u) => `<sitemap><loc>${escape(u)}</loc></sitemap>\n`).join("") + "</sitemapindex>\n"

const escape = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;")

/** Serves XML. */
export const xml = (body: string): FixtureSite.Handler => FixtureSite.html(body, { contentType: "application/xml" })

/** Serves a gzip file as a file (`application/gzip`, no `Content-Encoding`), as `.xml.gz` sitemaps are served. */
export const gzFile = (body: string): FixtureSite.Handler =>
  FixtureSite.html(gzipSync(Buffer.from(body)), { contentType: "application/gzip" })

/** Serves text. */
export const text = (body: string): FixtureSite.Handler => FixtureSite.html(body, { contentType: "text/plain" })

/** An HTML page with a title and links. */
export const page = (title: string, links: ReadonlyArray<string>, description?: string): FixtureSite.Handler =>
  FixtureSite.html(
    `<!doctype html><html lang="en"><head><title>${title}</title>` +
      (description === undefined ? "" : `<meta name="description" content="${description}">`) +
      `</head><body><h1>${title}</h1>${links.map((l) => `<a href="${l}">${l}</a>`).join(" ")}</body></html>`
  )

/** Runs an effect needing the Fetcher against `site`. */
export const run = <A, E>(site: FixtureSite.Site, effect: Effect.Effect<A, E, Fetcher.Fetcher>): Promise<A> =>
  Effect.runPromise(Effect.provide(effect, fetcherFor(site)))

/** Like {@link run}, but resolves to the failure (or throws if it succeeded). */
export const runFailure = <A, E>(site: FixtureSite.Site, effect: Effect.Effect<A, E, Fetcher.Fetcher>): Promise<E> =>
  Effect.runPromise(Effect.provide(Effect.flip(effect), fetcherFor(site)))
