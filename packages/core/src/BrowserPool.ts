/**
 * One Chromium per process, shared by every render: launched lazily (Debian Chromium through Playwright, or a remote
 * browser at `SIFT_BROWSER_WS_ENDPOINT`), relaunched after a crash, closed with the layer. At most `size` contexts are
 * open at once; further requests queue for a slot instead of failing. Each context is fresh (no cookies or storage
 * shared between requests) and every request its pages make passes the address guard, with the Fetcher's host rules,
 * proxies and user agent: through the context's own guard proxy (`internal/render/guardProxy.ts`), on loopback for
 * the local browser and on `SIFT_BROWSER_GUARD_HOST` (with per-context credentials) for a remote one. A remote browser
 * without that address, and upstream proxies other than `http://` and `https://`, fall back to route interception
 * plus a check of every redirect hop (Playwright does not show hops to route handlers): a refused hop fails the
 * render, though its request was sent.
 *
 * @since 0.1.0
 */
import { Config, ConfigError, Context, Effect, Either, Layer, Option, Redacted, type Scope } from "effect"
import { existsSync } from "node:fs"
import { isIP } from "node:net"
import type { Browser, BrowserContext } from "playwright-core"
import * as AddressGuard from "./AddressGuard.js"
import { InvalidRequest, WebsiteError } from "./Errors.js"
import * as Fetcher from "./Fetcher.js"
import * as HostRules from "./HostRules.js"
import * as GuardProxy from "./internal/render/guardProxy.js"
import * as Trackers from "./internal/render/trackers.js"

/** How the pool reaches a browser. @category models */
export interface BrowserPoolOptions {
  /** Chromium binary (`SIFT_CHROMIUM_PATH`); default `/usr/lib/chromium/chromium`, then `/usr/bin/chromium`. */
  readonly executablePath: string | undefined
  /** Connect to this Playwright browser server instead of launching (`SIFT_BROWSER_WS_ENDPOINT`). */
  readonly wsEndpoint: string | undefined
  /**
   * With a remote browser: the address of this process the guard proxies listen on and the browser connects to
   * (`SIFT_BROWSER_GUARD_HOST`). Not loopback: each context's proxy requires its own random credentials.
   */
  readonly guardHost: string | undefined
  /** Contexts open at once (`SIFT_BROWSER_POOL_SIZE`, default 4). */
  readonly size: number
  readonly allowPrivateTargets: boolean
  readonly proxyUrl: string | undefined
  readonly countryProxies: Readonly<Record<string, string>>
  readonly hostRules: HostRules.HostRules | string
  readonly userAgent: string
  /** For tests: decides per (IP, host) instead of `allowPrivateTargets`. */
  readonly addressPolicy: AddressGuard.AddressPolicy | undefined
  /**
   * Refuse known trackers and ad servers (`SIFT_BROWSER_BLOCK_TRACKERS`, default true; `internal/render/trackers.ts`).
   * Requests the browser makes on its own (favicons) are refused either way: no result uses them.
   */
  readonly blockTrackers: boolean
  /** The operator's list of tracker hosts in place of Sift's own (`SIFT_BROWSER_BLOCKLIST_FILE`; a hosts file or one name a line). */
  readonly blockListFile?: string | undefined
}

/** The defaults: launch the local Chromium, 4 contexts, private targets refused. */
export const defaultOptions: BrowserPoolOptions = {
  executablePath: undefined,
  wsEndpoint: undefined,
  guardHost: undefined,
  size: 4,
  allowPrivateTargets: false,
  proxyUrl: undefined,
  countryProxies: {},
  hostRules: HostRules.empty,
  userAgent: Fetcher.DEFAULT_USER_AGENT,
  addressPolicy: undefined,
  blockTrackers: true
}

/** What a fresh context is made with. @category models */
export interface ContextOptions {
  readonly viewport: { readonly width: number; readonly height: number }
  readonly theme?: "light" | "dark" | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly country?: string | undefined
}

