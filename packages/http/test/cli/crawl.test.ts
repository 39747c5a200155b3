import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import { fileFor } from "../../src/internal/cli/crawl.js"

const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url))

/** Runs the real `sift` executable (through tsx, on the sources) and collects its output and exit code. */
const sift = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "--conditions=@sift/source", bin, ...args], {
      env: { ...process.env, SIFT_ALLOW_PRIVATE_TARGETS: "true" },
      timeout: 60_000
    }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    })
  })

const doc = (title: string, links: ReadonlyArray<string>) =>
  FixtureSite.html(`<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>About ${title}.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(" ")}</main></body></html>`)

let site: FixtureSite.Site
const made: Array<string> = []
beforeAll(async () => {
  site = await FixtureSite.start({
    "/": doc("Home", ["/docs/", "/docs/intro", "/blog/post?id=7", "/missing"]),
    "/docs/": doc("Docs", ["/docs/intro", "/docs/deep/"]),
    "/docs/intro": doc("Intro", []),
    "/docs/deep/": doc("Deep", ["/docs/deeper"]),
    "/blog/post": doc("Post", [])
  })
})
afterAll(() => {
  site.close()
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

describe("sift crawl", () => {
  it("writes one JSON line per page on stdout, within depth and the pattern, with failures as error lines", async () => {
    const { code, stdout, stderr } = await sift(["crawl", "--depth", "1", `${site.url}/`])
    expect(code).toBe(0)
    const lines = stdout.trim().split("\n").map((l) => JSON.parse(l))
    const byUrl = new Map(lines.map((l) => [l.url, l]))
    expect(byUrl.get(`${site.url}/`)).toMatchObject({ status: "ok", depth: 0, title: "Home" })
    expect(byUrl.get(`${site.url}/docs/intro`).markdown).toContain("# Intro")
    expect(byUrl.get(`${site.url}/missing`)).toMatchObject({ status: "error", error_code: "WEBSITE_ACCESS_ERROR" })
    expect(byUrl.has(`${site.url}/docs/deep/`)).toBe(false)
    expect(stderr).toContain("4 pages read, 1 failed")
    const only = await sift(["crawl", "--regex", "/docs/", "--max-pages", "3", `${site.url}/`])
    const urls = only.stdout.trim().split("\n").map((l) => JSON.parse(l).url)
    expect(urls.length).toBe(3)
    expect(urls.every((u: string) => u === `${site.url}/` || u.includes("/docs/"))).toBe(true)
  }, 90_000)

  it("with --out writes a folder tree mirroring the site and an index", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sift-crawl-"))
    made.push(dir)
    const { code } = await sift(["crawl", "--out", dir, "--format", "html", `${site.url}/`])
    expect(code).toBe(0)
    const host = new URL(site.url).host.replace(/[^A-Za-z0-9.-]/g, "_")
    expect(readFileSync(join(dir, host, "docs", "index.html"), "utf8")).toContain("<h1>Docs</h1>")
    expect(readFileSync(join(dir, host, "docs", "deep", "index.html"), "utf8")).toContain("Deep")
    expect(readFileSync(join(dir, host, "blog", "post__id=7.html"), "utf8")).toContain("Post")
    const index = readFileSync(join(dir, "index.md"), "utf8")
    expect(index).toContain(`[Intro](${host}/docs/intro.html)`)
    expect(index).toMatch(/missing — failed \(WEBSITE_ACCESS_ERROR/)
  }, 90_000)

  it("refuses a pattern that is not RE2 with exit code 2, naming the option", async () => {
    const { code, stderr } = await sift(["crawl", "--regex", "(a)\\1", `${site.url}/`])
    expect(code).toBe(2)
    expect(stderr).toMatch(/INPUT_VALIDATION_ERROR.*--regex/)
  }, 60_000)

  it("never writes outside the output folder, whatever the URL holds", () => {
    expect(fileFor("/out", "https://a.test/../../etc/passwd", ".md")).toBe("/out/a.test/etc/passwd.md")
    expect(fileFor("/out", "https://a.test/%2e%2e/%2e%2e/x", ".md").startsWith("/out/a.test/")).toBe(true)
    expect(fileFor("/out", "https://a.test/", ".md")).toBe("/out/a.test/index.md")
    expect(fileFor("/out", "https://a.test:8080/a%2Fb", ".md")).toBe("/out/a.test_8080/a_b.md")
  })
})
