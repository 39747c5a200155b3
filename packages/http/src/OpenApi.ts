/**
 * The OpenAPI 3.1 document served at `/v1/openapi.json`, generated from the same Schemas that validate requests and
 * shape results (`JSONSchema.make`), so the document cannot drift from the code.
 *
 * @since 0.1.0
 */
import { Convert, ParseDocument, ScrapeRequest, ScrapeResult } from "@sift/core"
import { MonitorSpec } from "@sift/monitors"
import { JSONSchema, Schema } from "effect"

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

const queryParam = (name: string, type: string, description: string, required = false) => ({
  name,
  in: "query",
  required,
  description,
  schema: { type }
})

const pathParam = (name: string) => ({ name, in: "path", required: true, schema: { type: "string" } })
const listQuery = [queryParam("limit", "integer", "1 to 100, default 25"), queryParam("cursor", "string", "next_cursor of the previous page")]
const free = (summary: string, parameters: ReadonlyArray<unknown> = [], body?: unknown) => ({
  summary,
  parameters,
  ...(body === undefined ? {} : { requestBody: { required: true, content: { "application/json": { schema: body } } } }),
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

const scrapeQuery = [
  queryParam("url", "string", "The page to scrape (http or https)", true),
  queryParam("useMainContentOnly", "boolean", "Keep only the main content"),
  queryParam("includeSelectors", "string", "CSS selectors to keep (comma-joined list, repeated, or JSON array)"),
  queryParam("excludeSelectors", "string", "CSS selectors to drop; exclusion wins"),
  queryParam("maxAgeMs", "integer", "0 to 2592000000; default 86400000; 0 scrapes fresh"),
  queryParam("waitForMs", "integer", "0 to 30000"),
  queryParam("timeoutMS", "integer", "1 to 300000; must be at least waitForMs + 10000"),
  queryParam("headers", "object", "Headers forwarded to the target, headers[Name]=value; bypasses the cache"),
  queryParam("country", "string", "ISO 3166-1 alpha-2 code of the exit country"),
  queryParam("zdr", "string", "enabled or disabled"),
  queryParam("tags", "string", "Comma-separated, up to 20 of 1 to 50 characters")
]

const screenshotQuery = [
  queryParam("fullScreenshot", "boolean", "Capture the full page (alias fullPage)"),
  queryParam("colorScheme", "string", "light or dark"),
  queryParam("clearPopups", "boolean", "Dismiss popups and consent banners before capture"),
  queryParam("handleCookiePopup", "boolean", "Dismiss the consent banner before capture"),
  queryParam("viewport", "object", "viewport[width], viewport[height]; default 1920x1080"),
  queryParam("scrollOffset", "integer", "0 to 100000: the viewport-high slice of the full page starting here"),
  queryParam("waitForMs", "integer", "0 to 30000"),
  queryParam("maxAgeMs", "integer", "0 to 2592000000; default 86400000: the oldest cached screenshot accepted; 0 renders fresh and replaces it"),
  queryParam("timeoutOpts", "object", "{ milliseconds, behavior: fail | return-partial }"),
  queryParam("zdr", "string", "enabled or disabled"),
  queryParam("tags", "string", "Comma-separated, up to 20 of 1 to 50 characters")
]

const mapQuery = [
  queryParam("domain", "string", "The site (min 3 characters)", true),
  queryParam("includeSubdomains", "boolean", "Also URLs on subdomains (default false)"),
  queryParam("maxLinks", "integer", "1 to 100000, default 10000"),
  queryParam("urlRegex", "string", "RE2 pattern (max 256); only matching URLs are returned and counted"),
  queryParam("search", "string", "2 to 200 characters: pages about the phrase, most relevant first"),
  queryParam("sitemapUrl", "string", "Read this sitemap instead of discovering"),
  queryParam("headers", "object", "Headers forwarded to the site, headers[Name]=value; bypasses the index"),
  queryParam("timeoutOpts", "object", "{ milliseconds, behavior: fail | return-partial }"),
  queryParam("tags", "string", "Comma-separated, up to 20 of 1 to 50 characters")
]

const parseQuery = [
  queryParam("filename", "string", "The upload's file name; its extension helps detection (the file's magic bytes win)"),
  queryParam("extension", "string", "A file extension such as pdf or docx; wins over filename"),
  queryParam("pdfStart", "integer", "First PDF page to convert, 1-based (alias pdf[start])"),
  queryParam("pdfEnd", "integer", "Last PDF page to convert, inclusive; not before pdfStart (alias pdf[end])"),
  {
    name: "pdf",
    in: "query",
    required: false,
    description: "pdf[start], pdf[end]: the same page range in deep-object form",
    style: "deepObject",
    explode: true,
    schema: { type: "object", properties: { start: { type: "integer", minimum: 1 }, end: { type: "integer", minimum: 1 } } }
  },
  queryParam("ocr", "boolean", "OCR scanned PDF pages (default false; images are always read by OCR); holds 1 credit per page of the range, 50 without one"),
  queryParam("includeImages", "boolean", "Include images in the Markdown (default false)"),
  queryParam("includeLinks", "boolean", "Keep link targets (default true)"),
  queryParam("useMainContentOnly", "boolean", "Main-content extraction, for HTML uploads (default false)"),
  queryParam("baseUrl", "string", "http(s) URL that relative links of an HTML upload resolve against"),
  queryParam("zdr", "string", "enabled or disabled"),
  queryParam("tags", "string", "Comma-separated, up to 20 of 1 to 50 characters")
]

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
        requestBody: { required: true, content: { "application/json": { schema: JSONSchema.make(Schema.encodedSchema(ScrapeRequest.ScrapeRequest)) } } },
        responses: { "200": { description: "The scrape result", content: { "application/json": { schema: JSONSchema.make(ScrapeResult.ScrapeResult) } } }, ...errors }
      }
    },
    "/web/scrape/markdown": {
      get: {
        summary: "Scrape one URL to GitHub-flavoured Markdown (1 credit; 2 with actions)",
        parameters: [
          ...scrapeQuery,
          queryParam("includeLinks", "boolean", "Keep link targets (default true)"),
          queryParam("includeImages", "boolean", "Include images (default false)"),
          queryParam("shortenBase64Images", "boolean", "Replace base64 images by placeholders (default true)"),
          queryParam("includeHTML", "boolean", "Also return the HTML the Markdown came from")
        ],
        responses: { "200": { description: "Markdown, metadata and cache outcome" }, ...errors }
      }
    },
    "/web/scrape/html": { get: { summary: "Scrape one URL to cleaned HTML (1 credit)", parameters: scrapeQuery, responses: { "200": { description: "HTML" }, ...errors } } },
    "/web/scrape/bytes": {
      get: {
        summary: "Fetch the original bytes of a URL (1 credit)",
        parameters: [queryParam("url", "string", "The URL", true), queryParam("headers", "object", "Forwarded headers"), queryParam("country", "string", "Exit country"), queryParam("timeoutMS", "integer", "1 to 300000")],
        responses: { "200": { description: "Base64 bytes" }, ...errors }
      }
    },
    "/web/scrape/images": {
      get: {
        summary: "List a page's images, optionally deduplicated and enriched (1 credit; 2 with actions; 5 with enrichment)",
        parameters: [
          ...scrapeQuery,
          queryParam("dedupe", "boolean", "Keep the largest of visually identical images (perceptual hash)"),
          queryParam("enrichment", "object", "enrichment[resolution|classification|hostedUrl]=true, or a comma-separated list"),
          queryParam("actions", "string", "JSON array of browser actions (paid plans)"),
          queryParam("timeoutOpts", "object", "{ milliseconds, behavior: fail | return-partial }")
        ],
        responses: { "200": { description: "Images with url, alt, width, height, classification, fileUrl" }, ...errors }
      }
    },
    "/web/scrape/screenshot": {
      get: {
        summary: "Screenshot one URL in Chromium (1 credit)",
        parameters: [queryParam("url", "string", "The page (http or https)", true), ...screenshotQuery],
        responses: { "200": { description: "screenshot (data URL), width, height, url, screenshotType, finalDOMState, cache_metadata (hit for a cached screenshot)" }, ...errors }
      }
    },
    "/web/screenshot": {
      get: {
        summary: "Screenshot a site's home page, one of its pages, or a direct URL (1 credit)",
        parameters: [
          queryParam("domain", "string", "The site (exactly one of domain and directUrl)"),
          queryParam("directUrl", "string", "The exact URL to capture"),
          queryParam("page", "string", "With domain: login, signup, blog, careers, pricing, terms, privacy or contact"),
          ...screenshotQuery
        ],
        responses: { "200": { description: "screenshot (data URL), width, height, url, screenshotType, finalDOMState, cache_metadata (hit for a cached screenshot)" }, "404": { $ref: "#/components/responses/Error" }, ...errors }
      }
    },
    "/files/{id}": {
      get: {
        summary: "A hosted image copy (fileUrl), served for 24 hours without a key",
        security: [],
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "The image bytes" }, "404": { $ref: "#/components/responses/Error" } }
      }
    },
    "/parse": {
      post: {
        summary: "Convert an uploaded file (PDF, Word, Excel, PowerPoint, CSV, HTML, text, images, ...) to Markdown (1 credit, plus 1 per page recovered by OCR)",
        parameters: parseQuery,
        requestBody: {
          required: true,
          description: `The file's raw bytes (not multipart, not JSON-wrapped), 1 byte to ${ParseDocument.MAX_BYTES} (25 MiB). Any Content-Type; a specific one is a type hint and its charset is honoured, application/octet-stream is none.`,
          content: { "*/*": { schema: { type: "string", format: "binary" } } }
        },
        responses: {
          "200": {
            description: "The Markdown and the detected document type",
            headers: { "x-parse-ocr-used": { description: "Whether OCR ran", schema: { type: "string", enum: ["true", "false"] } } },
            content: { "application/json": { schema: JSONSchema.make(ParseResponse) } }
          },
          "413": { $ref: "#/components/responses/Error" },
          "415": { $ref: "#/components/responses/Error" },
          ...errors
        }
      }
    },
    "/web/urls": {
      get: {
        summary: "Map a site's URLs from the index, with title, description, keywords and language once enriched (1 credit; 2 with search)",
        parameters: [...mapQuery, queryParam("zdr", "string", "enabled or disabled; URLs only, nothing stored")],
        responses: { "200": { description: "The mapped URL list (Cache-Control: no-store)" }, ...errors }
      }
    },
    "/web/scrape/sitemap": {
      get: {
        summary: "Crawl a site's sitemaps and return their page URLs (1 credit; 2 with search)",
        parameters: mapQuery,
        responses: { "200": { description: "URLs and sitemap crawl counts" }, ...errors }
      }
    },
    "/web/naics": {
      get: {
        summary: "Classify a company (domain, URL or name) into NAICS 2022 codes (1 credit)",
        parameters: [
          queryParam("input", "string", "Domain, URL or company name (min 4 characters)", true),
          queryParam("minResults", "integer", "1 to 10, default 1"),
          queryParam("maxResults", "integer", "1 to 10, default 5"),
          queryParam("timeoutOpts", "object", "{ milliseconds, behavior: fail | return-partial }"),
          queryParam("zdr", "string", "enabled or disabled"),
          queryParam("tags", "string", "Comma-separated, up to 20 of 1 to 50 characters")
        ],
        responses: { "200": { description: "Ranked codes with confidence" }, "503": { $ref: "#/components/responses/Error" }, ...errors }
      }
    },
    "/logs": {
      get: {
        summary: "List the organization's request logs, newest first (0 credits)",
        parameters: ["from", "to", "path", "key_id", "status_code", "error_code", "errors_only", "tags", "search", "page", "limit", "snapshot"].map((name) =>
          queryParam(name, name === "status_code" || name === "page" || name === "limit" ? "integer" : name === "errors_only" ? "boolean" : "string", name)
        ),
        responses: { "200": { description: "A page of log entries" }, ...errors }
      }
    },
    "/monitors": {
      post: free("Create a monitor; answers it with initial_run_id (0 credits; runs are charged)", [], JSONSchema.make(MonitorSpec.CreateBody)),
      get: free("List monitors, newest first", [
        ...listQuery,
        queryParam("q", "string", "Search text (1 to 200 characters)"),
        queryParam("search_by", "string", "Comma-separated: name, url, instructions, tags"),
        queryParam("search_type", "string", "prefix (default) or exact"),
        queryParam("status", "string", "active, paused or failed"),
        queryParam("target_type", "string", "page, sitemap or extract"),
        queryParam("change_detection_type", "string", "exact or semantic"),
        queryParam("tag", "string", "One tag"),
        queryParam("tags", "string", "Comma-separated; any of")
      ])
    },
    "/monitors/limits": { get: free("Monitors used and allowed on the plan") },
    "/monitors/credit-usage": { get: free("Credits of monitor runs per monitor", [queryParam("since", "string", "ISO 8601"), queryParam("until", "string", "ISO 8601")]) },
    "/monitors/runs": { get: free("Runs of every monitor, newest first", [...listQuery, queryParam("status", "string", "queued, running, completed, failed or skipped")]) },
    "/monitors/changes": {
      get: free("Changes of every monitor, newest first", [
        ...listQuery,
        queryParam("monitor_id", "string", "One monitor"),
        queryParam("since", "string", "ISO 8601"),
        queryParam("until", "string", "ISO 8601"),
        queryParam("tag", "string", "One tag"),
        queryParam("target_type", "string", "page, sitemap or extract"),
        queryParam("change_detection_type", "string", "exact or semantic")
      ])
    },
    "/monitors/changes/{change_id}": { get: free("One change in full", [pathParam("change_id")]) },
    "/monitors/{monitor_id}": {
      get: free("A monitor with its baseline", [pathParam("monitor_id")]),
      patch: free("Update a monitor", [pathParam("monitor_id")], JSONSchema.make(MonitorSpec.UpdateBody)),
      delete: free("Delete a monitor", [pathParam("monitor_id")])
    },
    "/monitors/{monitor_id}/run": { post: free("Queue a run now", [pathParam("monitor_id")]) },
    "/monitors/{monitor_id}/runs": { get: free("Runs of a monitor, newest first", [pathParam("monitor_id"), ...listQuery, queryParam("status", "string", "Run status")]) },
    "/monitors/{monitor_id}/runs/{run_id}": { get: free("One run", [pathParam("monitor_id"), pathParam("run_id")]) },
    "/monitors/{monitor_id}/changes": {
      get: free("Changes of a monitor, newest first", [pathParam("monitor_id"), ...listQuery, queryParam("since", "string", "ISO 8601"), queryParam("until", "string", "ISO 8601"), queryParam("tag", "string", "One tag")])
    },
    "/monitors/{monitor_id}/webhook/rotate-secret": { post: free("Rotate the webhook signing secret", [pathParam("monitor_id")]) },
    "/webhooks/deliveries": { post: free("List webhook deliveries", [], { type: "object", required: ["type"], properties: { type: { enum: ["monitor", "batch"] }, monitor_id: { type: "string" }, run_id: { type: "string" }, status: { type: "string" }, created_after: { type: "string" }, cursor: { type: "string" }, limit: { type: "integer" } } }) },
    "/webhooks/deliveries/{delivery_id}": { get: free("One webhook delivery", [pathParam("delivery_id")]) },
    "/webhooks/deliveries/{delivery_id}/attempts": { get: free("Attempts of a delivery", [pathParam("delivery_id")]) },
    "/webhooks/deliveries/{delivery_id}/retry": {
      post: free("Retry a delivery by hand (Idempotency-Key header; within 7 days)", [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string" } }], { type: "object", properties: { force: { type: "boolean" } } })
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
    }
  },
  components: {
    securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    responses: { Error: { description: "An error", content: { "application/json": { schema: JSONSchema.make(ErrorBody) } } } }
  }
}
