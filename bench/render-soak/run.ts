/**
 * 300 renders in a row in one process through the same browser pool: most succeed, every 10th times out in the
 * middle of navigation (the server sends half a page and stalls), every 10th (offset) crashes its page
 * (`chrome://crash`, opened straight on the pool). After the first 30 and at the end it prints the Chromium process
 * count, the Chromium RSS and this process's RSS; the end must be within 15% of the first reading and no page or
 * context may be left open.
 *
 * `npm run bench -- render-soak [renders] [concurrency]` (defaults 300, 4).
 */
import { Effect, Exit, Layer, ManagedRuntime } from "effect"
import { execFileSync } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as BrowserPool from "../../packages/core/src/BrowserPool.js"
import * as Cache from "../../packages/core/src/Cache.js"
import * as Fetcher from "../../packages/core/src/Fetcher.js"
import * as Pipeline from "../../packages/core/src/Pipeline.js"
import * as Renderer from "../../packages/core/src/Renderer.js"

const [total = 300, concurrency = 4] = process.argv.slice(2).map(Number)

const server = createServer((req, res) => {
  const path = (req.url ?? "/").split("?")[0]!
  if (path === "/stall") {
    res.writeHead(200, { "content-type": "text/html" })
    res.write("<html><body><h1>Half a page</h1>")
    return // never ends
  }
  if (path === "/app.js") {
    return res.writeHead(200, { "content-type": "text/javascript" })
      .end(`document.getElementById("root").innerHTML = "<h1>Soak</h1><p>" + "tide ".repeat(200) + "</p>"`)
  }
  res.writeHead(200, { "content-type": "text/html" })
    .end(`<html><head><script src="/app.js" defer></script></head><body><div id="root"></div></body></html>`)
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

const pool = BrowserPool.layer({ size: concurrency, addressPolicy: (ip) => ip === "127.0.0.1" })
const runtime = ManagedRuntime.make(Layer.mergeAll(
  Fetcher.layer({ allowPrivateTargets: true }),
  Cache.layerNone,
  Layer.effect(Renderer.Renderer, Renderer.make).pipe(Layer.provideMerge(pool))
))

/** Chromium processes below this process, and their summed RSS in MB. */
const chromium = () => {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,rss=,stat=,comm="], { encoding: "utf8" }).trim().split("\n")
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, rss, stat, comm]) => ({ pid: Number(pid), ppid: Number(ppid), rss: Number(rss), zombie: stat?.startsWith("Z") ?? false, comm: comm ?? "" }))
  const mine = new Set([process.pid])
  for (let grew = true; grew;) {
    grew = false
    for (const row of rows) if (!mine.has(row.pid) && mine.has(row.ppid)) mine.add(row.pid), grew = true
  }
  const procs = rows.filter((row) => mine.has(row.pid) && /chrom/i.test(row.comm))
  const live = procs.filter((p) => !p.zombie)
  return { count: live.length, zombies: procs.length - live.length, rssMb: live.reduce((n, p) => n + p.rss, 0) / 1024 }
}
const reading = () => {
  globalThis.gc?.()
  const c = chromium()
  // Crashed renderers stay as zombies of Chromium's zygote (no memory, a process-table entry): counted apart.
  return { processes: c.count, zombies: c.zombies, chromiumRssMb: Math.round(c.rssMb), serverRssMb: Math.round(process.memoryUsage().rss / 1048576) }
}

const outcomes = { ok: 0, timedOut: 0, crashed: 0, other: 0 }
const one = async (i: number) => {
  if (i % 10 === 7) {
    // A page that crashes: the pool must still close its context and free the slot.
    const exit = await runtime.runPromiseExit(Effect.scoped(Effect.gen(function*() {
      const lease = yield* (yield* BrowserPool.BrowserPool).context({ viewport: { width: 800, height: 600 } })
      const page = yield* Effect.promise(() => lease.context.newPage())
      // Held until Chromium reports the crash, as a render that crashes mid-load is.
      const crashed = page.waitForEvent("crash", { timeout: 5_000 }).catch(() => undefined)
      yield* Effect.promise(() => page.goto("chrome://crash").then(() => "no crash", (e: Error) => e.message))
      yield* Effect.promise(() => crashed)
    })))
    return void (Exit.isSuccess(exit) ? outcomes.crashed++ : outcomes.other++)
  }
  const stall = i % 10 === 3
  const exit = await runtime.runPromiseExit(Pipeline.scrape({
    url: stall ? `${base}/stall?${i}` : `${base}/p${i}`,
    formats: { markdown: true },
    sharedParams: { viewport: { width: 1280, height: 800 }, waitFor: 0 },
    timeoutOpts: { milliseconds: stall ? 1_500 : 30_000 }
  }))
  if (Exit.isSuccess(exit) && exit.value.markdown.data?.includes("Soak")) outcomes.ok++
  else if (Exit.isFailure(exit) && stall && JSON.stringify(exit.cause).includes("RequestTimeout")) outcomes.timedOut++
  else outcomes.other++
}

const runRange = async (from: number, to: number) => {
  let next = from
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < to; i = next++) await one(i)
  }))
}

const started = performance.now()
await runRange(0, 30)
const first = reading()
console.log(`after 30: ${JSON.stringify(first)}`)
await runRange(30, total)
// Chromium reaps the renderers of closed contexts asynchronously.
await new Promise((resolve) => setTimeout(resolve, 5_000))
const last = reading()
if (process.env.SOAK_DEBUG) console.log(execFileSync("sh", ["-c", `ps -eo pid,ppid,etimes,args | grep -i chrom | grep -v grep | sed -E 's/--(enable|disable)-[^ ]+//g' | cut -c1-200`], { encoding: "utf8" }))
const stats = await runtime.runPromise(Effect.flatMap(BrowserPool.BrowserPool, (p) => p.stats))
console.log(`after ${total}: ${JSON.stringify(last)}; pool ${JSON.stringify(stats)}; outcomes ${JSON.stringify(outcomes)}; ${((performance.now() - started) / 1000).toFixed(0)} s`)
const within = (a: number, b: number) => b <= a * 1.15
console.log(`render-soak: live processes ${first.processes} → ${last.processes} (zombies ${first.zombies} → ${last.zombies}), chromium RSS ${first.chromiumRssMb} → ${last.chromiumRssMb} MB, ` +
  `server RSS ${first.serverRssMb} → ${last.serverRssMb} MB; leaked pages ${stats.openPages}, contexts ${stats.openContexts}, guard proxies ${stats.openGuardProxies}; ` +
  `${within(first.processes, last.processes) && within(first.serverRssMb, last.serverRssMb) && stats.openPages === 0 && stats.openContexts === 0 && stats.openGuardProxies === 0 ? "MET" : "MISSED"} (target: processes and server RSS within 15%, nothing leaked)`)
await runtime.dispose()
server.close()
