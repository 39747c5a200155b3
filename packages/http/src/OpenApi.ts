/**
 * The OpenAPI 3.1 document served at `/v1/openapi.json`, generated from the same Schemas that validate requests and
 * shape results (`JSONSchema`), so the document cannot drift from the code: each endpoint's query Schema gives
 * its parameters (`queryParameters`) and summary, its body Schema its request body. Routes at the root (MCP, OAuth,
 * agent registration, probes) are documented with their own server `/`.
 *
 * @since 0.1.0
 */
import { Convert, ParseDocument, ScrapeResult } from "@sift/core"
import { BatchSpec } from "@sift/batch"
import { MonitorSpec } from "@sift/monitors"
import { JSONSchema, Option, Schema, SchemaAST } from "effect"
import * as Admin from "./Admin.js"
import * as Agents from "./Agents/Http.js"
import * as BrandRoutes from "./Brand/Http.js"
import * as Images from "./Images/Http.js"
import * as Logs from "./Logs/Http.js"
import * as Monitors from "./Monitors/Http.js"
import * as Naics from "./Naics/Http.js"
import * as NewsRoutes from "./News/Http.js"
import * as PeopleRoutes from "./People/Http.js"
import * as ProductRoutes from "./Products/Http.js"
import * as Sic from "./Sic/Http.js"
import * as Parse from "./Parse/Http.js"
import * as QueryParams from "./QueryParams.js"
import * as Bytes from "./Scrape/Bytes.js"
import * as Html from "./Scrape/Html.js"
import * as Scrape from "./Scrape/Http.js"
import * as BatchRoutes from "./Batch/Http.js"
import * as Crawl from "./Crawl/Http.js"
import * as Answers from "./Answers/Http.js"
import * as Competitors from "./Search/Competitors.js"
import * as Extract from "./Extract/Http.js"
import * as Search from "./Search/Http.js"
import * as Markdown from "./Scrape/Markdown.js"
import * as Screenshot from "./Screenshot/Http.js"
import * as Fonts from "./Styleguide/Fonts.js"
import * as Styleguide from "./Styleguide/Http.js"
import * as Urls from "./Urls/Http.js"

const ErrorBody = Schema.Struct({
  request_id: Schema.UUID,
  error_code: Schema.String,
  message: Schema.String,
  required_permission: Schema.optional(Schema.String),
  key_metadata: Schema.optional(Schema.Struct({ credits_consumed: Schema.Int, credits_remaining: Schema.Int }))
})

/** The body of a successful `POST /parse`. */
const ParseResponse = Schema.Struct({
  success: Schema.Literal(true),
  markdown: Schema.String,
  type: Convert.DocumentType,
  request_id: Schema.UUID,
  key_metadata: Schema.Struct({ credits_consumed: Schema.Int, credits_remaining: Schema.Int })
})

const pathParam = (name: string) => ({ name, in: "path", required: true, schema: { type: "string" } })

// Every named schema of the document (`identifier`s: HttpUrl, Int, ...) once, in components.schemas.
const definitions: Record<string, JSONSchema.JsonSchema7> = {}
const jsonSchema = (schema: Schema.Schema.Any | SchemaAST.AST): Record<string, unknown> => {
  const { $schema: _, ...json } = JSONSchema.fromAST(Schema.isSchema(schema) ? schema.ast : schema, {
    definitions,
    definitionPath: "#/components/schemas/",
    target: "openApi3.1"
  }) as unknown as Record<string, unknown>
  return json
}

/** The JSON Schema of a query member's decoded value (its `jsonSchema` annotation first), without `undefined`. */
const memberSchema = (ast: SchemaAST.AST): Record<string, unknown> => {
  const annotated = SchemaAST.getJSONSchemaAnnotation(ast)
  if (Option.isSome(annotated)) return annotated.value as Record<string, unknown>
  const documented = ast.annotations[QueryParams.DocumentedAs] as Schema.Schema.Any | undefined
  if (documented !== undefined) return jsonSchema(documented)
  let type = SchemaAST.typeAST(ast)
  // A member's own checks (`QueryParams.check`) refine "value or undefined"; their limits are in its description.
  while (SchemaAST.isRefinement(type)) type = type.from
  const defined = SchemaAST.isUnion(type) ? type.types.filter((member) => !SchemaAST.isUndefinedKeyword(member)) : [type]
  return jsonSchema(defined.length === 1 ? defined[0]! : SchemaAST.Union.make(defined))
}

