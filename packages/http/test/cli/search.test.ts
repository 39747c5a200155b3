/**
 * `sift search QUERY` through the real executable, against a SearXNG-format JSON responder started here (a stand-in for
 * a SearXNG instance, which cannot run in the tests).
 */
import { execFile } from "node:child_process"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url))

const sift = (args: ReadonlyArray<string>, env: Record<string, string | undefined>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const { SIFT_SEARXNG_URL: _inherited, ...rest } = process.env
    execFile(process.execPath, ["--import", "tsx", "--conditions=@sift/source", bin, ...args], { env: { ...rest, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    })
  })

let engine: http.Server
let url = ""
const asked: Array<URLSearchParams> = []
beforeAll(async () => {
  engine = http.createServer((req, res) => {
    const params = new URL(req.url ?? "/", "http://x").searchParams
    asked.push(params)
    const results = params.get("pageno") === "1"
      ? [
        { url: "https://kettles.test/copper", title: "Copper kettles", content: "Copper kettles, hand made" },
        { url: "https://pans.test/", title: "Pans", content: "Frying pans" },
        { url: "https://kettles.test/steel", title: "Steel kettles", content: "A kettle of steel" }
      ]
      : []
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results }))
  })
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => engine.close(() => resolve())))

describe("sift search", () => {
  it("prints each result's relevance, URL and title in the engine's order, filtered; --json gives the results", async () => {
    const { code, stdout, stderr } = await sift(["search", "--exclude", "pans.test", "--freshness", "last_month", "copper kettles"], { SIFT_SEARXNG_URL: url })
    expect(stderr).toBe("")
    expect(code).toBe(0)
    expect(stdout.trim().split("\n")).toEqual(["high    https://kettles.test/copper  Copper kettles", "medium  https://kettles.test/steel  Steel kettles"])
    expect(asked.at(-1)!.get("q")).toBe("copper kettles -site:pans.test")
    expect(asked.at(-1)!.get("time_range")).toBe("month")
    const json = await sift(["search", "--json", "--include", "kettles.test", "kettle"], { SIFT_SEARXNG_URL: url })
    expect(JSON.parse(json.stdout).results.map((r: any) => r.url)).toEqual(["https://kettles.test/copper", "https://kettles.test/steel"])
  }, 120_000)

  it("without SIFT_SEARXNG_URL: SEARCH_UNAVAILABLE naming the setting, exit 2", async () => {
    const { code, stderr } = await sift(["search", "anything"], {})
    expect(code).toBe(2)
    expect(stderr).toContain("SEARCH_UNAVAILABLE")
    expect(stderr).toContain("SIFT_SEARXNG_URL")
  }, 60_000)
})
