/**
 * The MCP tools: each one is an API operation. A tool call becomes the internal HTTP request of that operation (method,
 * `/v1` path, query or JSON body), so authentication, permission, rate limit, validation, credits and the request log
 * are the API's own (one code path). Input schemas are effect Schemas, published as JSON Schema.
 *
 * @since 0.1.0
 */
import { BatchSpec } from "@sift/batch"
import { ScrapeRequest } from "@sift/core"
import { MonitorSpec } from "@sift/monitors"
import { JSONSchema, Schema } from "effect"
import * as Crawl from "../Crawl/Http.js"
import * as NewsRoutes from "../News/Http.js"
import * as PeopleRoutes from "../People/Http.js"
import * as Answers from "../Answers/Http.js"
import * as Extract from "../Extract/Http.js"
import * as Search from "../Search/Http.js"

/** An OAuth scope of the tool server (decisions §10): read-only tokens call read tools only. */
export type Scope = "api.read" | "api.write"

/** The API request a tool call stands for. */
export interface InternalRequest {
  readonly method: "GET" | "POST"
  /** The path under the API, starting `/v1/`. */
  readonly path: string
  readonly query?: Readonly<Record<string, unknown>>
  readonly body?: unknown
  /** Request headers the operation reads (`Idempotency-Key`). */
  readonly headers?: Readonly<Record<string, string>>
}

/** The API's answer to an internal request. */
export interface InternalResponse {
  readonly status: number
  readonly body: unknown
}

/** Sends an internal request through the API (in process for `/mcp`, over HTTP for `sift mcp`). */
export type Dispatch = (request: InternalRequest) => Promise<InternalResponse>

/** One tool: its name, what it does, its input, the scope it needs and the API request it becomes. */
export interface Tool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly scope: Scope
  readonly input: Schema.Schema<any, any>
  readonly request: (args: Record<string, any>) => InternalRequest
}

const Url = Schema.String.annotations({ description: "An http:// or https:// URL" })
const Int = (description: string) => Schema.optional(Schema.Int.annotations({ description }))
const Flag = (description: string) => Schema.optional(Schema.Boolean.annotations({ description }))
const Text = (description: string) => Schema.optional(Schema.String.annotations({ description }))
const TagList = Schema.optional(ScrapeRequest.Tags.annotations({ description: "Tags recorded in the request log" }))

const ProductsInput = Schema.Struct({
  url: Text("A page to read as one product (POST /v1/brand/ai/product, 5 credits)"),
  domain: Text("A shop's domain whose products to list (POST /v1/brand/ai/products, 10 credits)"),
  directUrl: Text("A shop page to start listing products from instead of the domain's home page"),
  maxProducts: Int("Products listed at most, 1 to 100 (default 12)"),
  maxAgeMs: Int("Accept cached pages at most this old (default 7 days; 0 always fetches)"),
  tags: TagList
})

/** The body of the products operation a `products` call stands for: `url` reads one page, else a shop's list. */
const productsRequest = (args: Record<string, any>): InternalRequest => {
  const { directUrl, domain, maxAgeMs, maxProducts, tags, url } = args
  const common = { ...(maxAgeMs === undefined ? {} : { maxAgeMs }), ...(tags === undefined ? {} : { tags }) }
  if (url !== undefined) return { method: "POST", path: "/v1/brand/ai/product", body: { url, ...common } }
  return {
    method: "POST",
    path: "/v1/brand/ai/products",
    body: { ...(domain === undefined ? {} : { domain }), ...(directUrl === undefined ? {} : { directUrl }), ...(maxProducts === undefined ? {} : { maxProducts }), ...common }
  }
}

const ScrapeMarkdownInput = Schema.Struct({
  url: Url,
  includeLinks: Flag("Keep hyperlinks in the Markdown (default true)"),
  useMainContentOnly: Flag("Only the main content: no navigation, headers or footers"),
  waitForMs: Int("Milliseconds to wait after load before capture"),
  maxAgeMs: Int("Accept a cached copy at most this old (0 always fetches)"),
  timeoutMS: Int("Total deadline in milliseconds"),
  tags: TagList
})

const MapInput = Schema.Struct({
  domain: Schema.String.annotations({ description: "The site's domain, e.g. example.com" }),
  includeSubdomains: Flag("Include indexed URLs on subdomains (default false)"),
  maxLinks: Int("Most URLs to return, 1 to 100000 (default 10000)"),
  urlRegex: Text("RE2 pattern: only matching URLs are returned"),
  sitemapUrl: Text("Crawl this sitemap instead of discovering one"),
  tags: TagList
})

