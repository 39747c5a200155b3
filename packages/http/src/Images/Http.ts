/**
 * `GET /web/scrape/images` (decisions §3) and the image enrichment of `POST /web/scrape` (`imageParams`). The page is
 * loaded and its images gathered by the scrape pipeline; dedupe and enrichment then download the images within what
 * is left of the request's deadline. Hosted copies (`file`) go to the `BlobStore`, served by `HostedFiles`.
 *
 * @since 0.1.0
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { type Cache, Deadline, Errors, type Fetcher, ImageEnrich, Images, Pipeline, type ScrapeRequest, type ScrapeResult } from "@sift/core"
import type { BlobStore } from "@sift/store"
import { Clock, Effect, Schema } from "effect"
import * as QueryParams from "../QueryParams.js"
import type { Handler } from "../RequestPipeline.js"
import * as ScrapeQuery from "../Scrape/ScrapeQuery.js"
import * as HostedFiles from "./HostedFiles.js"

/** Credits of an images request with any enrichment (actions included), as the official client documents. */
export const ENRICHED_CREDITS = 5

/** Query names of the enrichments: the official client's and the POST body's. */
const enrichmentNames: Record<string, ImageEnrich.Enrichment> = {
  resolution: "dimensions",
  dimensions: "dimensions",
  classification: "classification",
  hostedUrl: "file",
  file: "file"
}

const truthy = (value: unknown, field: string): boolean => {
  if (value === true || value === "true" || value === "1") return true
  if (value === false || value === "false" || value === "0") return false
  throw new Errors.InvalidRequest({ reason: "Invalid", field, detail: "must be true or false" })
}

/** `enrichment[resolution]=true&enrichment[classification]=true&enrichment[hostedUrl]=true`, or `enrichment=dimensions,file`. */
const readEnrichment = (value: QueryParams.QueryValue, field: string): Array<ImageEnrich.Enrichment> | undefined => {
  if (typeof value === "string" && !value.trim().startsWith("{")) {
    return [...new Set(value.split(",").map((name) => name.trim()).filter((name) => name !== "").map((name) => {
      const known = enrichmentNames[name]
      if (known === undefined) {
        throw new Errors.InvalidRequest({ reason: "Invalid", field, detail: `unknown enrichment "${name}" (resolution, classification, hostedUrl)` })
      }
      return known
    }))]
  }
  const object = QueryParams.readObject(value, field) ?? {}
  const wanted = new Set<ImageEnrich.Enrichment>()
  for (const [name, flag] of Object.entries(object)) {
    if (name === "maxTimePerMs") {
      if (!/^\d+$/.test(String(flag)) || Number(flag) > 60_000) {
        throw new Errors.InvalidRequest({ reason: "Invalid", field: `${field}[maxTimePerMs]`, detail: "must be an integer from 0 to 60000" })
      }
      continue
    }
    const known = enrichmentNames[name]
    if (known === undefined) {
      throw new Errors.InvalidRequest({ reason: "Invalid", field: `${field}[${name}]`, detail: "unknown enrichment (resolution, classification, hostedUrl)" })
    }
    if (truthy(flag, `${field}[${name}]`)) wanted.add(known)
  }
  return [...wanted]
}

/** The query. */
export const Query = ScrapeQuery.struct({
  enrichment: QueryParams.optional(
    QueryParams.reading(Schema.Array(Schema.Literal("dimensions", "classification", "file")), readEnrichment).pipe(ScrapeQuery.lands("imageParams.enrich"))
      .annotations({
        description: "enrichment[resolution|classification|hostedUrl]=true (enrichment[maxTimePerMs] up to 60000), or a comma-separated list",
        jsonSchema: { type: "object", additionalProperties: { type: "boolean" } }
      })
  ),
  dedupe: QueryParams.optional(
    QueryParams.boolean.pipe(ScrapeQuery.lands("imageParams.dedupe", { to: (dedupe: boolean) => dedupe ? "visual" : "none" })).annotations({
      description: "Keep the largest of visually identical images (perceptual hash)"
    })
  ),
  ...ScrapeQuery.fields
}).annotations({ description: "List a page's images, optionally deduplicated and enriched (1 credit; 2 with actions; 5 with enrichment)" })

const decode = ScrapeQuery.decoder("images", Query, (query) =>
  ScrapeQuery.toPost(Query, query, { formats: { images: true }, sharedParams: {}, imageParams: {} }))