/** Why the guard did not pass a request on. @category models */
export interface GuardFailure {
  readonly reason: "PrivateAddress" | "NotFound" | "Unreachable"
  readonly detail: string
}

/** A context on loan from the pool, with what its guard refused. @category models */
export interface Lease {
  readonly context: BrowserContext
  /** URLs the address guard refused, with the reason, in order (a refused HTTPS tunnel as `https://host:port/`). */
  readonly refused: ReadonlyArray<{ readonly url: string; readonly detail: string }>
  /** Why the guard stopped a request to `url`, when it did. */
  readonly failureOf: (url: string) => GuardFailure | undefined
  /**
   * The first redirect hop the guard refused after the browser followed it (route interception only: the guard
   * proxy stops hops before they are sent), once every hop seen so far is checked. Nothing of the page may be used then.
   */
  readonly refusedHop: () => Promise<{ readonly url: string; readonly detail: string } | undefined>
}

/** Counters for tests and the soak bench. @category models */
export interface PoolStats {
  readonly launches: number
  readonly openContexts: number
  readonly openPages: number
  /** Guard proxies listening (one per open context when the guard runs as a proxy). */
  readonly openGuardProxies: number
  readonly connected: boolean
  /** Page crashes and losses of the current browser's connection so far (metrics). */
  readonly crashes: number
  /** Requests refused by the current browser's blocking: its own (favicons) and trackers. */
  readonly blocked: Trackers.BlockStats
}

/** The browser pool. @category services */
export class BrowserPool extends Context.Tag("@sift/core/BrowserPool")<BrowserPool, {
  /** A fresh context, after waiting for a slot; closed (with its pages) and the slot freed when the scope closes. */
  readonly context: (options: ContextOptions) => Effect.Effect<Lease, WebsiteError | InvalidRequest, Scope.Scope>
  readonly stats: Effect.Effect<PoolStats>
}>() {}

/** Page crashes after which a browser is replaced (its crashed renderer processes go with it). */
export const RECYCLE_AFTER_CRASHES = 5

const chromiumPath = (configured: string | undefined): string | undefined =>
  configured ?? ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((path) => existsSync(path))

const browserFailure = (url: string, error: unknown) =>
  new WebsiteError({
    reason: "Unreachable",
    url,
    detail: `the browser failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`
  })