const NaicsInput = Schema.Struct({
  input: Schema.String.annotations({ description: "A company's domain, URL or name (at least 4 characters)" }),
  minResults: Int("Fewest codes, 1 to 10 (default 1)"),
  maxResults: Int("Most codes, 1 to 10 (default 5)"),
  tags: TagList
})

const BrandInput = Schema.Struct({
  domain: Text("The brand's domain, e.g. example.com (give exactly one of domain, email, name, ticker and directUrl)"),
  email: Text("An address at the company: its domain is read (free and disposable mail domains are refused)"),
  name: Text("The company's name: resolved among retrieved brands, mapped sites, then the search provider"),
  ticker: Text("A stock ticker, e.g. AAPL"),
  tickerExchange: Text("The ticker's exchange (default NASDAQ)"),
  directUrl: Text("Read only this page (http:// or https://)"),
  maxAgeMs: Int("Oldest kept brand to answer with, ms (default 3 months; 0 reads the site again)"),
  maxSpeed: Flag("Fewer images, no rendering: faster, less complete"),
  tags: TagList
})

/** The retrieve body of the first identifier given (none: a by_domain body the API refuses, naming `domain`). */
const brandBody = (args: Record<string, unknown>): Record<string, unknown> => {
  const common = {
    ...(args.maxAgeMs === undefined ? {} : { maxAgeMs: args.maxAgeMs }),
    ...(args.maxSpeed === undefined ? {} : { maxSpeed: args.maxSpeed }),
    ...(args.tags === undefined ? {} : { tags: args.tags })
  }
  if (args.email !== undefined) return { type: "by_email", email: args.email, ...common }
  if (args.name !== undefined) return { type: "by_name", name: args.name, ...common }
  if (args.ticker !== undefined) return { type: "by_ticker", ticker: args.ticker, ...(args.tickerExchange === undefined ? {} : { ticker_exchange: args.tickerExchange }), ...common }
  if (args.directUrl !== undefined) return { type: "by_direct_url", direct_url: args.directUrl, ...(args.tags === undefined ? {} : { tags: args.tags }) }
  return { type: "by_domain", domain: args.domain, ...common }
}

const DesignTarget = {
  domain: Text("The site's domain, e.g. example.com: its home page is read (exactly one of domain and directUrl)"),
  directUrl: Text("The exact page to read (http:// or https://)"),
  maxAgeMs: Int("Accept a cached read at most this old (default 3 months; 0 reads fresh)"),
  tags: TagList
}

const StyleguideInput = Schema.Struct({
  ...DesignTarget,
  colorScheme: Schema.optional(Schema.Literal("light", "dark").annotations({ description: "Emulate prefers-color-scheme (part of the cache key)" }))
})

const FontsInput = Schema.Struct(DesignTarget)

const LogsInput = Schema.Struct({
  from: Text("ISO 8601 start (default: one day before `to`)"),
  to: Text("ISO 8601 end (default: now)"),
  path: Text("Only requests to this API path, e.g. /web/scrape"),
  status_code: Int("Only this HTTP status"),
  error_code: Text("Only this error code"),
  errors_only: Flag("Only failed requests"),
  search: Text("Text to look for in the logged request"),
  page: Int("Page number, from 1"),
  limit: Int("Entries per page (default 25)")
})

const LogInput = Schema.Struct({ request_id: Schema.String.annotations({ description: "The request id of a log entry" }) })

const MonitorId = Schema.String.annotations({ description: "The monitor's id (mon_...)" })

const MonitorsInput = Schema.Struct({
  q: Text("Search text in names and URLs"),
  status: Text("active, paused or failed"),
  target_type: Text("page, sitemap or extract"),
  tag: Text("Only monitors with this tag"),
  limit: Int("Monitors per page, 1 to 100 (default 25)"),
  cursor: Text("next_cursor of the previous page")
})

const MonitorChangesInput = Schema.Struct({
  monitor_id: Schema.optional(MonitorId),
  since: Text("ISO 8601 start"),
  until: Text("ISO 8601 end"),
  limit: Int("Changes per page, 1 to 100 (default 25)"),
  cursor: Text("next_cursor of the previous page")
})

const BatchId = Schema.String.annotations({ description: "The batch's id (batch_...)" })

// The submission body as the API takes it, plus the Idempotency-Key header as a member.
const BatchSubmitInput = Schema.Struct({
  ...BatchSpec.SubmitBody.from.fields,
  idempotencyKey: Text("Sent as Idempotency-Key: the same key and body within 24 hours return the original batch")
})

const BatchResultsInput = Schema.Struct({
  batch_id: BatchId,
  cursor: Text("next_cursor of the previous page"),
  limit: Int("Records per page, 1 to 100 (default 25); a page closes early under ~8 MB")
})