/** An endpoint's query Schema (a `Schema.Struct`) as OpenAPI parameters: required ones first, objects as deep objects. */
export const queryParameters = (query: Schema.Schema.Any) =>
  SchemaAST.getPropertySignatures(query.ast)
    .map((member) => {
      const schema = memberSchema(member.type)
      const description = Option.getOrUndefined(SchemaAST.getDescriptionAnnotation(member.type))
      return {
        name: String(member.name),
        in: "query",
        required: !member.isOptional,
        ...(description === undefined ? {} : { description }),
        ...(schema.type === "object" ? { style: "deepObject", explode: true } : {}),
        schema: JSON.parse(JSON.stringify({ ...schema, description: undefined, title: undefined }))
      }
    })
    .sort((a, b) => Number(b.required) - Number(a.required))

const summaryOf = (schema: Schema.Schema.Any) => Option.getOrElse(SchemaAST.getDescriptionAnnotation(schema.ast), () => "")
const bodyOf = (schema: Schema.Schema.Any) => ({ required: true, content: { "application/json": { schema: jsonSchema(Schema.encodedSchema(schema)) } } })

const free = (summary: string, parameters: ReadonlyArray<unknown> = [], body?: Schema.Schema.Any) => ({
  summary,
  parameters,
  ...(body === undefined ? {} : { requestBody: bodyOf(body) }),
  responses: { "200": { description: "OK" }, "404": { $ref: "#/components/responses/Error" }, "409": { $ref: "#/components/responses/Error" }, ...errors }
})

const errors = {
  "400": { $ref: "#/components/responses/Error" },
  "401": { $ref: "#/components/responses/Error" },
  "403": { $ref: "#/components/responses/Error" },
  "408": { $ref: "#/components/responses/Error" },
  "429": { $ref: "#/components/responses/Error" },
  "500": { $ref: "#/components/responses/Error" }
}

/** A GET whose query is `query`; its summary is the Schema's description unless given. */
const get = (query: Schema.Schema.Any, ok: string, extra: { readonly summary?: string; readonly responses?: Record<string, unknown> } = {}) => ({
  get: {
    summary: extra.summary ?? summaryOf(query),
    parameters: queryParameters(query),
    responses: { "200": { description: ok }, ...extra.responses, ...errors }
  }
})

/** Routes at the root (not under `/v1`): their own server. */
const root = [{ url: "/" }]
const form = (properties: Record<string, unknown>, required: ReadonlyArray<string> = []) => ({
  required: true,
  content: { "application/x-www-form-urlencoded": { schema: { type: "object", properties, required } } }
})
const text = { type: "string" }
const plain = (name: string, description: string, required = false) => ({ name, in: "query", required, description, schema: text })
const page = (summary: string, parameters: ReadonlyArray<unknown> = []) => ({ summary, security: [], parameters, responses: { "200": { description: "An HTML page" } } })
const formPost = (summary: string, fields: Schema.Schema.Any) => ({
  summary,
  security: [],
  requestBody: { required: true, content: { "application/x-www-form-urlencoded": { schema: jsonSchema(Schema.encodedSchema(fields)) } } },
  responses: { "200": { description: "An HTML page" }, "303": { description: "To the next step" }, "400": { description: "The page with the problem" }, "403": { description: "Session expired" } }
})
const oauth = (summary: string, fields: Record<string, unknown>, required: ReadonlyArray<string> = []) => ({
  summary,
  security: [],
  requestBody: form(fields, required),
  responses: { "200": { description: "OK (JSON)" }, "400": { description: "An OAuth error: { error, error_description }" } }
})
const document200 = (summary: string) => ({ summary, security: [], responses: { "200": { description: "A JSON document" } } })

/** The monitor and delivery operations are free (runs are charged). */
const monitorQuery = (schema: Schema.Schema.Any, ...path: ReadonlyArray<string>) => [...path.map(pathParam), ...queryParameters(schema)]

