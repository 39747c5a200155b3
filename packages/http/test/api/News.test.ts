/**
 * `POST /v1/news/search` through the official SDK (`client.news.search`). Fixture "domains" (`*.test`, one local server
 * through host rules): the company's site announcing an RSS feed on its home page and an Atom feed on its newsroom
 * page, two publisher feeds (RSS and Atom, `SIFT_NEWS_FEEDS`, polled as pg-boss jobs) carrying syndicated copies of a
 * press release and mentions in headline or body, and EDGAR's Atom feed of the company's filings in EDGAR's own format
 * (`SIFT_EDGAR_URL`; the CIK from a companies file, `SIFT_NEWS_COMPANIES_FILE`).
 */
import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import * as SqlClient from "@effect/sql/SqlClient"
import { Migrations, Sql } from "@sift/store"
import { Effect, Redacted } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { type Hosts, startSites, xml } from "../../../core/test/discovery/support/sites.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as NewsStore from "../../src/News/Store.js"
import * as TestService from "../support/TestService.js"

const DAY = 86_400_000
const today = Math.floor(Date.now() / DAY) * DAY
/** An instant `days` before today at `hour` UTC. */
const at = (days: number, hour: number) => new Date(today - days * DAY + hour * 3_600_000)

const LAUNCH_BODY = "Acme Robotics today introduced the R2 welding arm, a six-axis industrial robot that welds steel frames twice as fast as its predecessor and ships to car plants in Europe and North America from the first quarter."

const rss = (title: string, language: string, items: ReadonlyArray<{ title: string; link: string; body: string; date: Date; author?: string }>) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>${title}</title><link>http://x.test/</link><description>${title}</description><language>${language}</language>` +
  items.map((i) => `<item><title>${i.title}</title><link>${i.link}</link><guid>${i.link}</guid><description><![CDATA[<p>${i.body}</p>]]></description><pubDate>${i.date.toUTCString()}</pubDate>${i.author === undefined ? "" : `<dc:creator>${i.author}</dc:creator>`}</item>`).join("") +
  `</channel></rss>`

const atom = (title: string, items: ReadonlyArray<{ title: string; link: string; body: string; date: Date; author?: string }>) =>
  `<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en"><title>${title}</title><id>urn:${title}</id><updated>${new Date().toISOString()}</updated>` +
  items.map((i) => `<entry><title>${i.title}</title><link rel="alternate" href="${i.link}"/><id>${i.link}</id><updated>${i.date.toISOString()}</updated><summary type="html">${i.body.replace(/</g, "&lt;")}</summary>${i.author === undefined ? "" : `<author><name>${i.author}</name></author>`}</entry>`).join("") +
  `</feed>`

// EDGAR's browse-edgar Atom output, as sec.gov serves it (company-info block, one entry per filing).
const edgar = (filings: ReadonlyArray<{ form: string; name: string; accession: string; date: Date }>) =>
  `<?xml version="1.0" encoding="ISO-8859-1" ?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n<author><email>webmaster@sec.gov</email><name>Webmaster</name></author>\n` +
  `<company-info><addresses><address type="business"><city>SPRINGFIELD</city><state>IL</state></address></addresses><cik>0001234567</cik><conformed-name>ACME ROBOTICS INC</conformed-name><fiscal-year-end>1231</fiscal-year-end></company-info>\n` +
  `<id>https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&amp;CIK=0001234567</id>\n<link href="https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&amp;CIK=0001234567" rel="alternate" type="text/html" />\n<title>ACME ROBOTICS INC  (0001234567)</title>\n<updated>${new Date().toISOString()}</updated>\n` +
  filings.map((f) => `<entry>\n<category label="form type" scheme="https://www.sec.gov/" term="${f.form}" />\n<content type="text/xml">\n<accession-number>${f.accession}</accession-number>\n<filing-date>${f.date.toISOString().slice(0, 10)}</filing-date>\n<filing-type>${f.form}</filing-type>\n<form-name>${f.name}</form-name>\n</content>\n<id>urn:tag:sec.gov,2008:accession-number=${f.accession}</id>\n<link href="https://www.sec.gov/Archives/edgar/data/1234567/${f.accession.replace(/-/g, "")}/${f.accession}-index.htm" rel="alternate" type="text/html" />\n<summary type="html"> &lt;b&gt;Filed:&lt;/b&gt; ${f.date.toISOString().slice(0, 10)} &lt;b&gt;AccNo:&lt;/b&gt; ${f.accession}</summary>\n<title>${f.form}  - ${f.name}</title>\n<updated>${f.date.toISOString()}</updated>\n</entry>\n`).join("") +
  `</feed>\n`

