/**
 * The Sift API as an application of `Server.run`: the routes under `/v1` (each through `RequestPipeline`), the OpenAPI
 * document, a JSON 404 for anything else, the request log, the auth services, the admin channel for the CLI, and the
 * bootstrap key of `SIFT_BOOTSTRAP_KEY`.
 *
 * @since 0.1.0
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Auth from "@sift/auth"
import { Batches, migrations as batchMigrations } from "@sift/batch"
import { MonitorService, migrations as monitorMigrations } from "@sift/monitors"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { BlobStore, Mailer } from "@sift/store"
import * as LanguageModel from "@sift/core/LanguageModel"
import * as SearchProvider from "@sift/core/SearchProvider"
import * as News from "@sift/core/News"
import * as People from "@sift/core/People"
import * as PageIndex from "@sift/store/PageIndex"
import { migrations as webhookMigrations } from "@sift/webhooks"
import * as Admin from "./Admin.js"
import * as Agents from "./Agents/Http.js"
import * as BrandAssets from "./Brand/Assets.js"
import * as BrandRoutes from "./Brand/Http.js"
import * as BrandPrefetch from "./Brand/Prefetch.js"
import * as BrandStore from "./Brand/Store.js"
import * as BatchRoutes from "./Batch/Http.js"
import * as BatchServices from "./Batch/Services.js"
import * as AgentLimits from "./Agents/Limits.js"
import { directOperations } from "./internal/admin/direct.js"
import * as HostedFiles from "./Images/HostedFiles.js"
import * as Images from "./Images/Http.js"
import * as Logs from "./Logs/Http.js"
import * as Mcp from "./Mcp/Http.js"
import * as MonitorRoutes from "./Monitors/Http.js"
import * as MonitorServices from "./Monitors/Services.js"
import * as ConsoleRoutes from "./Console/Http.js"
import * as ConsoleSession from "./Console/Session.js"
import * as ConsoleStatic from "./Console/Static.js"
import * as Crawl from "./Crawl/Http.js"
import * as Answers from "./Answers/Http.js"
import * as Extract from "./Extract/Http.js"
import * as Competitors from "./Search/Competitors.js"
import * as Search from "./Search/Http.js"
import * as Naics from "./Naics/Http.js"
import * as NewsRoutes from "./News/Http.js"
import * as NewsPoller from "./News/Poller.js"
import * as NewsStore from "./News/Store.js"
import * as PeopleRoutes from "./People/Http.js"
import * as OpenApi from "./OpenApi.js"
import * as Parse from "./Parse/Http.js"
import * as Products from "./Products/Http.js"
import * as RequestLog from "./RequestLog.js"
import * as RequestPipeline from "./RequestPipeline.js"
import * as Bytes from "./Scrape/Bytes.js"
import * as Html from "./Scrape/Html.js"
import * as Scrape from "./Scrape/Http.js"
import * as Markdown from "./Scrape/Markdown.js"
import * as Screenshot from "./Screenshot/Http.js"
import * as Sic from "./Sic/Http.js"
import * as Fonts from "./Styleguide/Fonts.js"
import * as Styleguide from "./Styleguide/Http.js"
import * as UrlEnrichment from "./Urls/Enrichment.js"
import * as Urls from "./Urls/Http.js"
import type * as Server from "./Server.js"
import { CurrentConfig } from "./ServiceConfig.js"
import * as Roles from "./internal/server/roles.js"
import * as Target from "./internal/target.js"

const notFound = (method: string, path: string) => {
  const requestId = randomUUID()
  return HttpServerResponse.unsafeJson(
    { request_id: requestId, error_code: "NOT_FOUND", message: `No route ${method} ${path}` },
    { status: 404, headers: { "x-request-id": requestId } }
  )
}

const api = { bucket: "api" } as const
const logs = { bucket: "logs" } as const
// Prefetch is outside rate limits (spec: 0 credits, not rate limited).
const prefetchRoute = { bucket: "api", unlimited: true } as const
const LOG_ID = /^\/v1\/logs\/([^/]+)$/

/** The route of a request: its method and path decide (a plain function: no fiber steps of its own). */
const routeFor = (request: HttpServerRequest.HttpServerRequest) => {
  const path = Target.parse(request.url).path
  const route = `${request.method} ${path}`
  switch (route) {
    case "POST /v1/web/scrape":
      return RequestPipeline.serve(api, Scrape.scrape)
    case "GET /v1/web/scrape/markdown":
      return RequestPipeline.serve(api, Markdown.markdown)
    case "GET /v1/web/scrape/html":
      return RequestPipeline.serve(api, Html.html)
    case "GET /v1/web/scrape/bytes":
      return RequestPipeline.serve(api, Bytes.bytes)
    case "GET /v1/web/scrape/images":
      return RequestPipeline.serve(api, Images.images)
    case "GET /v1/web/scrape/screenshot":
      return RequestPipeline.serve(api, Screenshot.scrapeScreenshot)
    case "GET /v1/web/screenshot":
      return RequestPipeline.serve(api, Screenshot.screenshot)
    case "GET /v1/web/urls":
      return RequestPipeline.serve(api, Urls.urls)
    case "GET /v1/web/scrape/sitemap":
      return RequestPipeline.serve(api, Urls.sitemap)
    case "GET /v1/web/naics":
      return RequestPipeline.serve(api, Naics.naics)
    case "GET /v1/web/sic":
      return RequestPipeline.serve(api, Sic.sic)
    case "POST /v1/brand/ai/product":
      return RequestPipeline.serve(api, Products.product)
    case "POST /v1/brand/ai/products":
      return RequestPipeline.serve(api, Products.products)
    case "GET /v1/web/styleguide":
      return RequestPipeline.serve(api, Styleguide.styleguide)
    case "GET /v1/web/fonts":
      return RequestPipeline.serve(api, Fonts.fonts)
    case "POST /v1/web/search":
      return RequestPipeline.serve(api, Search.search)
    case "GET /v1/web/competitors":
      return RequestPipeline.serve(api, Competitors.competitors)
    case "POST /v1/web/answers":
      return RequestPipeline.serve(api, Answers.answers)
    case "POST /v1/web/extract":
      return RequestPipeline.serve(api, Extract.extract)
    case "POST /v1/brand/retrieve":
      return RequestPipeline.serve(api, BrandRoutes.retrieve)
    case "GET /v1/brand/retrieve-simplified":
      return RequestPipeline.serve(api, BrandRoutes.retrieveSimplified)
    case "GET /v1/brand/search":
      return RequestPipeline.serve(api, BrandRoutes.search)
    case "POST /v1/utility/prefetch":
      return RequestPipeline.serve(prefetchRoute, BrandRoutes.prefetch)
    case "POST /v1/news/search":
      return RequestPipeline.serve(api, NewsRoutes.search)
    case "POST /v1/people/enrich":
      return RequestPipeline.serve(api, PeopleRoutes.enrich)
    case "POST /v1/web/crawl":
      return RequestPipeline.serve(api, Crawl.crawl)
    case "POST /v1/parse":
      return RequestPipeline.serve({ bucket: "api", rawBodyLimit: Parse.MAX_BYTES }, Parse.parse(request.headers["content-type"]?.split(";")[0]?.trim()))
    case "GET /v1/logs":
      return RequestPipeline.serve(logs, Logs.list)
    case "GET /v1/openapi.json": {
      const requestId = randomUUID()
      return Effect.succeed(HttpServerResponse.unsafeJson(OpenApi.document, { headers: { "x-request-id": requestId } }))
    }
  }
  if (path.startsWith(ConsoleRoutes.PREFIX)) return ConsoleRoutes.serve(request.method, path)
  if ((request.method === "GET" || request.method === "HEAD") && ConsoleStatic.isConsolePath(path)) {
    return ConsoleStatic.serve(path, request.headers["accept-encoding"])
  }
  if (request.method === "GET" && path.startsWith(HostedFiles.PATH_PREFIX)) {
    return HostedFiles.serve(decodeURIComponent(path.slice(HostedFiles.PATH_PREFIX.length)))
  }
  // An asset's name has no slash: deeper paths are no route.
  if (request.method === "GET" && path.startsWith(BrandAssets.PATH_PREFIX) && !path.includes("/", BrandAssets.PATH_PREFIX.length)) {
    return BrandAssets.serve(path.slice(BrandAssets.PATH_PREFIX.length))
  }
  const logId = request.method === "GET" ? LOG_ID.exec(path) : null
  if (logId !== null) return RequestPipeline.serve(logs, Logs.get(decodeURIComponent(logId[1]!)))
  const batchRoute = BatchRoutes.routeOf(request.method, path)
  if (batchRoute !== undefined) return RequestPipeline.serve(api, batchRoute)
  const monitorRoute = MonitorRoutes.routeOf(request.method, path, request.headers)
  if (monitorRoute !== undefined) return RequestPipeline.serve(api, monitorRoute)
  return Effect.succeed(notFound(request.method, path))
}