/** The OpenAPI document. */
export const document = {
  openapi: "3.1.0",
  info: { title: "Sift API", version: "1.0.0", description: "Scrape pages into Markdown, HTML, images and fields." },
  servers: [{ url: "/v1" }],
  security: [{ bearer: [] }],
  paths: {
    "/web/scrape": {
      post: {
        summary: "Scrape one URL into any mix of formats (1 credit)",
        requestBody: bodyOf(Scrape.Body),
        responses: { "200": { description: "The scrape result", content: { "application/json": { schema: jsonSchema(ScrapeResult.ScrapeResult) } } }, ...errors }
      }
    },
    "/web/crawl": {
      post: {
        summary: "Crawl a site from a URL to Markdown (maxPages reserved, 1 credit per page read)",
        requestBody: bodyOf(Crawl.Body),
        responses: { "200": { description: "{ results: [{ markdown, metadata }], metadata: { numUrls, numSucceeded, numFailed, numSkipped, maxCrawlDepth }, cache_metadata, partial? }" }, ...errors }
      }
    },
    "/web/search": {
      post: {
        summary: "Search the web (SearXNG at SIFT_SEARXNG_URL) or Sift's own index of this organization's pages; optionally read each result to Markdown (1 credit + 1 per result read). Header X-Sift-Search-Source: index | searxng",
        requestBody: bodyOf(Search.Body),
        responses: { "200": { description: "{ query, results: [{ url, title, description, relevance, markdown: { code, markdown } }], cache_metadata, partial? }" }, "502": { $ref: "#/components/responses/Error" }, "503": { $ref: "#/components/responses/Error" }, ...errors }
      }
    },
    "/web/answers": {
      post: {
        summary: "Research the web and answer in the json_format shape: search (SIFT_SEARXNG_URL), read the top results, the model (SIFT_LLM_URL) answers; sources in first-seen order (fast 10 credits within 30 s, ultra 100 within 50 s). 502 without a model, 503 without an engine, 408 when the model does not answer in time; all uncharged",
        requestBody: bodyOf(Answers.Body),
        responses: { "200": { description: "{ json_content, sources, partial? }" }, "502": { $ref: "#/components/responses/Error" }, "503": { $ref: "#/components/responses/Error" }, ...errors }
      }
    },
    "/web/extract": {
      post: {
        summary: "Crawl a site from url (links the schema and instructions are about first) and fill the JSON Schema: with the model (SIFT_LLM_URL), else from the pages' structured data with null for the rest; factCheck nulls values the pages do not state (10 credits; actions need a paid plan)",
        requestBody: bodyOf(Extract.Body),
        responses: { "200": { description: "{ data, url, urls_analyzed, status, metadata: { numUrls, numSucceeded, numFailed, numSkipped, numBlocked, maxCrawlDepth }, cache_metadata, partial? }" }, ...errors }
      }
    },
    "/news/search": {
      post: {
        summary: "A company's news (entity by name, domain, ticker or ISIN) from its own feeds, its SEC EDGAR filings and the publisher feeds of SIFT_NEWS_FEEDS, with story_id clustering and cursor paging (1 credit per 10 articles, at least 1)",
        requestBody: bodyOf(NewsRoutes.NewsSearchBody),
        responses: { "200": { description: "{ data: [{ id, authors, description, image_url, language, match: { confidence, level }, published_at, source: { direct, domain, name }, story_id, title, type, url }], has_more, meta: { count }, next_cursor }" }, "404": { $ref: "#/components/responses/Error" }, ...errors }
      }
    },
    "/people/enrich": {
      post: {
        summary: "The best person candidate for identity clues, from the company's own team/about pages and personal sites, scored 0-100 (20 credits; not_found free; paid plans; 422 for free or disposable emails)",
        requestBody: bodyOf(PeopleRoutes.PeopleEnrichBody),
        responses: { "200": { description: "{ match: { status: 'candidate', score, person } | { status: 'not_found', score: null, person: null } }" }, "422": { $ref: "#/components/responses/Error" }, ...errors }
      }
    },
    "/web/competitors": get(Competitors.Query, "{ status, domain, target: { companyName, field, fieldDescription, websiteUrl }, competitors: [{ name, domain, url, description, confidence, sourceUrls }] }", {
      summary: "A company's direct competitors: search evidence kept when each candidate's home page is in the target's NAICS industry (10 credits; needs SIFT_SEARXNG_URL)",
      responses: { "502": { $ref: "#/components/responses/Error" }, "503": { $ref: "#/components/responses/Error" } }
    }),
    "/web/scrape/markdown": get(Markdown.Query, "Markdown, metadata and cache outcome"),
    "/web/scrape/html": get(Html.Query, "HTML, and extracted (the extractRules' fields) when extractRules is given"),
    "/web/scrape/bytes": get(Bytes.Query, "Base64 bytes"),
    "/web/scrape/images": get(Images.Query, "Images with url, alt, width, height, classification, fileUrl"),
    "/web/scrape/screenshot": get(
      Screenshot.ScrapeScreenshotQuery,
      "code: 200, screenshot (hosted PNG URL; a data URL with zdr), width, height, url, screenshotType, finalDOMState, cache_metadata (hit for a cached screenshot)"
    ),
    "/web/screenshot": get(
      Screenshot.ScreenshotQuery,
      "code: 200, screenshot (hosted PNG URL; a data URL with zdr), width, height, url, screenshotType, finalDOMState, cache_metadata (hit for a cached screenshot)",
      { responses: { "404": { $ref: "#/components/responses/Error" } } }
    ),
    "/web/styleguide": get(
      Styleguide.Query,
      "status, code, domain, styleguide { colors, mode, typography, elementSpacing, shadows, components { button { primary, secondary, link }, card }, fontLinks }, finalDOMState, cache_metadata"
    ),
    "/web/fonts": get(
      Fonts.Query,
      "status, code, domain, fonts [{ font, fallbacks, num_elements, num_words, percent_elements, percent_words, uses }], fontLinks (when any), finalDOMState, cache_metadata"
    ),
    "/files/{id}": {
      get: {
        summary: "A hosted image copy (fileUrl), served for 24 hours without a key",
        security: [],
        parameters: [pathParam("id")],
        responses: { "200": { description: "The image bytes" }, "404": { $ref: "#/components/responses/Error" } }
      }
    },
    "/parse": {
      post: {
        summary: summaryOf(Parse.Query),
        parameters: queryParameters(Parse.Query),
        requestBody: {
          required: true,
          description: `The file's raw bytes (not multipart, not JSON-wrapped), 1 byte to ${ParseDocument.MAX_BYTES} (25 MiB). Any Content-Type; a specific one is a type hint and its charset is honoured, application/octet-stream is none.`,
          content: { "*/*": { schema: { type: "string", format: "binary" } } }
        },
        responses: {
          "200": {
            description: "The Markdown and the detected document type",
            headers: { "x-parse-ocr-used": { description: "Whether OCR ran", schema: { type: "string", enum: ["true", "false"] } } },
            content: { "application/json": { schema: jsonSchema(ParseResponse) } }
          },
          "413": { $ref: "#/components/responses/Error" },
          "415": { $ref: "#/components/responses/Error" },
          ...errors
        }
      }
    },
    "/web/urls": get(Urls.Query, "The mapped URL list (Cache-Control: no-store)", {
      summary: "Map a site's URLs from the index, with title, description, keywords and language once enriched (1 credit; 2 with search)"
    }),
    "/web/scrape/sitemap": get(Urls.Query, "URLs and sitemap crawl counts", { summary: "Crawl a site's sitemaps and return their page URLs (1 credit; 2 with search)" }),
    "/web/naics": get(Naics.Query, "Ranked codes with confidence", {
      summary: "Classify a company (domain, URL or name) into NAICS 2022 codes (1 credit)",
      responses: { "503": { $ref: "#/components/responses/Error" } }
    }),
    "/web/sic": get(Sic.Query, "{ status, domain, type: 'sic', classification, codes: [{ code, name, confidence, majorGroup?, majorGroupName?, office? }], partial? }", {
      summary: "Classify a company (domain, URL or name) into SIC codes: the 1987 manual (original_sic) or the SEC's list (latest_sec) (1 credit)",
      responses: { "503": { $ref: "#/components/responses/Error" } }
    }),
    "/brand/ai/product": {
      post: {
        summary: "Whether a URL is a product detail page, and its product from structured data, microdata, OpenGraph and shop JSON (5 credits; a bot wall is 400 WEBSITE_ACCESS_ERROR)",
        requestBody: bodyOf(ProductRoutes.ProductBody),
        responses: { "200": { description: "{ is_product_page, platform, product: { name, description, price, regular_price, currency, availability, variants, images, ... } | null, cache_metadata }" }, ...errors }
      }
    },
    "/brand/ai/products": {
      post: {
        summary: "A shop's products from Shopify products.json, the WooCommerce Store API, lists, links and the sitemap (10 credits)",
        requestBody: bodyOf(ProductRoutes.ProductsBody),
        responses: { "200": { description: "{ products: [Product], partial?, cache_metadata }" }, ...errors }
      }
    },
    "/brand/retrieve": {
      post: {
        summary: "Retrieve a brand (logos, colors, backdrops, socials, links, contacts, address, industries, stock) by domain, direct URL, email, name, ticker or transaction (10 credits; a kept brand younger than maxAgeMs answers as a hit)",
        requestBody: bodyOf(BrandRoutes.RetrieveBody),
        responses: {
          "200": { description: "{ status: 'ok', code: 200, brand, cache_metadata, partial? }" },
          "404": { $ref: "#/components/responses/Error" },
          "422": { $ref: "#/components/responses/Error" },
          "503": { $ref: "#/components/responses/Error" },
          ...errors
        }
      }
    },
    "/brand/retrieve-simplified": get(BrandRoutes.SimplifiedQuery, "{ status, code, brand: { domain, title, colors, logos, backdrops }, cache_metadata }", {
      summary: "A brand's domain, title, colors, logos and backdrops (5 credits)",
      responses: { "422": { $ref: "#/components/responses/Error" } }
    }),
    "/brand/search": get(BrandRoutes.SearchQuery, "{ results: [{ domain, name, logo }] } (up to 10: name matches, then domain matches, most retrieved first)", {
      summary: "Search the brands Sift has retrieved and the sites it has mapped, by name or domain (1 credit)"
    }),
    "/utility/prefetch": {
      post: {
        summary: "Queue a brand retrieval as a durable job so a later retrieve is a cache hit (0 credits, outside rate limits)",
        requestBody: bodyOf(BrandRoutes.PrefetchBody),
        responses: { "200": { description: "{ status: 'ok', type, domain, message }" }, "422": { $ref: "#/components/responses/Error" }, ...errors }
      }
    },
    "/assets/{name}": {
      get: {
        summary: "A brand logo or backdrop by content hash ({sha256}.{ext}), served without a key with an immutable year-long cache",
        security: [],
        parameters: [pathParam("name")],
        responses: { "200": { description: "The image bytes" }, "404": { $ref: "#/components/responses/Error" } }
      }
    },
    "/logs": get(Logs.Query, "A page of log entries (X-Service-Logs-Snapshot header)"),
    "/batch/submit": {
      post: {
        ...free("Submit a batch: up to 25,000 URLs or a site crawl, run as durable jobs (1 credit reserved per page; the unspent remainder refunded at settlement)", [
          { name: "Idempotency-Key", in: "header", required: false, description: "The same key and body within 24 hours answer the original batch; another body 409 IDEMPOTENCY_KEY_CONFLICT", schema: text }
        ], BatchSpec.SubmitBody)
      }
    },
    "/batch/list": { get: free("List batches, newest first (0 credits)", queryParameters(BatchRoutes.ListQuery)) },
    "/batch/{batch_id}": {
      get: free("A batch: status, progress, credits, page errors, and its result files once final (0 credits)", [pathParam("batch_id")]),
      delete: free("Delete a final batch, its records and files; an active one answers 409 BATCH_NOT_COMPLETED (0 credits)", [pathParam("batch_id")])
    },
    "/batch/{batch_id}/results": {
      get: free("A page of a final batch's records (409 BATCH_NOT_COMPLETED before; 404 once expired, 7 days after settlement)", monitorQuery(BatchRoutes.ResultsQuery, "batch_id"))
    },
    "/batch/{batch_id}/cancel": { post: free("Stop starting new pages; in-flight pages finish and the rest is refunded (409 BATCH_NOT_CANCELLABLE when final)", [pathParam("batch_id")]) },
    "/monitors": {
      post: free("Create a monitor; answers it with initial_run_id (0 credits; runs are charged)", [], MonitorSpec.CreateBody),
      get: free("List monitors, newest first", queryParameters(Monitors.ListQuery))
    },
    "/monitors/limits": { get: free("Monitors used and allowed on the plan") },
    "/monitors/credit-usage": { get: free("Credits of monitor runs per monitor", queryParameters(Monitors.CreditUsageQuery)) },
    "/monitors/runs": { get: free("Runs of every monitor, newest first", queryParameters(Monitors.RunsQuery)) },
    "/monitors/changes": { get: free("Changes of every monitor, newest first", queryParameters(Monitors.ChangesQuery)) },
    "/monitors/changes/{change_id}": { get: free("One change in full", [pathParam("change_id")]) },
    "/monitors/{monitor_id}": {
      get: free("A monitor with its baseline", [pathParam("monitor_id")]),
      patch: free("Update a monitor", [pathParam("monitor_id")], MonitorSpec.UpdateBody),
      delete: free("Delete a monitor", [pathParam("monitor_id")])
    },
    "/monitors/{monitor_id}/run": { post: free("Queue a run now", [pathParam("monitor_id")]) },
    "/monitors/{monitor_id}/runs": { get: free("Runs of a monitor, newest first", monitorQuery(Monitors.RunsQuery, "monitor_id")) },
    "/monitors/{monitor_id}/runs/{run_id}": { get: free("One run", [pathParam("monitor_id"), pathParam("run_id")]) },
    "/monitors/{monitor_id}/changes": { get: free("Changes of a monitor, newest first", monitorQuery(Monitors.MonitorChangesQuery, "monitor_id")) },
    "/monitors/{monitor_id}/webhook/rotate-secret": { post: free("Rotate the webhook signing secret", [pathParam("monitor_id")]) },
    "/webhooks/deliveries": { post: free("List webhook deliveries", [], Monitors.DeliveriesBody) },
    "/webhooks/deliveries/{delivery_id}": { get: free("One webhook delivery", [pathParam("delivery_id")]) },
    "/webhooks/deliveries/{delivery_id}/attempts": { get: free("Attempts of a delivery", [pathParam("delivery_id")]) },
    "/webhooks/deliveries/{delivery_id}/retry": {
      post: free(
        "Retry a delivery by hand (Idempotency-Key header; within 7 days)",
        [pathParam("delivery_id"), { name: "Idempotency-Key", in: "header", required: false, description: "1 to 255 characters", schema: text }],
        Monitors.RetryBody
      )
    },
    "/openapi.json": {
      get: { summary: "This document (no key needed)", security: [], responses: { "200": { description: "The OpenAPI 3.1 document" } } }
    },
    "/logs/{request_id}": {
      get: {
        summary: "One request log entry with its input and response",
        parameters: [{ name: "request_id", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
        responses: { "200": { description: "The entry" }, "404": { $ref: "#/components/responses/Error" }, ...errors }
      }
    },
    // ---- at the root ----
    "/health": { servers: root, get: document200("Liveness: 200 { status: ok } once the port is open (also HEAD)") },
    "/ready": {
      servers: root,
      get: { summary: "Readiness, part by part (also HEAD)", security: [], responses: { "200": { description: "ready" }, "503": { description: "unavailable, with the parts not ready" } } }
    },
    "/mcp": {
      servers: root,
      post: {
        summary: "The MCP tool server (Streamable HTTP, stateless, JSON responses); each tool call is the API request it names",
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", description: "A JSON-RPC 2.0 message" } } } },
        responses: { "200": { description: "The JSON-RPC answer" }, "401": { description: "No or a bad token (WWW-Authenticate names the resource metadata)" }, "413": { description: "Body over 2 MiB" } }
      }
    },
    "/.well-known/oauth-protected-resource": { servers: root, get: document200("Protected-resource metadata of the API (RFC 9728)") },
    "/.well-known/oauth-protected-resource/mcp": { servers: root, get: document200("Protected-resource metadata of the MCP server (RFC 9728)") },
    "/.well-known/oauth-authorization-server": { servers: root, get: document200("Authorization server metadata (RFC 8414)") },
    "/.well-known/jwks.json": { servers: root, get: document200("The keys agent assertions are checked with (JWKS)") },
    "/oauth2/register": {
      servers: root,
      post: {
        summary: "Dynamic client registration (RFC 7591, public clients)",
        security: [],
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", properties: { redirect_uris: { type: "array", items: text }, client_name: text } } } } },
        responses: { "201": { description: "The registered client" }, "400": { description: "An OAuth error" }, "429": { description: "Too many registrations" } }
      }
    },
    "/oauth2/authorize": {
      servers: root,
      get: page("The sign-in and consent page of the authorization code grant (PKCE S256)", [
        plain("response_type", "code", true),
        plain("client_id", "The registered client", true),
        plain("redirect_uri", "One of the client's redirect URIs", true),
        plain("code_challenge", "PKCE S256 challenge", true),
        plain("code_challenge_method", "S256", true),
        plain("scope", "api.read and/or api.write"),
        plain("state", "Returned unchanged"),
        plain("resource", "The resource the token is for")
      ]),
      post: {
        ...formPost("The person's decision (sign in, allow or deny): redirects to the client with a code", Schema.Struct({})),
        requestBody: form({ decision: text, email: text, password: text, client_id: text, redirect_uri: text, scope: text, state: text, code_challenge: text })
      }
    },
    "/oauth2/token": {
      servers: root,
      post: oauth("Tokens: authorization_code, refresh_token, the agent claim grants and jwt-bearer", {
        grant_type: text,
        code: text,
        code_verifier: text,
        redirect_uri: text,
        client_id: text,
        refresh_token: text,
        claim_token: text,
        assertion: text,
        resource: text
      }, ["grant_type"])
    },
    "/oauth2/revoke": {
      servers: root,
      post: { ...oauth("Revoke an agent's key (RFC 7009)", {}), requestBody: { required: true, content: { "application/x-www-form-urlencoded": { schema: jsonSchema(Agents.RevokeForm) } } } }
    },
    "/agent/identity": {
      servers: root,
      post: {
        summary: "Register an agent: answers a user code and the claim page (verification_uri)",
        security: [],
        requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
        responses: { "200": { description: "The pending registration" }, "400": { description: "An OAuth error" }, "429": { description: "Too many registrations" } }
      }
    },
    "/agent/claim": { servers: root, get: page("The claim page: sign up or sign in, then enter the agent's code", [plain("email", "Prefilled email"), plain("code", "Prefilled code")]) },
    "/agent/claim/signup": { servers: root, post: formPost("Create an account", Agents.CredentialsForm) },
    "/agent/claim/signin": { servers: root, post: formPost("Sign in", Agents.CredentialsForm) },
    "/agent/claim/code": { servers: root, post: formPost("Enter the agent's code", Agents.CodeForm) },
    "/agent/claim/confirm": { servers: root, post: formPost("Confirm the key's name: the agent gets its key", Agents.ConfirmForm) },
    "/agent/verify-email": { servers: root, get: page("Verify an email address from its link", [plain("token", "The link's token", true)]) },
    "/_admin/{operation}": {
      servers: [{ url: "http://127.0.0.1:{port}", description: "The admin channel: loopback only, its port and token in <SIFT_DATA_DIR>/admin.json", variables: { port: { default: "0" } } }],
      post: {
        summary: "An operation behind sift keys and sift orgs (bearer: the channel's token, not an API key)",
        parameters: [{ name: "operation", in: "path", required: true, schema: { type: "string", enum: [...Admin.operationNames] } }],
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", description: "The operation's arguments (updateOrg: UpdateOrgInput)" } } } },
        responses: { "200": { description: "The operation's result" }, "400": { description: "{ error_code, message }" }, "401": { description: "Wrong token" } }
      }
    }
  },
  components: {
    securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    schemas: definitions,
    responses: { Error: { description: "An error", content: { "application/json": { schema: jsonSchema(ErrorBody) } } } }
  }
}
