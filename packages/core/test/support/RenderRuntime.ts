/**
 * The pipeline over a real Chromium for render tests: a Fetcher, a Cache, and a Renderer over its own BrowserPool,
 * as one `ManagedRuntime` (dispose it in `afterAll`; that closes the browser). Defaults: a pool of one context, every
 * address allowed (fixture sites are on loopback), an in-memory cache.
 */
import { Layer, ManagedRuntime } from "effect"
import * as BrowserPool from "../../src/BrowserPool.js"
import * as Cache from "../../src/Cache.js"
import * as Fetcher from "../../src/Fetcher.js"
import * as Renderer from "../../src/Renderer.js"

/** What a render test runs its effects with. */
export type RenderRuntime = ManagedRuntime.ManagedRuntime<Fetcher.Fetcher | Cache.Cache | Renderer.Renderer | BrowserPool.BrowserPool, unknown>

/** What differs from the defaults. */
export interface RenderRuntimeOptions {
  readonly pool?: Partial<BrowserPool.BrowserPoolOptions>
  readonly fetcher?: Partial<Fetcher.FetcherOptions>
  readonly cache?: Layer.Layer<Cache.Cache>
}

/** A runtime with a Fetcher, a Cache and a Renderer over a real browser pool. */
export const make = (options: RenderRuntimeOptions = {}): RenderRuntime => {
  const pool = BrowserPool.layer({ size: 1, addressPolicy: () => true, ...options.pool })
  return ManagedRuntime.make(Layer.mergeAll(
    Fetcher.layer(options.fetcher ?? { allowPrivateTargets: true }),
    options.cache ?? Cache.layerMemory(),
    Layer.effect(Renderer.Renderer, Renderer.make).pipe(Layer.provideMerge(pool))
  ))
}
