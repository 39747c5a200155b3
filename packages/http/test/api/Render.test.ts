import * as Auth from "@sift/auth"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "../../../core/test/render/fixtures", name), "utf8")

const listPage = `<!doctype html><html><head><title>List</title></head><body>
<ul id="list"><li>First item</li></ul>
<button onclick="document.getElementById('list').insertAdjacentHTML('beforeend','<li>Second item</li>')">Load more</button>
<button id="inert">Inert</button></body></html>`

describe("rendering through the service (pglite)", { timeout: 60_000 }, () => {
  let service: TestService.TestService
  let site: FixtureSite.Site
  beforeAll(async () => {
    site = await FixtureSite.start({
      "/list": FixtureSite.html(listPage),
      "/app": FixtureSite.html(`<html><head><script src="/app.js"></script></head><body><div id="root"></div></body></html>`),
      "/app.js": FixtureSite.html(`document.addEventListener("DOMContentLoaded", () => document.getElementById("root").textContent = "Drawn in the browser")`, { contentType: "text/javascript" }),
      "/challenge": FixtureSite.html(fixture("cloudflare-challenge.html")),
      "/never-ends": (_req, res) => {
        res.writeHead(200, { "content-type": "text/html" })
        res.write("<html><body><h1>Still arriving</h1><p>First part of the page.</p>")
      }
    })
    service = await TestService.start({ browser: true })
  }, 60_000)
  afterAll(async () => {
    await service?.close()
    await site?.close()
  })

  const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId))).then((b) => b.remaining)
  const get = async (secret: string, path: string, query: Record<string, string>) => {
    const response = await fetch(`${service.baseUrl}${path}?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${secret}` } })
    return { status: response.status, body: await response.json() as Record<string, any> }
  }

  it("GET markdown with actions: verified outcomes, 2 credits, never cached", async () => {
    const { secret, orgId } = await service.key()
    const before = await balance(orgId)
    const actions = JSON.stringify([{ do: "perform", action: `click "Load more"` }, { do: "perform", action: "click #inert" }])
    const { status, body } = await get(secret, "/web/scrape/markdown", { url: `${site.url}/list`, actions })
    expect(status).toBe(200)
    expect(body.markdown).toContain("Second item")
    expect(body.actionsApplied.map((a: any) => [a.instruction, a.status])).toEqual([[`click "Load more"`, "applied"], ["click #inert", "failed"]])
    expect(body.actionsApplied[1].error).toMatch(/changed nothing/)
    expect(body.actionsHtmlStale).toBe(false)
    expect(body.key_metadata.credits_consumed).toBe(2)
    expect(await balance(orgId)).toBe(before - 2)
    const again = await get(secret, "/web/scrape/markdown", { url: `${site.url}/list`, actions })
    expect(again.body.cache_metadata.status).toBe("miss")
  })

  it("actions on the free plan: 403 PAID_PLAN_REQUIRED, nothing charged", async () => {
    const { secret, orgId } = await service.key({ plan: "free" })
    const before = await balance(orgId)
    const actions = JSON.stringify([{ do: "wait", timeMs: 10 }])
    for (const path of ["/web/scrape/markdown", "/web/scrape/html"]) {
      const { status, body } = await get(secret, path, { url: `${site.url}/list`, actions })
      expect([path, status, body.error_code]).toEqual([path, 403, "PAID_PLAN_REQUIRED"])
    }
    expect(await balance(orgId)).toBe(before)
  })

  it("a script-drawn page renders; a challenge page is WEBSITE_BLOCKED and not charged", async () => {
    const { secret, orgId } = await service.key()
    const rendered = await get(secret, "/web/scrape/html", { url: `${site.url}/app` })
    expect(rendered.body.html).toContain("Drawn in the browser")
    expect(rendered.body.finalDOMState).toBe("complete")
    const before = await balance(orgId)
    const blocked = await get(secret, "/web/scrape/markdown", { url: `${site.url}/challenge` })
    expect([blocked.status, blocked.body.error_code]).toEqual([400, "WEBSITE_BLOCKED"])
    expect(await balance(orgId)).toBe(before)
  })

  it("return-partial on a page that never finishes: the current DOM, still-loading", async () => {
    const { secret } = await service.key()
    const { status, body } = await get(secret, "/web/scrape/markdown", {
      url: `${site.url}/never-ends`,
      includeFrames: "true",
      waitForMs: "0",
      timeoutOpts: JSON.stringify({ milliseconds: 12_000, behavior: "return-partial" })
    })
    expect(status).toBe(200)
    expect(body.markdown).toContain("Still arriving")
    expect(body.finalDOMState).toBe("still-loading")
  })
})