/** Query members as the API parses them: objects in the deep-object form, lists comma-separated. */
const query = (args: Record<string, unknown>, omit: ReadonlyArray<string> = []): Record<string, unknown> =>
  Object.fromEntries(Object.entries(args).filter(([key, value]) => value !== undefined && !omit.includes(key)))

/** Every tool, in the order clients list them. */
export const tools: ReadonlyArray<Tool> = [
  {
    name: "scrape_markdown",
    title: "Scrape a page as Markdown",
    description: "Fetch one web page (rendered when needed) and return it as Markdown with its metadata (GET /v1/web/scrape/markdown; 1 credit).",
    scope: "api.read",
    input: ScrapeMarkdownInput,
    request: (args) => {
      const { timeoutMS, ...rest } = args
      return {
        method: "GET",
        path: "/v1/web/scrape/markdown",
        query: query({ ...rest, ...(timeoutMS === undefined ? {} : { timeoutOpts: { milliseconds: timeoutMS } }) })
      }
    }
  },
  {
    name: "scrape",
    title: "Scrape a page in several formats",
    description:
      "Fetch one page once and return any mix of rendered HTML, Markdown, a screenshot, images, the original bytes and CSS-selected fields (POST /v1/web/scrape). `formats` picks the outputs.",
    scope: "api.read",
    input: Schema.Struct(ScrapeRequest.ScrapeRequest.fields),
    request: (args) => ({ method: "POST", path: "/v1/web/scrape", body: args })
  },
  {
    name: "crawl",
    title: "Crawl a website to Markdown",
    description:
      "Reads a site from a start URL, following its links (breadth first, on its own site, robots.txt honoured), each page as Markdown " +
      "(POST /v1/web/crawl; maxPages credits held, 1 per page read charged; at most 500 pages, default 50, 3 links deep).",
    scope: "api.read",
    input: Crawl.Body,
    request: (args) => ({ method: "POST", path: "/v1/web/crawl", body: args })
  },
  {
    name: "search",
    title: "Search the web or Sift's own page index",
    description:
      "Search with the configured engine (SearXNG), or Sift's own index of pages this organization has scraped or crawled when the query " +
      "is scoped (site: or includeDomains) to sites it holds or no engine is configured; results carry title, description and a relevance " +
      "tier, and with markdownOptions.enabled each page as Markdown (POST /v1/web/search; 1 credit + 1 per result read).",
    scope: "api.read",
    input: Search.Body,
    request: (args) => ({ method: "POST", path: "/v1/web/search", body: args })
  },
  {
    name: "news_search",
    title: "Search a company's news",
    description:
      "One company's news (searchBy.entity by name, domain, ticker or ISIN): its own feeds (press_release, source.direct), its SEC EDGAR " +
      "filings (regulatory_filing) and the configured publisher feeds (editorial), with filters, newest or relevance order, a story_id shared " +
      "by syndicated copies and cursor paging (POST /v1/news/search; 1 credit per 10 articles, at least 1).",
    scope: "api.read",
    input: NewsRoutes.NewsSearchBody,
    request: (args) => ({ method: "POST", path: "/v1/news/search", body: args })
  },
  {
    name: "people_enrich",
    title: "Find a person from identity clues",
    description:
      "The best person candidate for the clues (name, company domain, email, social_urls, location), read from the company's team, about " +
      "and leadership pages and the person's own sites, with a 0-100 score of how many clues agree (POST /v1/people/enrich; 20 credits for " +
      "a candidate, not_found free; paid plans only; free and disposable emails refused).",
    scope: "api.read",
    input: PeopleRoutes.PeopleEnrichBody,
    request: (args) => ({ method: "POST", path: "/v1/people/enrich", body: args })
  },
  {
    name: "answer",
    title: "Research a question on the web and answer in a JSON shape",
    description:
      "Searches the task (SIFT_SEARXNG_URL), reads a domain it names and the top results, and has the configured model (SIFT_LLM_URL) " +
      "answer in the shape of json_format (an example object; default {\"result\": \"\"}), with the sources in first-seen order " +
      "(POST /v1/web/answers; mode fast 10 credits within 30 s, ultra 100 within 50 s; needs an engine and a model).",
    scope: "api.read",
    input: Answers.Body,
    request: (args) => ({ method: "POST", path: "/v1/web/answers", body: args })
  },
  {
    name: "extract",
    title: "Crawl a site and fill a JSON Schema from it",
    description:
      "Crawls from url, reading first the links the schema and instructions are about, and fills the JSON Schema from the pages: with " +
      "the configured model, else from the pages' structured data (JSON-LD, OpenGraph) with null for the rest; factCheck nulls values " +
      "the pages do not state (POST /v1/web/extract; 10 credits; maxPages default 5, at most 50).",
    scope: "api.read",
    input: Extract.Body,
    request: (args) => ({ method: "POST", path: "/v1/web/extract", body: args })
  },
  {
    name: "batch_submit",
    title: "Submit a batch of URLs or a site crawl",
    description:
      "Scrape up to 25,000 URLs, or crawl a site from a start URL or its sitemap, as a durable background job (POST /v1/batch/submit). " +
      "1 credit reserved per page at submission, refunded for pages that do not succeed when the batch settles. Answers the batch id " +
      "at once (status queued); follow it with batch_status and read the records with batch_results.",
    scope: "api.write",
    input: BatchSubmitInput,
    request: (args) => {
      const { idempotencyKey, ...body } = args
      return {
        method: "POST",
        path: "/v1/batch/submit",
        body,
        ...(typeof idempotencyKey === "string" ? { headers: { "idempotency-key": idempotencyKey } } : {})
      }
    }
  },
  {
    name: "batch_status",
    title: "Get a batch's progress",
    description:
      "A batch's status (queued, running, cancelling, completed, cancelled, failed), its pages succeeded/failed/pending, credits, page " +
      "errors by code and, once settled, its gzipped NDJSON result files (GET /v1/batch/{id}; no credits).",
    scope: "api.read",
    input: Schema.Struct({ batch_id: BatchId }),
    request: (args) => ({ method: "GET", path: `/v1/batch/${encodeURIComponent(String(args.batch_id))}` })
  },
  {
    name: "batch_results",
    title: "Read a settled batch's records",
    description:
      "A page of a settled batch's records in order: { status: ok, url, markdown|html, metadata, itemId?, meta? } or { status: error, " +
      "url, error_code, message } (GET /v1/batch/{id}/results; no credits). Follow next_cursor while has_more; a batch still running " +
      "answers BATCH_NOT_COMPLETED.",
    scope: "api.read",
    input: BatchResultsInput,
    request: (args) => {
      const { batch_id, ...rest } = args
      return { method: "GET", path: `/v1/batch/${encodeURIComponent(String(batch_id))}/results`, query: query(rest) }
    }
  },
  {
    name: "map",
    title: "List a website's URLs",
    description: "The URLs a website has, from the index and its sitemaps, with title, description and language when known (GET /v1/web/urls).",
    scope: "api.read",
    input: MapInput,
    request: (args) => ({ method: "GET", path: "/v1/web/urls", query: query(args) })
  },
  {
    name: "naics",
    title: "Classify a company into NAICS codes",
    description: "Ranked NAICS 2022 industry codes with confidence for a company's domain, URL or name (GET /v1/web/naics; 1 credit).",
    scope: "api.read",
    input: NaicsInput,
    request: (args) => ({ method: "GET", path: "/v1/web/naics", query: query(args) })
  },
  {
    name: "brand",
    title: "Retrieve a company's brand",
    description:
      "A brand read from the company's own site: name, description, slogan, logos (SVG first; type, light/dark mode, size, colors), " +
      "brand colors, backdrops, social profiles, blog/careers/contact/pricing/privacy/terms links, email, phone, address, language, " +
      "industries, stock ticker and headcount when stated (POST /v1/brand/retrieve; 10 credits). Give exactly one of domain, email, name, ticker, directUrl.",
    scope: "api.read",
    input: BrandInput,
    request: (args) => ({ method: "POST", path: "/v1/brand/retrieve", body: brandBody(args) })
  },
  {
    name: "styleguide",
    title: "Extract a website's design system",
    description:
      "A page's design system read in Chromium: colors (accent, background, text), light/dark mode, typography (h1-h4, p), " +
      "spacing and shadow scales, primary/secondary/link buttons and a card with ready-to-use CSS, font files (GET /v1/web/styleguide; 1 credit).",
    scope: "api.read",
    input: StyleguideInput,
    request: (args) => ({ method: "GET", path: "/v1/web/styleguide", query: query(args) })
  },
  {
    name: "fonts",
    title: "List a website's fonts",
    description:
      "The fonts of a page's text with element and word counts and shares, fallbacks and the elements using them, and the " +
      "font files of Google and self-hosted families (GET /v1/web/fonts; 1 credit).",
    scope: "api.read",
    input: FontsInput,
    request: (args) => ({ method: "GET", path: "/v1/web/fonts", query: query(args) })
  },
  {
    name: "products",
    title: "Extract products from a page or a shop",
    description:
      "Products read from the site itself (structured data, microdata, OpenGraph, Shopify and WooCommerce JSON): name, prices (sale and regular), " +
      "currency, availability, variants, images, SKU, dimensions. With url: whether that page is a product page and its product " +
      "(POST /v1/brand/ai/product; 5 credits). With domain or directUrl: up to maxProducts of the shop's products (POST /v1/brand/ai/products; 10 credits).",
    scope: "api.read",
    input: ProductsInput,
    request: productsRequest
  },
  {
    name: "logs",
    title: "List API request logs",
    description: "The organization's API request log, newest first, with filters (GET /v1/logs; no credits).",
    scope: "api.read",
    input: LogsInput,
    request: (args) => ({ method: "GET", path: "/v1/logs", query: query(args) })
  },
  {
    name: "monitors_list",
    title: "List monitors",
    description: "The organization's monitors, newest first, with their status, schedule and last run (GET /v1/monitors; no credits).",
    scope: "api.read",
    input: MonitorsInput,
    request: (args) => ({ method: "GET", path: "/v1/monitors", query: query(args) })
  },
  {
    name: "monitors_create",
    title: "Create a monitor",
    description:
      "Watch a page, a sitemap or extracted data for changes on a schedule, optionally with a signed webhook (POST /v1/monitors). The baseline run starts at once; each completed run costs 1 credit (10 for extract targets).",
    scope: "api.write",
    input: MonitorSpec.CreateBody,
    request: (args) => ({ method: "POST", path: "/v1/monitors", body: args })
  },
  {
    name: "monitors_get",
    title: "Get a monitor",
    description: "One monitor with its current baseline, status, last error and next run (GET /v1/monitors/{id}).",
    scope: "api.read",
    input: Schema.Struct({ monitor_id: MonitorId }),
    request: (args) => ({ method: "GET", path: `/v1/monitors/${encodeURIComponent(String(args.monitor_id))}` })
  },
  {
    name: "monitors_run",
    title: "Run a monitor now",
    description: "Queue a run of a monitor now; answers the run id to look up later (POST /v1/monitors/{id}/run).",
    scope: "api.write",
    input: Schema.Struct({ monitor_id: MonitorId }),
    request: (args) => ({ method: "POST", path: `/v1/monitors/${encodeURIComponent(String(args.monitor_id))}/run` })
  },
  {
    name: "monitors_changes",
    title: "List detected changes",
    description: "Changes the monitors recorded, newest first, for one monitor or all (GET /v1/monitors/{id}/changes, GET /v1/monitors/changes).",
    scope: "api.read",
    input: MonitorChangesInput,
    request: (args) => {
      const { monitor_id, ...rest } = args
      return monitor_id === undefined
        ? { method: "GET", path: "/v1/monitors/changes", query: query(rest) }
        : { method: "GET", path: `/v1/monitors/${encodeURIComponent(String(monitor_id))}/changes`, query: query(rest) }
    }
  },
  {
    name: "log",
    title: "Get one logged request",
    description: "One request log entry with its (redacted) input and response (GET /v1/logs/{request_id}).",
    scope: "api.read",
    input: LogInput,
    request: (args) => ({ method: "GET", path: `/v1/logs/${encodeURIComponent(String(args.request_id))}` })
  }
]

