import * as Auth from "@sift/auth"
import { Effect } from "effect"
import { execFile, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { PassThrough } from "node:stream"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import { progressDisplay, readUrlList } from "../../src/internal/cli/batch.js"
import * as TestService from "../support/TestService.js"

const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url))

/** Runs the real `sift` executable (through tsx, on the sources) with its output piped, and collects what it wrote. */
const sift = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}, input?: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, ["--import", "tsx", "--conditions=@sift/source", bin, ...args], {
      env: { ...process.env, SIFT_ALLOW_PRIVATE_TARGETS: "true", SIFT_API_URL: undefined, SIFT_API_KEY: undefined, DATABASE_URL: undefined, ...env },
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024
    }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    })
    if (input !== undefined) child.stdin!.end(input)
  })

const doc = (title: string) => FixtureSite.html(`<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>About ${title}.</p></main></body></html>`)

let site: FixtureSite.Site
const held: Array<() => void> = []
/** Which of the held pages the batch has asked for: a page given up after its 30 s lets the next one start. */
const slowStarted = new Set<number>()
const made: Array<string> = []
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), "sift-batch-cli-"))
  made.push(dir)
  return dir
}

beforeAll(async () => {
  const routes: FixtureSite.Routes = {}
  for (let i = 1; i <= 6; i++) routes[`/p/${i}`] = doc(`Page ${i}`)
  // Pages that take 300 ms each: an embedded batch of them runs long enough to be killed.
  for (let i = 0; i < 40; i++) routes[`/later/${i}`] = (_req, res) => void setTimeout(() => doc(`Later ${i}`)(_req, res, undefined as never), 300)
  // Pages that answer only when the test lets them: a batch of 40 (read 4 at a time, each given up after the fetch's
  // 30 s) stays running for minutes, however slowly the CLI starts on a loaded machine.
  for (let i = 0; i < 40; i++) {
    routes[`/slow/${i}`] = (_req, res) => {
      slowStarted.add(i)
      held.push(() => res.writeHead(200, { "content-type": "text/html" }).end("<title>Slow</title><p>slow</p>"))
    }
  }
  site = await FixtureSite.start(routes)
})
afterAll(async () => {
  for (const release of held.splice(0)) release()
  await site?.close()
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

/** A URL list with plain lines, JSON lines with itemId and meta, a comment, a repeat and a page that is missing. */
const urlList = () => [
  "# pages",
  `${site.url}/p/1`,
  JSON.stringify({ url: `${site.url}/p/2`, itemId: "two", meta: { sku: 2 } }),
  "",
  `${site.url}/p/3`,
  `${site.url}/p/1`,
  `${site.url}/missing`
].join("\n")

const ndjson = (text: string) => text.trim().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))