/** Builds the pool; the browser closes when the scope of the layer closes. */
export const make = (options: BrowserPoolOptions) =>
  Effect.gen(function*() {
    const rules = typeof options.hostRules === "string"
      ? Either.getOrThrowWith(HostRules.parse(options.hostRules), (e) => new Error(e.message))
      : options.hostRules
    const policy = options.addressPolicy ?? AddressGuard.policy(options.allowPrivateTargets)
    if (options.wsEndpoint !== undefined && options.guardHost === undefined && policy !== AddressGuard.allowAll) {
      // Said once at start: the fallback withholds a refused redirect hop's result but cannot stop its request.
      yield* Effect.logWarning(
        "remote browser without SIFT_BROWSER_GUARD_HOST: redirect hops into private addresses are refused only after " +
          "their request was sent; set SIFT_BROWSER_GUARD_HOST to an address of this process the browser can reach"
      )
    }
    const slots = yield* Effect.makeSemaphore(Math.max(1, options.size))
    const launchLock = yield* Effect.makeSemaphore(1)
    let browser: Browser | undefined
    let launches = 0
    let openContexts = 0
    let openGuardProxies = 0
    // Crashed renderer processes linger (as zombies) until their browser exits: after this many page crashes the
    // browser is retired. New contexts get a fresh browser; the old one closes when its last context does.
    let crashes = 0
    let crashesTotal = 0
    const retired = new Set<Browser>()
    const retireIfCrashed = (owner: Browser) => {
      crashesTotal++
      if (owner !== browser) return
      crashes++
      if (crashes < RECYCLE_AFTER_CRASHES || options.wsEndpoint !== undefined) return
      browser = undefined
      crashes = 0
      retired.add(owner)
      if (owner.contexts().length === 0) closeRetired(owner)
    }
    const closeRetired = (owner: Browser) => {
      retired.delete(owner)
      void owner.close().catch(() => undefined)
    }

    const noneBlocked = () => ({ own: 0, trackers: 0 })
    let blockedOf: () => Trackers.BlockStats = noneBlocked
    const launch = Effect.tryPromise({
      try: () => import("playwright-core").then(({ chromium }) => {
        if (options.wsEndpoint !== undefined) return chromium.connect(options.wsEndpoint)
        const args = ["--disable-dev-shm-usage", "--no-sandbox"]
        // The guard proxies listen on 127.0.0.1: no rule may send the browser's proxy connections elsewhere.
        if (rules.source !== "") args.push(`--host-resolver-rules=EXCLUDE 127.0.0.1,${rules.source}`)
        return chromium.launch({ executablePath: chromiumPath(options.executablePath), args })
      }).then(async (launched) => {
        // Favicons and trackers are refused in the browser, for every context, before they leave it.
        blockedOf = await Trackers.attach(launched, { trackers: options.blockTrackers, listFile: options.blockListFile }).catch(() => noneBlocked)
        return launched
      }),
      catch: (error) => browserFailure("about:blank", error)
    })

    // One launch at a time; a disconnected browser (crashed or killed) is replaced by the next request.
    const current = launchLock.withPermits(1)(Effect.suspend(() => {
      if (browser !== undefined && browser.isConnected()) return Effect.succeed(browser)
      return Effect.map(launch, (launched) => {
        launches++
        crashes = 0
        browser = launched
        launched.on("disconnected", () => {
          if (browser === launched) crashesTotal++
          if (browser === launched) browser = undefined
        })
        return launched
      })
    }))

    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        const open = [browser, ...retired]
        browser = undefined
        retired.clear()
        await Promise.all(open.map((b) => b?.close().catch(() => undefined)))
      })
    )

    const guard = GuardProxy.makeShared(policy, rules)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        guard.agent.destroy()
        guard.tlsAgent.destroy()
      })
    )
    const addressesOf = guard.addressesOf

    /** Why a request to `url` is refused, or undefined when it may go. */
    const refusal = async (url: URL): Promise<string | undefined> => {
      const host = url.hostname.replace(/^\[|\]$/g, "")
      const mapped = HostRules.resolve(rules, host)
      if (mapped?._tag === "NotFound") return undefined // Chromium answers it with a name error itself
      const target = mapped?._tag === "Connect" ? mapped.host.replace(/^\[|\]$/g, "") : host
      if (isIP(target) !== 0) return policy(target, host) ? undefined : AddressGuard.explain(target, host)
      if (AddressGuard.refusedHostName(host) !== undefined && !policy("0.0.0.0", host)) return AddressGuard.explain("0.0.0.0", host)
      const addresses = await addressesOf(target)
      const bad = addresses.find((ip) => !policy(ip, host))
      return bad === undefined ? undefined : AddressGuard.explain(bad, host)
    }

    const proxyFor = (country: string | undefined): Either.Either<string | undefined, InvalidRequest> => {
      if (country === undefined) return Either.right(options.proxyUrl)
      const found = options.countryProxies[country.toLowerCase()]
      return found === undefined
        ? Either.left(new InvalidRequest({ reason: "Invalid", field: "country", detail: `no proxy is configured for country "${country}"` }))
        : Either.right(found)
    }

    const openContext = (contextOptions: ContextOptions) =>
      Effect.gen(function*() {
        const proxy = yield* proxyFor(contextOptions.country)
        const owner = yield* current
        const refused: Array<{ url: string; detail: string }> = []
        const refusedHops: Array<{ url: string; detail: string }> = []
        const hopChecks: Array<Promise<void>> = []
        // With every address allowed there is nothing to check. Otherwise the context's own proxy checks every
        // request without a protocol round trip; interception only where the browser cannot reach our loopback.
        const checked = policy !== AddressGuard.allowAll
        const guardHost = options.wsEndpoint === undefined ? "127.0.0.1" : options.guardHost
        const proxied = checked && guardHost !== undefined && (proxy === undefined || /^https?:\/\//i.test(proxy))
        // Reachable from elsewhere: only this context's browser may use it, or it would be an open proxy into our network.
        const credentials = proxied && !GuardProxy.isLoopback(guardHost) ? GuardProxy.randomCredentials() : undefined
        const context = yield* Effect.tryPromise({
          try: async () => {
            const guardProxy = proxied ? await GuardProxy.start(guard, proxy, { host: guardHost, credentials }) : undefined
            let proxyOpen = guardProxy !== undefined
            if (proxyOpen) openGuardProxies++
            const closeProxy = () => {
              if (!proxyOpen) return
              proxyOpen = false
              openGuardProxies--
              guardProxy!.close()
            }
            const context = await owner.newContext({
              viewport: contextOptions.viewport,
              colorScheme: contextOptions.theme ?? "light",
              userAgent: options.userAgent,
              extraHTTPHeaders: contextOptions.headers === undefined ? undefined : { ...contextOptions.headers },
              serviceWorkers: "block",
              ...(guardProxy !== undefined
                ? { proxy: { server: guardProxy.server, ...credentials } }
                : proxy === undefined
                ? {}
                : { proxy: { server: proxy } })
            }).catch((error: unknown) => {
              closeProxy()
              throw error
            })
            context.on("page", (page) => page.on("crash", () => retireIfCrashed(owner)))
            if (guardProxy !== undefined) {
              context.on("close", closeProxy)
              return { context, guardProxy }
            }
            if (!checked) return { context, guardProxy }
            // Redirect hops are followed without calling route handlers: each is checked as the browser reports it.
            context.on("request", (request) => {
              if (request.redirectedFrom() === null) return
              let url: URL
              try {
                url = new URL(request.url())
              } catch {
                return
              }
              if (url.protocol !== "http:" && url.protocol !== "https:") return
              hopChecks.push(refusal(url).catch(() => "the address could not be checked").then((why) => {
                if (why === undefined) return
                refused.push({ url: url.href, detail: why })
                refusedHops.push({ url: url.href, detail: why })
              }))
            })
            await context.route("**/*", async (route) => {
              const url = new URL(route.request().url())
              if (url.protocol !== "http:" && url.protocol !== "https:") return route.continue().catch(() => undefined)
              const why = await refusal(url).catch(() => "the address could not be checked")
              if (why === undefined) return route.continue().catch(() => undefined)
              refused.push({ url: url.href, detail: why })
              return route.abort("blockedbyclient").catch(() => undefined)
            })
            return { context, guardProxy }
          },
          catch: (error) => browserFailure("about:blank", error)
        })
        const { guardProxy } = context
        if (guardProxy !== undefined) {
          return {
            context: context.context,
            get refused() {
              return guardProxy.failures.filter((f) => f.reason === "PrivateAddress").map((f) => ({ url: f.url, detail: f.detail }))
            },
            failureOf: (url: string) => GuardProxy.failureOf(guardProxy.failures, url),
            refusedHop: () => Promise.resolve(undefined)
          } satisfies Lease
        }
        return {
          context: context.context,
          refused,
          failureOf: (url: string): GuardFailure | undefined => {
            const found = refused.find((r) => r.url === url)
            return found === undefined ? undefined : { reason: "PrivateAddress", detail: found.detail }
          },
          refusedHop: async () => {
            // Checks may start while earlier ones are awaited: wait until none is left.
            for (let seen = 0; seen < hopChecks.length; seen = hopChecks.length) await Promise.all(hopChecks.slice(seen))
            return refusedHops[0]
          }
        } satisfies Lease
      })

    const context = (contextOptions: ContextOptions): Effect.Effect<Lease, WebsiteError | InvalidRequest, Scope.Scope> =>
      Effect.gen(function*() {
        yield* Effect.acquireRelease(slots.take(1), () => slots.release(1))
        return yield* Effect.acquireRelease(
          Effect.tap(openContext(contextOptions), () => Effect.sync(() => openContexts++)),
          (lease) =>
            Effect.promise(async () => {
              const owner = lease.context.browser()
              await lease.context.close().catch(() => undefined)
              if (owner !== null && retired.has(owner) && owner.contexts().length === 0) closeRetired(owner)
            }).pipe(Effect.ensuring(Effect.sync(() => openContexts--)))
        )
      })

    const stats = Effect.sync((): PoolStats => {
      const contexts = browser?.contexts() ?? []
      return {
        launches,
        openContexts,
        openPages: contexts.reduce((n, c) => n + c.pages().length, 0),
        openGuardProxies,
        connected: browser?.isConnected() ?? false,
        crashes: crashesTotal,
        blocked: blockedOf()
      }
    })

    return { context, stats }
  })

