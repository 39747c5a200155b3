/**
 * The static fetch stage: one GET of a page over undici, following redirects by hand so every hop passes the address
 * guard, decoding gzip/deflate/br as a stream under the 20 MB cap, routing through the configured proxies, and mapping
 * network failures to `WebsiteError` reasons. Interrupting the returned Effect aborts the socket at once; the request
 * deadline is exactly that (`Effect.timeout`).
 *
 * @since 0.1.0
 */
import { Config, ConfigError, Context, Effect, Either, Layer, Option, Redacted } from "effect"
import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import { Agent, type Dispatcher, ProxyAgent } from "undici"
import * as AddressGuard from "./AddressGuard.js"
import { InvalidRequest, WebsiteError } from "./Errors.js"
import * as HostRules from "./HostRules.js"
import { guardedConnector } from "./internal/fetch/connector.js"
import { toWebsiteError } from "./internal/fetch/failure.js"
import { hop } from "./internal/fetch/hop.js"
import { buildHeaders } from "./internal/fetch/requestHeaders.js"

/** The download cap of the contract: 20 MB of decoded body. */
export const MAX_BYTES = 20 * 1024 * 1024

/** The `User-Agent` sent unless `SIFT_USER_AGENT` or a forwarded header says otherwise. */
export const DEFAULT_USER_AGENT = "Mozilla/5.0 (compatible; Sift/0.1; self-hosted web-data service)"

/** One page to fetch. @category models */
export interface FetchRequest {
  readonly url: string
  /** Forwarded to the target, and to redirect hops on the same origin only. */
  readonly headers?: Readonly<Record<string, string>>
  /** Two letters; routes the request through that country's proxy. */
  readonly country?: string
  /** Decoded-byte cap; default {@link MAX_BYTES}. */
  readonly maxBytes?: number
}

/** What the target answered, after redirects. @category models */
export interface FetchedResponse {
  readonly requestedUrl: string
  /** Final URL after redirects. */
  readonly url: string
  /** Every URL that answered with a redirect, in order (the requested URL first when it redirected). */
  readonly redirects: ReadonlyArray<string>
  readonly status: number
  /** Response headers as sent, lower-cased names (`content-encoding` describes the wire, not `body`). */
  readonly headers: Readonly<Record<string, string>>
  /** The MIME type alone, lower-case (`text/html`), when the response had one. */
  readonly contentType: string | undefined
  /** The decompressed body: exactly the bytes the server meant. */
  readonly body: Uint8Array
}

/** Fetches pages over HTTP(S). @category services */
export class Fetcher extends Context.Tag("@sift/core/Fetcher")<Fetcher, {
  readonly fetch: (request: FetchRequest) => Effect.Effect<FetchedResponse, WebsiteError | InvalidRequest>
}>() {}

/** How the Fetcher connects. `layerConfig` reads these from the environment (decisions §0). @category models */
export interface FetcherOptions {
  /** Allow loopback, private, link-local and metadata targets (`SIFT_ALLOW_PRIVATE_TARGETS`). */
  readonly allowPrivateTargets: boolean
  /** An HTTP proxy for all traffic (`SIFT_PROXY_URL`). */
  readonly proxyUrl: string | undefined
  /** Proxies by lower-case country code (`SIFT_COUNTRY_PROXIES`). */
  readonly countryProxies: Readonly<Record<string, string>>
  /** Host mapping (`SIFT_HOST_RESOLVER_RULES`), parsed or as the rule string. */
  readonly hostRules: HostRules.HostRules | string
  readonly userAgent: string
  readonly connectTimeoutMs: number
  /** Time allowed from sending the request to the end of the response headers. */
  readonly headersTimeoutMs: number
  /** Longest pause allowed between two body chunks. */
  readonly bodyTimeoutMs: number
  readonly maxRedirects: number
  /**
   * For tests only: decides per (resolved IP, host name) instead of `allowPrivateTargets`, so a test can allow
   * 127.0.0.1 for one host and refuse it for another.
   */
  readonly addressPolicy: AddressGuard.AddressPolicy | undefined
}

/** The defaults: private targets refused, no proxy, no host mapping. */
export const defaultOptions: FetcherOptions = {
  allowPrivateTargets: false,
  proxyUrl: undefined,
  countryProxies: {},
  hostRules: HostRules.empty,
  userAgent: DEFAULT_USER_AGENT,
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  maxRedirects: 10,
  addressPolicy: undefined
}