/** The images of a result enriched within the time left; fails at the deadline unless the request returns partial. */
export const enrichResult = (
  request: ScrapeRequest.ScrapeRequest,
  result: ScrapeResult.ScrapeResult,
  startedAt: number
): Effect.Effect<{ readonly result: ScrapeResult.ScrapeResult; readonly complete: boolean }, Errors.RequestTimeout, Fetcher.Fetcher | BlobStore.BlobStore | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    const params = request.imageParams
    const gathered = result.images.data
    if (!result.images.requested || gathered === null || params === undefined || !ImageEnrich.needsDownload(params)) {
      return { result, complete: true }
    }
    const now = yield* Clock.currentTimeMillis
    const partial = request.timeoutBehavior === "return-partial"
    const left = request.timeoutMs - (now - startedAt) - (partial ? Deadline.reserveFor(request.timeoutMs) : 0)
    // ZDR: no uploads; hosted URLs are omitted (as the official client documents).
    const wantsFile = params.enrich?.includes("file") === true && request.zdr !== "enabled"
    const origin = wantsFile ? yield* HostedFiles.publicOrigin : ""
    const enriched = yield* ImageEnrich.enrich(gathered, {
      dedupe: params.dedupe,
      enrich: params.enrich?.filter((name) => name !== "file" || wantsFile),
      hostFile: wantsFile ? HostedFiles.host(origin) : undefined,
      headers: request.sharedParams?.headers,
      country: request.sharedParams?.country?.toLowerCase()
    }, Math.max(0, left))
    if (!enriched.complete && !partial) {
      return yield* new Errors.RequestTimeout({ milliseconds: request.timeoutMs, detail: "while processing the page's images" })
    }
    return {
      result: { ...result, images: { requested: true, data: enriched.images }, ...(enriched.complete ? {} : { isPartial: true as const }) },
      complete: enriched.complete
    }
  })

/** One image on the wire: the members of decisions §2 plus those the official client reads (`src`, `type`, `enrichment`). */
const wireImage = (elements: ReadonlyMap<string, Images.ImageElement>) => (image: ScrapeResult.ImageItem) => {
  const enrichment = ScrapeQuery.defined({ width: image.width, height: image.height, type: image.classification, url: image.fileUrl })
  return {
    ...image,
    src: image.url,
    type: image.url.startsWith("data:") ? "base64" : "url",
    element: elements.get(image.url) ?? "img",
    ...(image.classification !== undefined || image.fileUrl !== undefined || image.width !== undefined ? { enrichment } : {})
  }
}

interface ImagesInput {
  readonly request: ScrapeRequest.ScrapeRequest
  readonly enriched: boolean
}

/** `GET /web/scrape/images`: 1 credit, 2 with actions, 5 with any enrichment; partial results cost 1. */
export const images: Handler<
  ImagesInput,
  Errors.InvalidRequest,
  never,
  Errors.ScrapeError,
  Fetcher.Fetcher | Cache.Cache | BlobStore.BlobStore | HttpServerRequest.HttpServerRequest
> = {
  validate: (caller) =>
    Effect.map(decode(caller), ({ request }) => {
      const enriched = (request.imageParams?.enrich?.length ?? 0) > 0
      return ScrapeQuery.planFor(request, enriched ? ENRICHED_CREDITS : ScrapeQuery.hasActions(request) ? 2 : 1, { request, enriched })
    }),
  run: (_caller, { enriched, request }) =>
    Effect.gen(function*() {
      const startedAt = yield* Clock.currentTimeMillis
      const { render: rendered, result: loaded } = yield* Pipeline.runMemoized(request)
      const elements = new Map((loaded.images.data ?? []).map((image) => [image.url, Images.elementOf(image) ?? "img"] as const))
      const { result } = yield* enrichResult(request, loaded, startedAt)
      const partial = result.isPartial === true
      return {
        body: {
          success: true,
          url: result.url,
          images: (result.images.data ?? []).map(wireImage(elements)),
          finalDOMState: loaded.isPartial === true || rendered.finalDOMState === "still-loading" ? "still-loading" : "loaded",
          ...(partial ? { partial: true } : {}),
          ...(rendered.actionsApplied === undefined ? {} : { actionsApplied: rendered.actionsApplied, actionsHtmlStale: rendered.actionsHtmlStale ?? false }),
          cache_metadata: result.cache_metadata
        },
        credits: partial ? 1 : enriched ? ENRICHED_CREDITS : ScrapeQuery.hasActions(request) ? 2 : 1
      }
    })
}
