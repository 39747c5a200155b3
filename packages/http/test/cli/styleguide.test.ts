import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as DesignSite from "../../../core/test/support/DesignSite.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url))

/** Runs the real `sift` executable (through tsx, on the sources) and collects its output and exit code. */
const sift = (args: ReadonlyArray<string>, env: Record<string, string> = { SIFT_ALLOW_PRIVATE_TARGETS: "true" }) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "--conditions=@sift/source", bin, ...args], {
      env: { ...process.env, ...env },
      timeout: 90_000
    }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    })
  })

let site: FixtureSite.Site
beforeAll(async () => {
  site = await FixtureSite.start(DesignSite.routes())
})
afterAll(async () => {
  await site?.close()
})

describe("sift styleguide and sift fonts (Chromium)", { timeout: 180_000 }, () => {
  it("sift styleguide URL --dark prints the styleguide as JSON", async () => {
    const { code, stdout } = await sift(["styleguide", `${site.url}/`, "--dark"])
    expect(code).toBe(0)
    const guide = JSON.parse(stdout)
    expect(guide.colors).toEqual({ accent: "#ff5500", background: "#0f1115", text: "#f2f2f2" })
    expect(guide.mode).toBe("dark")
    expect(guide.fontLinks.BrandSans_4f2a9c1e.displayName).toBe("Brand Sans")
  })

  it("sift fonts URL prints one line per font, most words first; a private address is refused (exit 3)", async () => {
    const { code, stdout } = await sift(["fonts", `${site.url}/`])
    expect(code).toBe(0)
    expect(stdout.trim().split("\n")).toEqual([
      "BrandSans_4f2a9c1e  78.18% of words (43), 66.67% of elements (10)  uses a button p  fallbacks Arial, sans-serif",
      "Playfair Display  16.36% of words (9), 26.67% of elements (4)  uses h1 h2 h3 h4  fallbacks Georgia, serif",
      "Courier New  5.45% of words (3), 6.67% of elements (1)  uses code  fallbacks monospace"
    ])
    const refused = await sift(["fonts", `${site.url}/`], { SIFT_ALLOW_PRIVATE_TARGETS: "false" })
    expect(refused.code).toBe(3)
    expect(refused.stderr).toContain("WEBSITE_ACCESS_ERROR")
  })

  // Three runs of the executable through tsx and a service: slow on a busy machine.
  it("with --api URL --key KEY a server reads it (GET /v1/web/fonts, GET /v1/web/styleguide), its errors with their exit codes", { timeout: 240_000 }, async () => {
    const service = await TestService.start({ browser: true })
    try {
      const { secret } = await service.key()
      const api = ["--api", service.baseUrl.replace(/\/v1$/, ""), "--key", secret]
      const fonts = await sift(["fonts", `${site.url}/`, "--json", ...api], {})
      expect(fonts.code).toBe(0)
      const body = JSON.parse(fonts.stdout)
      expect(body.fonts.map((font: { font: string }) => font.font)).toEqual(["BrandSans_4f2a9c1e", "Playfair Display", "Courier New"])
      expect(body.fontLinks["Playfair Display"].category).toBe("serif")
      const guide = await sift(["styleguide", `${site.url}/`, ...api], {})
      expect(JSON.parse(guide.stdout).components.button.primary.backgroundColor).toBe("#ff5500")
      const missing = await sift(["styleguide", `${site.url}/missing`, ...api], {})
      expect([missing.code, missing.stderr.includes("WEBSITE_ACCESS_ERROR")]).toEqual([3, true])
    } finally {
      await service.close()
    }
  })
})