/** A tool's input as JSON Schema (the encoded side: what a client sends). */
export const inputSchema = (tool: Tool): Record<string, unknown> => {
  const { $schema: _, ...schema } = JSONSchema.make(Schema.encodedSchema(tool.input)) as unknown as Record<string, unknown>
  return schema
}

/** Encodes a query object the way `QueryParams.parse` reads it back: `a[b]=c` for objects, commas for lists. */
export const encodeQuery = (query: Readonly<Record<string, unknown>>): URLSearchParams => {
  const params = new URLSearchParams()
  const add = (key: string, value: unknown): void => {
    if (value === undefined || value === null) return
    if (Array.isArray(value)) {
      params.append(key, value.every((item) => typeof item !== "object") ? value.join(",") : JSON.stringify(value))
    } else if (typeof value === "object") {
      for (const [name, member] of Object.entries(value as Record<string, unknown>)) add(`${key}[${name}]`, member)
    } else {
      params.append(key, String(value))
    }
  }
  for (const [key, value] of Object.entries(query)) add(key, value)
  return params
}

/** Whether a caller holding `scopes` may call `tool`: `api.write` includes `api.read`. */
export const allowed = (tool: Tool, scopes: ReadonlyArray<Scope>): boolean =>
  scopes.includes("api.write") || scopes.includes(tool.scope)