const hosts: Hosts = {
  "acme.test": {
    "/": FixtureSite.html(`<!doctype html><html><head><title>Acme Robotics | Industrial robots</title><meta property="og:site_name" content="Acme Robotics"><link rel="alternate" type="application/rss+xml" title="Press" href="/press/feed.xml"></head><body><a href="/newsroom">Newsroom</a></body></html>`),
    "/newsroom": FixtureSite.html(`<!doctype html><html><head><title>Newsroom</title><link rel="alternate" type="application/atom+xml" href="/newsroom/atom.xml"></head><body><h1>Newsroom</h1></body></html>`),
    "/press/feed.xml": xml(rss("Acme Robotics press", "en", [
      { title: "Acme Robotics launches the R2 welding arm", link: "http://acme.test/press/r2", body: LAUNCH_BODY, date: at(2, 9) }
    ])),
    "/newsroom/atom.xml": xml(atom("Acme Robotics newsroom", [
      { title: "Acme Robotics opens a plant in Lyon", link: "http://acme.test/newsroom/lyon", body: "Acme Robotics opens its first European plant, in Lyon, with 300 jobs.", date: at(6, 10), author: "Acme Communications" }
    ]))
  },
  "wire.test": {
    "/rss": xml(rss("Wire Daily", "en", [
      { title: "Acme Robotics launches the R2 welding arm - Wire Daily", link: "http://wire.test/2026/acme-r2", body: LAUNCH_BODY, date: at(2, 11), author: "Jo Reporter" },
      { title: "Factory output rises for a third month", link: "http://wire.test/2026/output", body: "Orders for machines rose again; suppliers such as Acme Robotics reported longer order books.", date: at(4, 8) },
      { title: "Rain expected over the weekend", link: "http://wire.test/2026/rain", body: "Showers and wind, clearing on Monday.", date: at(1, 7) }
    ]))
  },
  "daily.test": {
    "/atom": xml(atom("The Daily", [
      { title: "Acme Robotics launches the R2 welding arm | The Daily", link: "http://daily.test/business/acme-r2", body: LAUNCH_BODY, date: at(2, 13) },
      { title: "R2 arm unveiled for welders", link: "http://daily.test/business/r2-arm", body: LAUNCH_BODY.replace("today introduced", "introduced on Tuesday"), date: at(2, 15) }
    ]))
  },
  "edgar.test": {
    "/cgi-bin/browse-edgar": xml(edgar([
      { form: "8-K", name: "Current report", accession: "0001234567-26-000031", date: at(3, 16) },
      { form: "10-Q", name: "Quarterly report [Sections 13 or 15(d)]", accession: "0001234567-26-000027", date: at(20, 16) }
    ]))
  }
}

type Article = Awaited<ReturnType<ContextDev["news"]["search"]>>["data"][number]
type Searched = Awaited<ReturnType<ContextDev["news"]["search"]>> & { key_metadata: { credits_consumed: number } }

const apiError = async (promise: Promise<unknown>) => {
  try {
    await promise
  } catch (error) {
    const e = error as { status?: number; error?: { error_code?: string; message?: string } }
    return { status: e.status, code: e.error?.error_code, message: e.error?.message ?? "" }
  }
  throw new Error("expected the call to fail")
}

const backends = [
  { name: "pglite", url: undefined as string | undefined },
  { name: "postgres", url: inject("databaseUrl") ?? undefined }
]

