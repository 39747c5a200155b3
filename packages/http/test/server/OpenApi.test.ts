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

describe("openapi.json covers every route the App dispatches", () => {
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

    it("every documented operation is served", async () => {
      const operations = Object.entries(paths).flatMap(([template, operations]) => Object.keys(operations).map((method) => ({ method, template })))
      const unserved = await filterConcurrently(operations, async ({ method, template }) => !await routed(method.toUpperCase(), concrete(template)))
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
