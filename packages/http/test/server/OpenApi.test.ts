import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as OpenApi from "../../src/OpenApi.js"
import * as TestService from "../support/TestService.js"

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const
const source = (file: string) => readFileSync(new URL(`../../src/${file}`, import.meta.url), "utf8")
const literals = (text: string) => [...text.matchAll(/"([^"\n]*)"/g)].map((match) => match[1]!)

const paths = OpenApi.document.paths as Record<string, Record<string, unknown>>

/** The documented operation (`"get /monitors/{monitor_id}"`) a concrete request would reach, if any. */
const documented = (method: string, path: string): string | undefined => {
  const relative = path.replace(/^\/v1/, "")
  for (const [template, operations] of Object.entries(paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`)
    if (pattern.test(relative) && operations[method.toLowerCase()] !== undefined) return `${method.toLowerCase()} ${template}`
  }
  return undefined
}

/** Runs `check` over `items`, a few at a time, and keeps those it answers true for. */
const filterConcurrently = async <A>(items: ReadonlyArray<A>, check: (item: A) => Promise<boolean>, concurrency = 16) => {
  const kept: Array<A> = []
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!
      if (await check(item)) kept.push(item)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return kept
}

/** A documented path with its parameters filled in. */
const concrete = (template: string) => `/v1${template.replace(/\{[^}]+\}/g, "x1")}`

// The dispatch table of App.ts: its `case "POST /v1/parse":` lines.
const dispatchTable = literals(source("App.ts"))
  .map((literal) => /^(GET|POST|PUT|PATCH|DELETE) (\/v1\/\S+)$/.exec(literal))
  .filter((match) => match !== null)
  .map((match) => ({ method: match[1]!, path: match[2]! }))

// The routes answered before the API (MCP, OAuth, agent registration): the `case` lines of their mounts, with the
// constants they use filled in; and the listener's probes.
const constants: Record<string, string> = { CLAIM_PATH: "/agent/claim", JWKS_PATH: "/.well-known/jwks.json", RESOURCE_METADATA_PATH: "/.well-known/oauth-protected-resource/mcp" }
const mounted = ["Mcp/Http.ts", "Agents/Http.ts"].flatMap((file) =>
  [...source(file).matchAll(/case [`"](GET|POST) ([^`"]+)[`"]:/g)].map((match) => ({
    method: match[1]!,
    path: match[2]!.replace(/\$\{(\w+)\}/g, (_, name: string) => constants[name]!)
  })))
const rootRoutes = [...mounted, { method: "POST", path: "/mcp" }, { method: "GET", path: "/health" }, { method: "GET", path: "/ready" }]

describe("openapi.json covers every route the App dispatches", () => {
  it("documents every route at the root (MCP, OAuth, agent registration, probes) with the root as its server", () => {
    expect(mounted.length).toBeGreaterThanOrEqual(15)
    expect(mounted).toContainEqual({ method: "POST", path: "/agent/claim/confirm" })
    const missing = rootRoutes.filter(({ method, path }) => paths[path]?.[method.toLowerCase()] === undefined)
    expect(missing).toEqual([])
    for (const { path } of rootRoutes) expect(paths[path]!.servers).toEqual([{ url: "/" }])
  })

  it("is a document whose references resolve and whose templated paths declare their parameters", () => {
    const text = JSON.stringify(OpenApi.document)
    const refs = [...new Set([...text.matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1]!))]
    expect(refs.length).toBeGreaterThan(1)
    for (const ref of refs) {
      expect(ref.startsWith("#/")).toBe(true)
      const target = ref.slice(2).split("/").reduce<any>((node, key) => node?.[key], OpenApi.document)
      expect(target, ref).toBeDefined()
    }
    for (const [template, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (method === "servers") continue
        const parameters = ((operation as any).parameters ?? []) as Array<{ name: string; in: string; schema: unknown }>
        for (const parameter of parameters) expect(parameter.schema, `${method} ${template} ${parameter.name}`).toBeDefined()
        const declared = parameters.filter((parameter) => parameter.in === "path").map((parameter) => parameter.name).sort()
        expect(declared, `${method} ${template}`).toEqual([...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!).sort())
        expect(new Set(parameters.map((parameter) => `${parameter.in} ${parameter.name}`)).size).toBe(parameters.length)
      }
    }
  })

  it("documents each GET's query from the Schema that decodes it", () => {
    const names = (path: string) => (paths[path]!.get as any).parameters.map((p: any) => p.name)
    expect(names("/web/scrape/markdown")).toEqual(expect.arrayContaining(["url", "timeoutMS", "timeoutOpts", "pdf", "actions", "includeHTML", "shortenBase64Images"]))
    expect(names("/web/scrape/bytes").sort()).toEqual(["country", "headers", "tags", "timeoutMS", "timeoutOpts", "url", "zdr"])
    expect(names("/web/scrape/images")).toEqual(expect.arrayContaining(["enrichment", "dedupe", "actions", "timeoutOpts"]))
    expect(names("/logs")).toEqual(expect.arrayContaining(["snapshot", "from", "to", "page", "limit"]))
    expect(names("/monitors")).toEqual(expect.arrayContaining(["q", "search_by", "cursor", "limit"]))
    const timeout = (paths["/web/urls"]!.get as any).parameters.find((p: any) => p.name === "timeoutOpts")
    expect(timeout).toMatchObject({ style: "deepObject", schema: { type: "object", required: ["milliseconds"] } })
    expect((paths["/web/scrape/markdown"]!.get as any).parameters[0]).toMatchObject({ name: "url", required: true })
  })

  it("each method and path of App.ts's dispatch table is an operation of the document", () => {
    // The table itself was found (a reworded source must not make this test pass on nothing).
    expect(dispatchTable.length).toBeGreaterThanOrEqual(13)
    expect(dispatchTable).toContainEqual({ method: "POST", path: "/v1/parse" })
    const missing = dispatchTable.filter(({ method, path }) => paths[path.replace(/^\/v1/, "")]?.[method.toLowerCase()] === undefined)
    expect(missing).toEqual([])
  })

  it("POST /parse documents its raw upload, its query and its answer", () => {
    const parse = (paths["/parse"] as any).post
    expect(Object.keys(parse.requestBody.content)).toEqual(["*/*"])
    expect(parse.requestBody.content["*/*"].schema).toEqual({ type: "string", format: "binary" })
    expect(parse.parameters.map((p: any) => p.name)).toEqual(
      ["filename", "extension", "pdfStart", "pdfEnd", "pdf", "ocr", "includeImages", "includeLinks", "useMainContentOnly", "baseUrl", "zdr", "tags"]
    )
    expect(parse.responses["200"].headers["x-parse-ocr-used"]).toBeDefined()
    expect(JSON.stringify(parse.responses["200"].content["application/json"].schema)).toContain("docx")
    expect(Object.keys(parse.responses)).toEqual(expect.arrayContaining(["413", "415", "400", "401", "403", "429"]))
  })

  describe("against the running application", () => {
    let service: TestService.TestService
    beforeAll(async () => {
      service = await TestService.start()
    })
    afterAll(() => service?.close())

    /** Whether the application routes the request: an unrouted one is the JSON 404 "No route ..." (no key needed to tell). */
    const routed = async (method: string, path: string) => {
      const response = await fetch(`${service.baseUrl.replace(/\/v1$/, "")}${path}`, { method, ...(method === "GET" || method === "DELETE" ? {} : { body: "{}" }) })
      const body = await response.text()
      return !(response.status === 404 && body.includes(`"No route ${method} `))
    }

    it("a required query member the document names is the one a request without it is refused for", async () => {
      const { secret } = await service.key({ plan: "scale", credits: 100 })
      const required = Object.entries(paths).flatMap(([template, item]) =>
        template.includes("{") || (item as any).servers !== undefined || (item as any).get === undefined ? [] :
          (((item as any).get.parameters ?? []) as Array<{ name: string; in: string; required: boolean }>)
            .filter((p) => p.in === "query" && p.required)
            .map((p) => ({ template, name: p.name })))
      expect(required.map(({ name, template }) => `${template} ${name}`)).toEqual(expect.arrayContaining(["/web/scrape/markdown url", "/web/naics input", "/web/urls domain"]))
      for (const { name, template } of required) {
        const response = await fetch(`${service.baseUrl}${template}`, { headers: { authorization: `Bearer ${secret}` } })
        const body = await response.json() as { error_code: string; message: string }
        expect(response.status, template).toBe(400)
        expect(body.message, template).toMatch(new RegExp(`^${name}: `))
      }
    })

    it("every documented operation is served", async () => {
      // Root routes are asked at the root; the admin channel has its own listener (Admin.test covers it); the probes
      // are the listener's, which this service does not run.
      const operations = Object.entries(paths)
        .filter(([template]) => !template.startsWith("/_admin/") && template !== "/health" && template !== "/ready")
        .flatMap(([template, operations]) =>
          Object.keys(operations).filter((method) => method !== "servers").map((method) => ({
            method,
            path: (operations as any).servers === undefined ? concrete(template) : template.replace(/\{[^}]+\}/g, "x1")
          })))
      expect(operations).toContainEqual({ method: "post", path: "/mcp" })
      const unserved = await filterConcurrently(operations, async ({ method, path }) => !await routed(method.toUpperCase(), path))
      expect(unserved).toEqual([])
    })

    it("every route served under a documented path, a monitor or delivery path, or the dispatch table is documented", async () => {
      // Requests that reach the pattern routes (hosted files, one log, monitors, deliveries): each documented path and
      // each dispatched one, one level deeper, and the monitor routes' own path words in every place they can stand.
      const monitorWords = literals(source("Monitors/Http.ts")).filter((literal) => /^\/?[a-z][a-z-]*(\/[a-z-]+)*\/?$/.test(literal))
      const bases = ["/v1/monitors", "/v1/webhooks/deliveries", "/v1/files", "/v1/logs"]
      const candidates = new Set<string>([
        ...Object.keys(paths).flatMap((template) => [concrete(template), `${concrete(template)}/x2`]),
        ...dispatchTable.flatMap(({ path }) => [path, `${path}/x2`]),
        ...bases.flatMap((base) => [base, `${base}/x1`, `${base}/x1/x2`, ...monitorWords.flatMap((word) => {
          const segment = word.replace(/^\/|\/$/g, "")
          return [`${base}/${segment}`, `${base}/${segment}/x2`, `${base}/x1/${segment}`, `${base}/x1/${segment}/x2`]
        })])
      ])
      expect(candidates.has("/v1/monitors/x1/webhook/rotate-secret")).toBe(true)
      // A hosted file's id is all that follows /v1/files/ ({id}: ids have no slash, so deeper paths only answer 404).
      const requests = [...candidates]
        .filter((path) => !/^\/v1\/files\/[^/]+\//.test(path))
        .flatMap((path) => METHODS.map((method) => ({ method, path })))
      const undocumented = await filterConcurrently(requests, async ({ method, path }) =>
        documented(method, path) === undefined && await routed(method, path))
      expect(undocumented.map(({ method, path }) => `${method} ${path}`)).toEqual([])
    }, 120_000)
  })
})