/** Removes what an earlier run left in a shared PostgreSQL database (the fixture's articles, polls and jobs). */
const forgetEarlierRuns = (url: string) =>
  Effect.runPromise(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* Migrations.run({ news: NewsStore.migrations })
    yield* sql`DELETE FROM news_article WHERE url LIKE 'http://%.test/%' OR url LIKE 'https://www.sec.gov/Archives/edgar/data/1234567/%'`
    yield* sql`DELETE FROM news_feed WHERE url LIKE 'http://%.test/%' OR url LIKE 'site:%.test'`
  }).pipe(Effect.scoped, Effect.provide(Sql.layerPg({ url: Redacted.make(url) }))))

let site: FixtureSite.Site
let service: TestService.TestService
let dir: string
let startedAt: Date

const start = async (databaseUrl: string | undefined) => {
  site = await startSites(hosts)
  dir = mkdtempSync(join(tmpdir(), "sift-news-"))
  const companies = join(dir, "companies.json")
  writeFileSync(companies, JSON.stringify([{ name: "Acme Robotics", domain: "acme.test", ticker: "ACME", exchange: "NASDAQ", cik: "0001234567", isin: "US00ACME0001" }]))
  process.env.SIFT_NEWS_COMPANIES_FILE = companies
  if (databaseUrl !== undefined) await forgetEarlierRuns(databaseUrl)
  startedAt = new Date(Date.now() - 1_000)
  service = await TestService.start({
    databaseUrl,
    hostRules: `MAP *.test 127.0.0.1:${site.port}`,
    env: { SIFT_NEWS_FEEDS: "http://wire.test/rss, http://daily.test/atom", SIFT_EDGAR_URL: "http://edgar.test" }
  })
}
const stop = async () => {
  await service?.close()
  await site?.close()
  delete process.env.SIFT_NEWS_COMPANIES_FILE
  rmSync(dir, { recursive: true, force: true })
}

const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId))).then((b) => b.remaining)
const clientOf = (secret: string) => new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0, timeout: 60_000 })
const byDomain = { type: "entity", entity: { type: "domain", domain: "acme.test" } } as const

/** Waits until the publisher feeds' jobs have stored their articles (8 matching articles in all). */
const polled = async (client: ContextDev) => {
  await expect.poll(async () => (await client.news.search({ searchBy: byDomain, limit: 100 })).data.length, { timeout: 30_000, interval: 500 }).toBe(8)
}