/** The pool with these options (the rest default). */
export const layer = (options: Partial<BrowserPoolOptions> = {}): Layer.Layer<BrowserPool> =>
  Layer.scoped(BrowserPool, Effect.suspend(() => make({ ...defaultOptions, ...options })))

const countryProxies = Config.string("SIFT_COUNTRY_PROXIES").pipe(
  Config.map((text) => {
    try {
      const parsed = JSON.parse(text) as Record<string, string>
      return Object.fromEntries(Object.entries(parsed).map(([c, uri]) => [c.toLowerCase(), String(uri)]))
    } catch {
      return {}
    }
  }),
  Config.withDefault({} as Record<string, string>)
)

const hostRulesConfig = Config.string("SIFT_HOST_RESOLVER_RULES").pipe(
  Config.mapOrFail((text) =>
    Either.mapLeft(HostRules.parse(text), (e) => ConfigError.InvalidData([], `SIFT_HOST_RESOLVER_RULES: ${e.message}`))
  ),
  Config.withDefault(HostRules.empty)
)

/** The pool configured from the environment: `SIFT_CHROMIUM_PATH`, `SIFT_BROWSER_WS_ENDPOINT`, `SIFT_BROWSER_GUARD_HOST`, `SIFT_BROWSER_POOL_SIZE`, `SIFT_BROWSER_BLOCK_TRACKERS`, `SIFT_BROWSER_BLOCKLIST_FILE`, and the Fetcher's `SIFT_ALLOW_PRIVATE_TARGETS`, `SIFT_PROXY_URL`, `SIFT_COUNTRY_PROXIES`, `SIFT_HOST_RESOLVER_RULES`, `SIFT_USER_AGENT`. */
export const layerConfig: Layer.Layer<BrowserPool, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(
    Config.all({
      executablePath: Config.option(Config.string("SIFT_CHROMIUM_PATH")),
      wsEndpoint: Config.option(Config.string("SIFT_BROWSER_WS_ENDPOINT")),
      guardHost: Config.option(Config.string("SIFT_BROWSER_GUARD_HOST")),
      size: Config.integer("SIFT_BROWSER_POOL_SIZE").pipe(Config.withDefault(4)),
      allowPrivateTargets: Config.boolean("SIFT_ALLOW_PRIVATE_TARGETS").pipe(Config.withDefault(false)),
      proxyUrl: Config.option(Config.redacted("SIFT_PROXY_URL")),
      countryProxies,
      hostRules: hostRulesConfig,
      userAgent: Config.string("SIFT_USER_AGENT").pipe(Config.withDefault(Fetcher.DEFAULT_USER_AGENT)),
      blockTrackers: Config.boolean("SIFT_BROWSER_BLOCK_TRACKERS").pipe(Config.withDefault(true)),
      blockListFile: Config.option(Config.string("SIFT_BROWSER_BLOCKLIST_FILE"))
    }),
    (config) =>
      layer({
        ...config,
        executablePath: Option.getOrUndefined(config.executablePath),
        wsEndpoint: Option.getOrUndefined(config.wsEndpoint),
        guardHost: Option.getOrUndefined(config.guardHost),
        proxyUrl: Option.getOrUndefined(Option.map(config.proxyUrl, Redacted.value)),
        blockListFile: Option.getOrUndefined(config.blockListFile)
      })
  )
)