describe("sift batch, embedded", () => {
  it("submit runs the batch here to completion with progress lines, then results, list and status read it back", async () => {
    const dataDir = temp()
    const file = join(dataDir, "urls.txt")
    writeFileSync(file, urlList())
    const env = { SIFT_DATA_DIR: join(dataDir, "data") }
    const submitted = await sift(["batch", "submit", file], env)
    expect(submitted.code, submitted.stderr).toBe(0)
    const batch = JSON.parse(submitted.stdout)
    expect(batch).toMatchObject({
      status: "completed",
      mode: "scrape",
      input: { submitted: 5, duplicates: 1, reserved: 4 },
      progress: { succeeded: 3, failed: 1, pending: 0 },
      page_errors: [{ code: "WEBSITE_ACCESS_ERROR", count: 1 }]
    })
    expect(batch.results.files.reduce((n: number, f: { items: number }) => n + f.items, 0)).toBe(4)
    // Not a terminal: plain progress lines on stderr, the last one final.
    expect(submitted.stderr).toContain(`${batch.id} queued: 4 pages, 1 duplicates dropped`)
    expect(submitted.stderr).toMatch(new RegExp(`${batch.id} completed: 3 succeeded, 1 failed, 0 pending; [0-9.]+ pages/s`))
    expect(submitted.stderr).not.toContain("\x1b[")

    const results = await sift(["batch", "results", batch.id], env)
    expect(results.code, results.stderr).toBe(0)
    const records = ndjson(results.stdout)
    expect(records.map((r) => r.url)).toEqual([`${site.url}/p/1`, `${site.url}/p/2`, `${site.url}/p/3`, `${site.url}/missing`])
    expect(records[0]).toMatchObject({ status: "ok", final_url: `${site.url}/p/1` })
    expect(records[0].markdown).toContain("# Page 1")
    expect(records[1]).toMatchObject({ status: "ok", itemId: "two", meta: { sku: 2 } })
    expect(records[3]).toMatchObject({ status: "error", error_code: "WEBSITE_ACCESS_ERROR" })
    expect(results.stderr).toContain("4 records")

    const listed = await sift(["batch", "list"], env)
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout.split("\t").slice(0, 4)).toEqual([batch.id, "completed", "scrape", "markdown"])
    const status = await sift(["batch", "status", batch.id], env)
    expect(JSON.parse(status.stdout)).toMatchObject({ id: batch.id, status: "completed", progress: { succeeded: 3, failed: 1 } })

    // A settled batch cannot be cancelled; an unknown one is not found: the code on stderr, exit 2.
    const cancel = await sift(["batch", "cancel", batch.id], env)
    expect(cancel.code).toBe(2)
    expect(cancel.stderr).toContain("error: BATCH_NOT_CANCELLABLE:")
    const missing = await sift(["batch", "status", "batch_0000000000000000"], env)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("error: NOT_FOUND:")
  }, 180_000)

  it("a run killed mid-batch leaves it to status --watch, which resumes it: every page recorded once", async () => {
    const dataDir = temp()
    const env = { SIFT_DATA_DIR: join(dataDir, "data") }
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@sift/source", bin, "batch", "submit", "--concurrency", "2", "-"], {
      env: { ...process.env, SIFT_ALLOW_PRIVATE_TARGETS: "true", SIFT_API_URL: undefined, SIFT_API_KEY: undefined, DATABASE_URL: undefined, ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stderr = ""
    child.stderr!.on("data", (chunk) => (stderr += chunk))
    const exited = new Promise<unknown>((resolve) => child.once("exit", (_code, signal) => resolve(signal)))
    child.stdin!.end(Array.from({ length: 40 }, (_, i) => `${site.url}/later/${i}\n`).join(""))
    // Killed once some pages are recorded and most are not.
    const deadline = Date.now() + 90_000
    while (!/running: [1-9]\d* succeeded/.test(stderr)) {
      if (Date.now() > deadline) throw new Error(`no progress: ${stderr}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    child.kill("SIGKILL")
    expect(await exited).toBe("SIGKILL")
    const id = /(batch_[0-9A-Za-z]+) queued/.exec(stderr)![1]!
    const before = JSON.parse((await sift(["batch", "status", id], env)).stdout)
    expect(before.status).toBe("running")
    expect(before.progress.pending).toBeGreaterThan(0)

    // The killed run's lease lapses (30 s), then this one works the batch to the end.
    const resumed = await sift(["batch", "status", id, "--watch"], env)
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "completed", progress: { succeeded: 40, failed: 0, pending: 0 } })
    const records = ndjson((await sift(["batch", "results", id], env)).stdout)
    expect(records.map((r) => r.url)).toEqual(Array.from({ length: 40 }, (_, i) => `${site.url}/later/${i}`))
    expect(records.every((r, i) => r.status === "ok" && r.markdown.includes(`# Later ${i}`))).toBe(true)
  }, 240_000)

  it("reads the list from stdin, in HTML with --format html", async () => {
    const dataDir = temp()
    const env = { SIFT_DATA_DIR: join(dataDir, "data") }
    const submitted = await sift(["batch", "submit", "--format", "html", "--tag", "stdin", "-"], env, `${site.url}/p/4\n${site.url}/p/5\n`)
    expect(submitted.code, submitted.stderr).toBe(0)
    const batch = JSON.parse(submitted.stdout)
    expect(batch).toMatchObject({ status: "completed", format: "html", tags: ["stdin"], progress: { succeeded: 2, failed: 0 } })
    const records = ndjson((await sift(["batch", "results", batch.id], env)).stdout)
    expect(records.map((r) => r.html.includes("<h1>Page 4</h1>") || r.html.includes("<h1>Page 5</h1>"))).toEqual([true, true])
  }, 120_000)

  it("refuses bad input with its error code and exit 2, creating nothing", async () => {
    const dataDir = temp()
    const env = { SIFT_DATA_DIR: join(dataDir, "data") }
    const badJson = await sift(["batch", "submit", "-"], env, `${site.url}/p/1\n{"url": "${site.url}/p/2", "extra": 1}\n`)
    expect(badJson.code).toBe(2)
    expect(badJson.stderr).toMatch(/error: INPUT_VALIDATION_ERROR: stdin line 2: .*extra/)
    const notJson = await sift(["batch", "submit", "-"], env, `{"url": \n`)
    expect(notJson.code).toBe(2)
    expect(notJson.stderr).toContain("stdin line 1: not JSON")
    const tooMany = join(dataDir, "many.txt")
    writeFileSync(tooMany, Array.from({ length: 25_001 }, (_, i) => `${site.url}/p/${i}`).join("\n"))
    const over = await sift(["batch", "submit", tooMany], env)
    expect(over.code).toBe(2)
    expect(over.stderr).toContain("at most 25,000 URLs")
    const hook = await sift(["batch", "submit", "--webhook", "https://hooks.example/", "-"], env, `${site.url}/p/1\n`)
    expect(hook.code).toBe(2)
    expect(hook.stderr).toContain("webhooks are delivered by a server")
    const both = await sift(["batch", "submit", "--webhook", "https://hooks.example/", "--webhook-url", "https://hooks.example/", "-"], env, `${site.url}/p/1\n`)
    expect(both.code).toBe(2)
    expect(both.stderr).toContain("cannot be combined with webhook")
    // Nothing was submitted, and a read on a data directory without a database creates none.
    const listed = await sift(["batch", "list"], env)
    expect(listed.code).toBe(2)
    expect(listed.stderr).toContain("DATA_DIR_NOT_FOUND")
  }, 180_000)
})

describe("sift batch --api (against a server)", () => {
  let service: TestService.TestService
  beforeAll(async () => {
    service = await TestService.start()
  })
  afterAll(async () => {
    await service?.close()
  })
  const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))

  it("submits, watches, reads results and lists through the API, charging the pages that succeeded", async () => {
    const { secret, orgId } = await service.key()
    const before = (await balance(orgId)).remaining
    const dir = temp()
    const file = join(dir, "urls.txt")
    writeFileSync(file, urlList())
    const api = ["--api", service.baseUrl.replace(/\/v1$/, ""), "--key", secret]
    const submitted = await sift(["batch", "submit", file, "--idempotency-key", "cli-1", "--watch", ...api])
    expect(submitted.code, submitted.stderr).toBe(0)
    const batch = JSON.parse(submitted.stdout)
    expect(batch).toMatchObject({ status: "completed", progress: { succeeded: 3, failed: 1, pending: 0 }, credits: { reserved: 4, refunded: 1, net: 3 } })
    expect(submitted.stderr).toContain("4 credits reserved")
    expect((await balance(orgId)).remaining).toBe(before - 3)

    // The same key and body: the original batch, nothing charged again.
    const again = await sift(["batch", "submit", file, "--idempotency-key", "cli-1"], { SIFT_API_URL: service.baseUrl, SIFT_API_KEY: secret })
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout).id).toBe(batch.id)
    expect((await balance(orgId)).remaining).toBe(before - 3)

    const results = await sift(["batch", "results", batch.id, ...api])
    expect(results.code, results.stderr).toBe(0)
    const records = ndjson(results.stdout)
    const viaApi = await (await fetch(`${service.baseUrl}/batch/${batch.id}/results?limit=100`, { headers: { authorization: `Bearer ${secret}` } })).json()
    expect(records).toEqual(viaApi.data)
    expect(records.length).toBe(4)

    const listed = await sift(["batch", "list", "--json", ...api])
    expect(JSON.parse(listed.stdout).data.map((b: { id: string }) => b.id)).toEqual([batch.id])
  }, 180_000)

  it("answers the API's errors with their codes and exit 2: results too early, unknown ids, no key; cancel of a running batch", async () => {
    const { secret } = await service.key()
    const api = ["--api", service.baseUrl, "--key", secret]
    const slow = Array.from({ length: 40 }, (_, i) => `${site.url}/slow/${i}\n`).join("")
    const submitted = await sift(["batch", "submit", ...api, "-"], {}, slow)
    expect(submitted.code, submitted.stderr).toBe(0)
    const { id } = JSON.parse(submitted.stdout)
    const early = await sift(["batch", "results", id, ...api])
    expect(early.code, early.stdout + early.stderr).toBe(2)
    expect(early.stderr).toContain("error: BATCH_NOT_COMPLETED:")
    const cancelled = await sift(["batch", "cancel", id, ...api])
    expect(cancelled.code, cancelled.stderr).toBe(0)
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ id, status: "cancelling" })
    // The pages in flight finish, then the batch settles as cancelled.
    for (const release of held.splice(0)) release()
    const watched = await sift(["batch", "status", id, "--watch", ...api])
    expect(watched.code, watched.stderr).toBe(0)
    const final = JSON.parse(watched.stdout)
    expect(final.status).toBe("cancelled")
    // Pages never started are skipped and refunded: the batch read 4 at a time, and on a loaded machine a held page
    // may have been given up after 30 s before the cancel, letting another start; so count what the site was asked.
    const started = slowStarted.size
    expect(started).toBeGreaterThanOrEqual(4)
    expect(started).toBeLessThan(40)
    expect(final.progress.pending).toBe(40 - started)
    expect(final.progress.succeeded + final.progress.failed).toBe(started)
    expect(final.credits.refunded).toBe(40 - final.progress.succeeded)

    const missing = await sift(["batch", "status", "batch_0000000000000000", ...api])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("error: NOT_FOUND:")
    const keyless = await sift(["batch", "list", "--api", service.baseUrl])
    expect(keyless.code).toBe(2)
    expect(keyless.stderr).toContain("error: UNAUTHORIZED: --api")
  }, 180_000)

  it("sift crawl --api crawls on the server (POST /v1/web/crawl), one JSON line per page", async () => {
    const { secret } = await service.key()
    site.route("/home", FixtureSite.html(`<html><head><title>Home</title></head><body><a href="/p/1">one</a> <a href="/p/2">two</a></body></html>`))
    const crawled = await sift(["crawl", `${site.url}/home`, "--depth", "1", "--api", service.baseUrl, "--key", secret])
    expect(crawled.code, crawled.stderr).toBe(0)
    const lines = ndjson(crawled.stdout)
    expect(lines.map((l) => l.url).sort()).toEqual([`${site.url}/home`, `${site.url}/p/1`, `${site.url}/p/2`])
    expect(lines.find((l) => l.url === `${site.url}/p/2`)).toMatchObject({ status: "ok", depth: 1, title: "Page 2" })
    expect(crawled.stderr).toContain("3 pages read, 0 failed")
    expect(crawled.stderr).toContain("3 credits")
    const html = await sift(["crawl", `${site.url}/home`, "--format", "html", "--api", service.baseUrl, "--key", secret])
    expect(html.code).toBe(2)
    expect(html.stderr).toContain("INPUT_VALIDATION_ERROR")
  }, 120_000)
})