type Routed = ReturnType<typeof routeFor>

/** `routeFor` as one effect type (the union of its routes' errors and services), which `flatMap` can infer from. */
const dispatch = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  Effect.Effect.Error<Routed>,
  Effect.Effect.Context<Routed>
> => routeFor(request)

/** The HTTP application: dispatches on method and path. */
export const httpApp = Effect.flatMap(HttpServerRequest.HttpServerRequest, dispatch)

/** Every package's migrations this application needs (the store's run first, by `Server`). */
export const migrations = {
  auth: Auth.migrations,
  http: RequestLog.migrations,
  search: PageIndex.migrations,
  mailer: Mailer.migrations,
  // Before monitors: monitors/0003 gives existing webhooks their secrets in the webhooks package's table.
  webhooks: webhookMigrations,
  monitors: monitorMigrations,
  batch: batchMigrations,
  brand: BrandStore.migrations,
  news: NewsStore.migrations
}

/** Makes sure the `SIFT_BOOTSTRAP_KEY` exists (idempotent), for containers and CI. */
const bootstrap = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* CurrentConfig
  if (Option.isNone(config.bootstrapKey)) return
  const accounts = yield* Auth.Accounts.Accounts
  const ensured = yield* accounts.ensureBootstrapKey(Redacted.value(config.bootstrapKey.value), config.bootstrapPlan)
  yield* Effect.log(`bootstrap key ready (${ensured.keyId} in ${ensured.orgId})`)
}))

