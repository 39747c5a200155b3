import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"

const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url))

/** Runs the real `sift` executable (through tsx, on the sources) and collects its output and exit code. */
const sift = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "--conditions=@sift/source", bin, ...args], {
      env: { ...process.env, SIFT_ALLOW_PRIVATE_TARGETS: "true", ...env },
      timeout: 30_000
    }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    })
  })

const page = `<html><head><title>Shop</title></head><body>
<nav><a href="/">Home</a></nav>
<main><h1>Lanterns</h1><p>Our <a href="/lanterns/brass">brass lantern</a> burns for twelve hours on one fill of oil, long enough for the night watch.</p>
<div class="promo">Sale ends Friday</div></main>
<footer>Imprint and privacy</footer></body></html>`

let site: FixtureSite.Site
beforeAll(async () => {
  site = await FixtureSite.start({ "/": FixtureSite.html(page), "/slow": FixtureSite.slow({ headersAfterMs: 5_000 }) })
})
afterAll(() => site.close())

describe("sift scrape", () => {
  it("prints the page as Markdown with absolute links", async () => {
    const { code, stdout } = await sift(["scrape", `${site.url}/`])
    expect(code).toBe(0)
    expect(stdout).toContain("# Lanterns")
    expect(stdout).toContain(`[brass lantern](${site.url}/lanterns/brass)`)
    expect(stdout).toContain("Imprint and privacy")
  })

  it("keeps only the main content and honours --exclude", async () => {
    const { code, stdout } = await sift(["scrape", "--main-content", "--exclude", ".promo", `${site.url}/`])
    expect(code).toBe(0)
    expect(stdout).toContain("burns for twelve hours")
    expect(stdout).not.toContain("Imprint and privacy")
    expect(stdout).not.toContain("Sale ends Friday")
  })

  it("prints the whole result as JSON", async () => {
    const { code, stdout } = await sift(["scrape", "--format", "json", `${site.url}/`])
    expect(code).toBe(0)
    const result = JSON.parse(stdout)
    expect(result.url).toBe(`${site.url}/`)
    expect(result.markdown.data).toContain("# Lanterns")
    expect(result.html.data).toContain("<h1>Lanterns</h1>")
    expect(result.metadata.title).toBe("Shop")
  })

  it("reports errors with their code on stderr and a distinct exit code", async () => {
    const invalid = await sift(["scrape", "ftp://example.com/"])
    expect(invalid.code).toBe(2)
    expect(invalid.stderr).toContain("error: INPUT_VALIDATION_ERROR: url: must begin with http:// or https://")
    const refused = await sift(["scrape", `${site.url}/`], { SIFT_ALLOW_PRIVATE_TARGETS: "false" })
    expect(refused.code).toBe(3)
    expect(refused.stderr).toContain("error: WEBSITE_ACCESS_ERROR")
    const timeout = await sift(["scrape", "--timeout", "300", `${site.url}/slow`])
    expect(timeout.code).toBe(4)
    expect(timeout.stderr).toContain("error: REQUEST_TIMEOUT")
    expect(timeout.stdout).toBe("")
  })

  it("answers --help for the command", async () => {
    const { code, stdout } = await sift(["scrape", "--help"])
    expect(code).toBe(0)
    expect(stdout).toContain("--main-content")
    expect(stdout).toContain("--exclude")
    expect(stdout).toContain("SIFT_ALLOW_PRIVATE_TARGETS")
  })
})