describe("the progress display", () => {
  const sink = (tty: boolean) => {
    let text = ""
    const stream = Object.assign(new PassThrough(), { isTTY: tty, columns: 160 })
    stream.on("data", (chunk) => (text += chunk))
    return { stream: stream as unknown as NodeJS.WriteStream, text: () => text }
  }

  it("draws a bar with done/total, failed, pending, rate and ETA on a terminal", async () => {
    const out = sink(true)
    const display = progressDisplay("batch_x", out.stream)
    display.update("running", { succeeded: 1, failed: 0, pending: 9 })
    await new Promise((r) => setTimeout(r, 250))
    display.update("running", { succeeded: 5, failed: 1, pending: 4 })
    display.stop()
    expect(out.text()).toContain("\x1b[")
    expect(out.text()).toMatch(/batch_x running .* 6\/10 pages \| 1 failed \| 4 pending \| [0-9.]+\/s \| ETA /)
  })

  it("writes plain lines when not a terminal: a changed state at most every interval, and always the final one", () => {
    const out = sink(false)
    const display = progressDisplay("batch_y", out.stream, 60_000)
    display.update("running", { succeeded: 1, failed: 0, pending: 3 })
    display.update("running", { succeeded: 2, failed: 0, pending: 2 })
    display.update("completed", { succeeded: 3, failed: 1, pending: 0 })
    const lines = out.text().trim().split("\n")
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^batch_y running: 1 succeeded, 0 failed, 3 pending; [0-9.]+ pages\/s/)
    expect(lines[1]).toMatch(/^batch_y completed: 3 succeeded, 1 failed, 0 pending; /)
    expect(out.text()).not.toContain("\x1b[")
  })
})

describe("reading a URL list", () => {
  it("takes URLs and JSON lines, skips blanks and comments, and names the line of a mistake", () => {
    const read = (text: string) => Effect.runSync(Effect.either(readUrlList(text, "list.txt")))
    const both = read("# c\nhttps://a.test/\n\n{\"url\":\"https://b.test/\",\"itemId\":\"b\",\"meta\":{\"n\":1}}\n")
    expect(both._tag === "Right" && both.right).toEqual([{ url: "https://a.test/" }, { url: "https://b.test/", itemId: "b", meta: { n: 1 } }])
    const twoOnALine = read("https://a.test/ https://b.test/")
    expect(twoOnALine._tag === "Left" && twoOnALine.left.message).toContain("list.txt line 1: one URL a line")
    const noUrl = read("{\"itemId\":\"x\"}")
    expect(noUrl._tag === "Left" && noUrl.left.message).toMatch(/list\.txt line 1: .*url/)
    const empty = read("# nothing\n")
    expect(empty._tag === "Left" && empty.left.errorCode).toBe("INPUT_VALIDATION_ERROR")
  })
})