const mimeType = (contentType: string | undefined): string | undefined => {
  const mime = contentType?.split(";")[0]!.trim().toLowerCase()
  return mime === undefined || mime === "" ? undefined : mime
}

const invalidUrl = (detail: string) => new InvalidRequest({ reason: "Invalid", field: "url", detail })

const parseTarget = (text: string): Either.Either<URL, InvalidRequest> => {
  try {
    const url = new URL(text)
    return url.protocol === "http:" || url.protocol === "https:"
      ? Either.right(url)
      : Either.left(invalidUrl(`only http and https URLs can be fetched, not ${url.protocol}`))
  } catch {
    return Either.left(invalidUrl(`"${text}" is not a valid URL`))
  }
}

/**
 * Through a proxy the proxy resolves names, so the guard can only check literal IPs, refused names and (best effort)
 * what our own resolver says; the proxy is trusted for the rest.
 */
const checkProxiedTarget = (url: URL, policy: AddressGuard.AddressPolicy): Effect.Effect<void, WebsiteError> => {
  const host = url.hostname.replace(/^\[|\]$/g, "")
  const refuse = (ip: string) =>
    Effect.fail(new WebsiteError({ reason: "PrivateAddress", url: url.href, detail: AddressGuard.explain(ip, host) }))
  if (isIP(host) !== 0) return policy(host, host) ? Effect.void : refuse(host)
  // A refused name (`metadata.google.internal`) is refused whatever it resolves to, unless the policy allows everything.
  if (AddressGuard.refusedHostName(host) !== undefined && !policy("0.0.0.0", host)) return refuse("0.0.0.0")
  return Effect.promise(() => lookup(host, { all: true }).catch(() => [])).pipe(
    Effect.flatMap((addresses) => {
      const bad = addresses.find((a) => !policy(a.address, host))
      return bad === undefined ? Effect.void : refuse(bad.address)
    })
  )
}

/** Builds the service over a dispatcher set; used by {@link layer}. */
const make = (options: FetcherOptions, rules: HostRules.HostRules) =>
  Effect.gen(function*() {
    const policy = options.addressPolicy ?? AddressGuard.policy(options.allowPrivateTargets)
    const timeouts = { headersTimeout: options.headersTimeoutMs, bodyTimeout: options.bodyTimeoutMs }
    const dispatchers: Array<Dispatcher> = []
    const own = <D extends Dispatcher>(d: D): D => (dispatchers.push(d), d)
    yield* Effect.addFinalizer(() => Effect.promise(() => Promise.allSettled(dispatchers.map((d) => d.destroy()))))
    const direct = own(new Agent({
      ...timeouts,
      connect: guardedConnector({ policy, hostRules: rules, connectTimeoutMs: options.connectTimeoutMs })
    }))
    // Absolute-form requests for http targets (what every forward proxy speaks); CONNECT tunnels for https.
    const proxy = (uri: string) =>
      own(new ProxyAgent({ uri, proxyTunnel: false, proxyTls: { timeout: options.connectTimeoutMs }, ...timeouts }))
    const global = options.proxyUrl === undefined ? undefined : proxy(options.proxyUrl)
    const byCountry = new Map(Object.entries(options.countryProxies).map(([c, uri]) => [c.toLowerCase(), proxy(uri)]))

    const route = (country: string | undefined): Either.Either<Dispatcher | undefined, InvalidRequest> => {
      if (country === undefined) return Either.right(global)
      const found = byCountry.get(country.toLowerCase())
      return found === undefined
        ? Either.left(new InvalidRequest({
          reason: "Invalid",
          field: "country",
          detail: `no proxy is configured for country "${country}"`
        }))
        : Either.right(found)
    }

    const fetch = (request: FetchRequest): Effect.Effect<FetchedResponse, WebsiteError | InvalidRequest> =>
      Effect.gen(function*() {
        const start = yield* parseTarget(request.url)
        const viaProxy = yield* route(request.country)
        const dispatcher = viaProxy ?? direct
        const maxBytes = request.maxBytes ?? MAX_BYTES
        const redirects: Array<string> = []
        let url = start
        for (;;) {
          if (viaProxy !== undefined) yield* checkProxiedTarget(url, policy)
          const headers = buildHeaders(options.userAgent, url.origin === start.origin ? request.headers : undefined)
          const current = url
          const result = yield* Effect.tryPromise({
            try: (signal) => hop({ dispatcher, url: current, headers, maxBytes, signal }),
            catch: (error) => toWebsiteError(error, current.href, viaProxy !== undefined)
          })
          if (result._tag === "Final") {
            return {
              requestedUrl: request.url,
              url: url.href,
              redirects,
              status: result.status,
              headers: result.headers,
              contentType: mimeType(result.headers["content-type"]),
              body: result.body
            }
          }
          redirects.push(url.href)
          if (redirects.length > options.maxRedirects) {
            return yield* new WebsiteError({
              reason: "TooManyRedirects",
              url: request.url,
              detail: `more than ${options.maxRedirects} redirects, last to ${result.location}`
            })
          }
          url = yield* nextUrl(current, result.location)
        }
      })

    return { fetch }
  })