for (const backend of backends) {
  describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`POST /news/search through the official SDK (${backend.name})`, () => {
    beforeAll(() => start(backend.url), 120_000)
    afterAll(stop)

    it("answers the company's own feeds, its EDGAR filings and publisher mentions, newest first, syndicated copies in one story; ceil(n/10) credits", async () => {
      const { orgId, secret } = await service.key({ credits: 1_000 })
      const client = clientOf(secret)
      await polled(client)
      const before = await balance(orgId)
      const searched = await client.news.search({ searchBy: byDomain, sortBy: { type: "newest" }, limit: 20 }) as Searched
      const view = (a: Article) => [a.url, a.type, a.source.direct, a.match.level]
      expect(searched.data.map(view)).toEqual([
        ["http://daily.test/business/r2-arm", "editorial", false, "secondary"],
        ["http://daily.test/business/acme-r2", "editorial", false, "primary"],
        ["http://wire.test/2026/acme-r2", "editorial", false, "primary"],
        ["http://acme.test/press/r2", "press_release", true, "primary"],
        ["https://www.sec.gov/Archives/edgar/data/1234567/000123456726000031/0001234567-26-000031-index.htm", "regulatory_filing", false, "primary"],
        ["http://wire.test/2026/output", "editorial", false, "secondary"],
        ["http://acme.test/newsroom/lyon", "press_release", true, "primary"],
        ["https://www.sec.gov/Archives/edgar/data/1234567/000123456726000027/0001234567-26-000027-index.htm", "regulatory_filing", false, "primary"]
      ])
      const [reheadlined, daily, wire, press, filing, output, lyon] = searched.data
      // Three syndicated copies (one re-headlined, same body) share the press release's story; other articles have their own.
      expect(new Set([reheadlined!.story_id, daily!.story_id, wire!.story_id, press!.story_id]).size).toBe(1)
      expect(new Set([press!.story_id, filing!.story_id, output!.story_id, lyon!.story_id]).size).toBe(4)
      expect(press).toMatchObject({
        title: "Acme Robotics launches the R2 welding arm",
        description: LAUNCH_BODY,
        language: "en",
        published_at: at(2, 9).toISOString(),
        source: { direct: true, domain: "acme.test", name: "Acme Robotics" },
        match: { level: "primary", confidence: 1 }
      })
      expect(wire).toMatchObject({ authors: ["Jo Reporter"], source: { domain: "wire.test", name: "Wire Daily", direct: false }, match: { confidence: 0.9 } })
      expect(lyon!.authors).toEqual(["Acme Communications"])
      expect(filing).toMatchObject({ title: "8-K - Current report", source: { domain: "sec.gov", name: "SEC EDGAR", direct: false } })
      expect(output!.match.confidence).toBe(0.5)
      expect(searched.meta.count).toBe(8)
      expect(searched.has_more).toBe(false)
      expect(searched.next_cursor).toBeNull()
      expect(searched.key_metadata.credits_consumed).toBe(1)
      expect(await balance(orgId)).toBe(before - 1)

      // Stable ids: the same search answers the same ids.
      const again = await client.news.search({ searchBy: byDomain, limit: 20 })
      expect(again.data.map((a) => a.id)).toEqual(searched.data.map((a) => a.id))
    }, 60_000)

    it("pages with limit and next_cursor to exhaustion, 1 credit a page; relevance puts the company's own items first", async () => {
      const { orgId, secret } = await service.key({ credits: 1_000 })
      const client = clientOf(secret)
      await polled(client)
      const all = (await client.news.search({ searchBy: byDomain, limit: 100 })).data.map((a) => a.id)
      const before = await balance(orgId)
      const pages: Array<Array<string>> = []
      let cursor: string | null = null
      do {
        const page = await client.news.search({ searchBy: byDomain, limit: 3, cursor }) as Searched
        expect(page.key_metadata.credits_consumed).toBe(1)
        pages.push(page.data.map((a) => a.id))
        expect(page.has_more).toBe(page.next_cursor !== null)
        cursor = page.next_cursor
      } while (cursor !== null)
      expect(pages.map((p) => p.length)).toEqual([3, 3, 2])
      expect(pages.flat()).toEqual(all)
      expect(await balance(orgId)).toBe(before - 3)

      const relevance = await client.news.search({ searchBy: byDomain, sortBy: { type: "relevance" }, limit: 4 })
      expect(relevance.data.map((a) => a.match.confidence)).toEqual([1, 1, 1, 1])
      // A cursor of another search is refused.
      expect(await apiError(client.news.search({ searchBy: { type: "entity", entity: { type: "name", name: "Acme Robotics" } }, cursor: pages.length > 0 ? Buffer.from(JSON.stringify({ o: 3, k: "0" })).toString("base64url") : "x" })))
        .toMatchObject({ status: 400, code: "INPUT_VALIDATION_ERROR" })
    }, 60_000)

    it("filters by date window, type, source domain and language; finds the company by ticker, ISIN and name", async () => {
      const { secret } = await service.key({ credits: 1_000 })
      const client = clientOf(secret)
      await polled(client)
      const window = await client.news.search({ searchBy: byDomain, filterBy: { date: { from: at(4, 0).getTime(), to: at(2, 10).getTime() } } })
      expect(window.data.map((a) => a.url)).toEqual(["http://acme.test/press/r2", "https://www.sec.gov/Archives/edgar/data/1234567/000123456726000031/0001234567-26-000031-index.htm", "http://wire.test/2026/output"])
      const filings = await client.news.search({ searchBy: { type: "entity", entity: { type: "ticker", ticker: "acme", exchange: "NASDAQ" } }, filterBy: { articleType: ["regulatory_filing"] } })
      expect(filings.data.map((a) => a.type)).toEqual(["regulatory_filing", "regulatory_filing"])
      const byIsin = await client.news.search({ searchBy: { type: "entity", entity: { type: "isin", isin: "US00ACME0001" } }, filterBy: { sourceDomain: ["daily.test"] } })
      expect(byIsin.data.map((a) => a.url)).toEqual(["http://daily.test/business/r2-arm", "http://daily.test/business/acme-r2"])
      const byName = await client.news.search({ searchBy: { type: "entity", entity: { type: "name", name: "Acme Robotics" } }, filterBy: { articleType: ["editorial"], articleLanguage: ["en"] } })
      expect(byName.data.map((a) => a.url)).toEqual(["http://daily.test/business/r2-arm", "http://daily.test/business/acme-r2", "http://wire.test/2026/acme-r2", "http://wire.test/2026/output"])
      const german = await client.news.search({ searchBy: byDomain, filterBy: { articleLanguage: ["de"] } })
      expect(german.data).toEqual([])
    }, 60_000)

    it("refuses 4 article languages, an unknown ticker or ISIN and a bad domain, uncharged", async () => {
      const { orgId, secret } = await service.key({ credits: 1_000 })
      const client = clientOf(secret)
      const before = await balance(orgId)
      const four = await apiError(client.news.search({ searchBy: byDomain, filterBy: { articleLanguage: ["en", "de", "fr", "es"] } }))
      expect(four).toMatchObject({ status: 400, code: "INPUT_VALIDATION_ERROR" })
      expect(four.message).toContain("articleLanguage")
      expect(await apiError(client.news.search({ searchBy: { type: "entity", entity: { type: "ticker", ticker: "NOPE" } } }))).toMatchObject({ status: 404, code: "NOT_FOUND" })
      expect(await apiError(client.news.search({ searchBy: { type: "entity", entity: { type: "isin", isin: "US0000000000" } } }))).toMatchObject({ status: 404, code: "NOT_FOUND" })
      expect(await apiError(client.news.search({ searchBy: { type: "entity", entity: { type: "domain", domain: "not a domain" } } }))).toMatchObject({ status: 400, code: "INPUT_VALIDATION_ERROR" })
      expect(await apiError(client.news.search({ searchBy: byDomain, limit: 101 }))).toMatchObject({ status: 400, code: "INPUT_VALIDATION_ERROR" })
      expect(await balance(orgId)).toBe(before)
    }, 60_000)

    it("polls the publisher feeds as pg-boss jobs and records each poll", async () => {
      const { secret } = await service.key({ credits: 1_000 })
      await polled(clientOf(secret))
      // The poll is recorded after its articles are stored, and the job completed after that: both are waited for.
      const feeds = () => service.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ url: string; kind: string; ok: boolean; articles: number }>`SELECT url, kind, ok, articles FROM news_feed WHERE kind = 'publisher' AND url LIKE 'http://%.test/%' ORDER BY url`))
      await expect.poll(feeds, { timeout: 10_000 }).toEqual([
        { url: "http://daily.test/atom", kind: "publisher", ok: true, articles: 2 },
        { url: "http://wire.test/rss", kind: "publisher", ok: true, articles: 3 }
      ])
      // Each poll was a pg-boss job of the news-poll queue, one per feed (its URL the singleton key), completed.
      const jobs = () => service.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ url: string; state: string }>`SELECT data->>'url' AS url, state FROM ${sql(service.jobsSchema)}.job WHERE name = 'news-poll' AND created_on >= ${startedAt} ORDER BY 1`))
      await expect.poll(jobs, { timeout: 10_000 }).toEqual([{ url: "http://daily.test/atom", state: "completed" }, { url: "http://wire.test/rss", state: "completed" }])
    }, 60_000)
  })
}
