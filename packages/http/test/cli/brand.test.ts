import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Acme from "../../../core/test/brand/support/acme.js"
import { startSites } from "../../../core/test/discovery/support/sites.js"
import type * as FixtureSite from "../../../core/test/support/FixtureSite.js"

const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url))

let site: FixtureSite.Site
beforeAll(async () => {
  site = await startSites({ "acme.test": await Acme.routes("acme.test") })
})
afterAll(async () => {
  await site?.close()
})

/** Runs the real `sift` executable (through tsx, on the sources) with `acme.test` mapped to the fixture site. */
const sift = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "--conditions=@sift/source", bin, ...args], {
      env: { ...process.env, SIFT_HOST_RESOLVER_RULES: `MAP *.test 127.0.0.1:${site.port}`, ...env },
      timeout: 60_000
    }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    })
  })

describe("sift brand", () => {
  it("prints the fixture brand as JSON, read in this process, with the logos' addresses on the site", async () => {
    const { code, stderr, stdout } = await sift(["brand", "acme.test"], { SIFT_ALLOW_PRIVATE_TARGETS: "true" })
    expect(stderr).toBe("")
    expect(code).toBe(0)
    const brand = JSON.parse(stdout)
    expect(brand.title).toBe("Acme Rockets")
    expect(brand.logos[0]).toMatchObject({ url: "http://acme.test/img/logo.svg", type: "logo", mode: "light" })
    expect(brand.logos[0].asset).toBeUndefined()
    expect(brand.links.pricing).toBe("http://acme.test/pricing")
  }, 90_000)

  it("refuses the loopback site without SIFT_ALLOW_PRIVATE_TARGETS (exit 3) and a non-domain (exit 2)", async () => {
    const refused = await sift(["brand", "acme.test"], { SIFT_ALLOW_PRIVATE_TARGETS: "false" })
    expect(refused.code).toBe(3)
    expect(refused.stderr).toContain("WEBSITE_ACCESS_ERROR")
    const invalid = await sift(["brand", "not a domain"])
    expect(invalid.code).toBe(2)
    expect(invalid.stderr).toContain("INPUT_VALIDATION_ERROR")
  }, 90_000)
})