/** Resolves a `Location` against the URL that sent it; the fragment carries over when the new one has none. */
const nextUrl = (from: URL, location: string): Effect.Effect<URL, WebsiteError> => {
  let next: URL
  try {
    next = new URL(location, from)
  } catch {
    return Effect.fail(new WebsiteError({ reason: "InvalidRedirect", url: from.href, detail: `bad Location "${location}"` }))
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    return Effect.fail(new WebsiteError({ reason: "InvalidRedirect", url: from.href, detail: `Location is ${next.protocol}` }))
  }
  if (next.hash === "" && from.hash !== "") next.hash = from.hash
  return Effect.succeed(next)
}

const rulesOf = (hostRules: HostRules.HostRules | string): HostRules.HostRules => {
  if (typeof hostRules !== "string") return hostRules
  return Either.getOrThrowWith(HostRules.parse(hostRules), (error) => new Error(error.message))
}

/**
 * The Fetcher with these options (the rest default); its connections close when the layer's scope ends. A `hostRules`
 * string that does not parse is a defect here (use {@link HostRules.parse} first, or `layerConfig`, to get an error).
 */
export const layer = (options: Partial<FetcherOptions> = {}): Layer.Layer<Fetcher> => {
  const merged: FetcherOptions = { ...defaultOptions, ...options }
  return Layer.scoped(Fetcher, Effect.suspend(() => make(merged, rulesOf(merged.hostRules))))
}

const countryProxies = Config.string("SIFT_COUNTRY_PROXIES").pipe(
  Config.mapOrFail((text) => {
    const fail = (detail: string) => Either.left(ConfigError.InvalidData([], `SIFT_COUNTRY_PROXIES ${detail}`))
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return fail("is not JSON")
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return fail("must be a JSON object")
    const entries = Object.entries(parsed)
    const bad = entries.find(([country, uri]) => !/^[a-z]{2}$/i.test(country) || typeof uri !== "string")
    if (bad !== undefined) return fail(`has a bad entry "${bad[0]}": keys are country codes, values proxy URLs`)
    return Either.right(Object.fromEntries(entries.map(([c, uri]) => [c.toLowerCase(), uri as string])))
  }),
  Config.withDefault({} as Record<string, string>)
)

const hostRulesConfig = Config.string("SIFT_HOST_RESOLVER_RULES").pipe(
  Config.mapOrFail((text) =>
    Either.mapLeft(HostRules.parse(text), (e) => ConfigError.InvalidData([], `SIFT_HOST_RESOLVER_RULES: ${e.message}`))
  ),
  Config.withDefault(HostRules.empty)
)

/** The Fetcher configured from the environment: `SIFT_ALLOW_PRIVATE_TARGETS`, `SIFT_PROXY_URL`, `SIFT_COUNTRY_PROXIES`, `SIFT_HOST_RESOLVER_RULES`, `SIFT_USER_AGENT`. */
export const layerConfig: Layer.Layer<Fetcher, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(
    Config.all({
      allowPrivateTargets: Config.boolean("SIFT_ALLOW_PRIVATE_TARGETS").pipe(Config.withDefault(false)),
      proxyUrl: Config.option(Config.redacted("SIFT_PROXY_URL")),
      countryProxies,
      hostRules: hostRulesConfig,
      userAgent: Config.string("SIFT_USER_AGENT").pipe(Config.withDefault(DEFAULT_USER_AGENT))
    }),
    (config) =>
      layer({
        ...config,
        proxyUrl: Option.getOrUndefined(Option.map(config.proxyUrl, Redacted.value))
      })
  )
)
