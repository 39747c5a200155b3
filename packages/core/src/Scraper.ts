/**
 * The library's front door for Node apps that do not use Effect: `scrape(request)` returns a Promise of what
 * `POST /web/scrape` returns. Failures reject with the tagged error itself (`err._tag`, `err.errorCode`,
 * `err.message`), never with a wrapper.
 *
 * @since 0.1.0
 */
import { Cause, Exit, Layer, ManagedRuntime } from "effect"
import type * as BrowserPool from "./BrowserPool.js"
import * as Cache from "./Cache.js"
import type { ScrapeError } from "./Errors.js"
import * as Fetcher from "./Fetcher.js"
import * as Pipeline from "./Pipeline.js"
import * as Renderer from "./Renderer.js"
import type { ScrapeRequestInput } from "./ScrapeRequest.js"
import type { ScrapeResult } from "./ScrapeResult.js"

/** How a scraper is put together. */
export interface ScraperOptions {
  /** Fetcher settings; omitted ones are read from the environment (`SIFT_ALLOW_PRIVATE_TARGETS`, `SIFT_PROXY_URL`, ...). */
  readonly fetcher?: Partial<Fetcher.FetcherOptions>
  /** `"memory"` (default): pages are kept in process memory; `"none"`: every scrape fetches. */
  readonly cache?: "memory" | "none"
  /** Browser settings (Chromium launches on the first page that needs it); `"none"`: no browser, such requests fail. */
  readonly renderer?: Partial<BrowserPool.BrowserPoolOptions> | "none"
}

/** A scraper with its own connections and cache; `close` releases them. */
export interface Scraper {
  /** Scrapes one URL; rejects with a `ScrapeError`. */
  readonly scrape: (request: ScrapeRequestInput) => Promise<ScrapeResult>
  /** Releases connections and the cache. */
  readonly close: () => Promise<void>
}

/** The layer a scraper runs on. */
export const layer = (options: ScraperOptions = {}): Layer.Layer<Fetcher.Fetcher | Cache.Cache | Renderer.Renderer, unknown> =>
  Layer.mergeAll(
    options.fetcher === undefined ? Fetcher.layerConfig : Fetcher.layer(options.fetcher),
    options.cache === "none" ? Cache.layerNone : Cache.layerMemory(),
    options.renderer === "none"
      ? Layer.empty as unknown as Layer.Layer<Renderer.Renderer>
      : options.renderer === undefined
      ? Renderer.layerConfig
      : Renderer.layer(options.renderer)
  )

/** Runs an Effect and settles the Promise with its value or its own error (no fiber-failure wrapper). */
const settle = async <A>(exit: Promise<Exit.Exit<A, ScrapeError | unknown>>): Promise<A> => {
  const result = await exit
  if (Exit.isSuccess(result)) return result.value
  throw Cause.squash(result.cause)
}

/** Creates a scraper. */
export const make = (options: ScraperOptions = {}): Scraper => {
  const runtime = ManagedRuntime.make(layer(options))
  return {
    scrape: (request) => settle(runtime.runPromiseExit(Pipeline.scrape(request))),
    close: () => runtime.dispose()
  }
}

let shared: Scraper | undefined

/** Scrapes one URL with a process-wide scraper configured from the environment. */
export const scrape = (request: ScrapeRequestInput): Promise<ScrapeResult> => {
  shared ??= make()
  return shared.scrape(request)
}

/** Runs a scrape as an Effect (for Effect apps that bring their own `Fetcher` and `Cache` layers). */
export const scrapeEffect = Pipeline.scrape