/** Monitors (scheduler, run workers, webhook deliveries) from `SIFT_ALLOW_PRIVATE_TARGETS`, `SIFT_MONITOR_TICK_MS`, `SIFT_MONITOR_CONCURRENCY`. */
const monitors = Layer.unwrapEffect(Effect.map(
  Config.all({
    allowPrivateTargets: Config.boolean("SIFT_ALLOW_PRIVATE_TARGETS").pipe(Config.withDefault(false)),
    tickMs: Config.integer("SIFT_MONITOR_TICK_MS").pipe(Config.withDefault(5_000)),
    concurrency: Config.integer("SIFT_MONITOR_CONCURRENCY").pipe(Config.withDefault(4))
  }),
  (config) => MonitorService.layer({ allowPrivateTargets: config.allowPrivateTargets, scheduler: { tickMs: config.tickMs, concurrency: config.concurrency } })
)).pipe(Layer.provide(MonitorServices.layer))

/** The process's one job queue (pg-boss on the same database): URL enrichment, monitor runs, webhook deliveries. */
// Shaped by the process's role (`SIFT_ROLE`): an `api` process sends jobs but runs none.
const jobs = Roles.layerJobQueue({ queues: [UrlEnrichment.QUEUE, ...MonitorService.QUEUES, Batches.QUEUE, BrandPrefetch.QUEUE, NewsPoller.QUEUE] })

/** Batch credits from the ledger, and the batch workers (drives, lapsed leases, expired results). */
const batches = BatchServices.layerWorker.pipe(Layer.provideMerge(BatchServices.layerCredits))

/** Feeds and the EDGAR origin (`SIFT_EDGAR_URL`, default https://www.sec.gov) for news. */
const newsSource = Layer.unwrapEffect(Effect.map(
  Config.string("SIFT_EDGAR_URL").pipe(Config.withDefault("https://www.sec.gov")),
  (edgarBaseUrl) => News.layer({ edgarBaseUrl })
)).pipe(Layer.orDie)

const services = Layer.mergeAll(monitors, UrlEnrichment.layerIndex(), AgentLimits.layerCleanup, batches, BrandPrefetch.layer, NewsPoller.layer).pipe(
  Layer.provideMerge(ConsoleSession.layer),
  Layer.provideMerge(Layer.mergeAll(RequestLog.RequestLog.Default, Auth.layer, Mailer.layerConfig(), Naics.layerCompanies, BlobStore.layerSql,
    PageIndex.layer(), Layer.orDie(SearchProvider.layerConfig), Layer.orDie(LanguageModel.layerConfig), newsSource, People.layer)),
  Layer.provideMerge(jobs)
)

// No span per request: with no tracer configured a span is pure cost, a large share of a cache hit (bench/http);
// the request id, the request log and the access log already identify every request.
// `/v1/` is the API's alone (the MCP and agent routes live elsewhere), so API requests skip their dispatch.
const mounted = Mcp.mount(Agents.mount(httpApp))
const routed = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => request.url.startsWith("/v1/") ? dispatch(request) : mounted)
const serveApi = HttpMiddleware.withTracerDisabledWhen(HttpServer.serve(routed), () => true)

/** The API alone on the caller's `HttpServer` (no admin channel, no bootstrap): for embedding and tests. */
export const layerApi = serveApi.pipe(Layer.provide(services))

/** The Sift API application. */
export const application: Server.Application<unknown> = {
  layer: Layer.mergeAll(
    serveApi,
    Admin.layerServer.pipe(Layer.provide(directOperations)),
    bootstrap
  ).pipe(Layer.provide(services)) as Layer.Layer<never, unknown, Server.Platform>,
  migrations
}
