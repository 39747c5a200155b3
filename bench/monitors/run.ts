/**
 * bench/monitors: 1,000 page monitors on local pages at 10-minute intervals in one Sift process (embedded PGlite, the
 * real scheduler, pg-boss workers, Fetcher and change detection). After the baseline runs of creation, it watches one
 * whole interval (the second, [10 min, 20 min) after creation): every monitor's slot falls in it once; the bench
 * reports how many runs completed per minute (target: no minute above 3× the mean), how late runs started and
 * finished after their slot (target: all inside the window), that no monitor had two runs in one interval (runs are
 * counted by the slot they were queued for), and the process RSS: after creating the monitors, and while they run (the
 * watched interval; target under 400 MB, issue 24). The process also holds the bench's origin, its client and tsx
 * (the service runs from sources), which a `sift serve` does not.
 *
 * Time runs `--speed` times faster than the wall clock (the service's Clock is replaced; the database and pg-boss keep
 * real time, which only matters for their own timeouts), so the default run takes 20 / 4 = 5 minutes.
 *
 *   npm run bench -- monitors [--monitors 1000] [--speed 4] [--concurrency 4]
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { parseArgs } from "node:util"
import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Duration, Effect } from "effect"
import { startService } from "../support/service.js"

const { values } = parseArgs({
  options: {
    monitors: { type: "string", default: "1000" },
    speed: { type: "string", default: "4" },
    concurrency: { type: "string", default: "4" }
  }
})
const count = Number(values.monitors)
const speed = Number(values.speed)
process.env.SIFT_MONITOR_CONCURRENCY = values.concurrency
process.env.SIFT_MONITOR_TICK_MS = "5000"

const INTERVAL_MS = 10 * 60_000

// A clock `speed` times faster than the wall clock, from now.
const realStart = Date.now()
const simulated = () => realStart + (Date.now() - realStart) * speed
const fastClock: Clock.Clock = {
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => Math.floor(simulated()),
  currentTimeMillis: Effect.sync(() => Math.floor(simulated())),
  unsafeCurrentTimeNanos: () => BigInt(Math.floor(simulated() * 1e6)),
  currentTimeNanos: Effect.sync(() => BigInt(Math.floor(simulated() * 1e6))),
  sleep: (duration: Duration.Duration) => Effect.sleep(Duration.millis(Duration.toMillis(duration) / speed)).pipe(Effect.withClock(Clock.make()))
}

// Local pages: one per monitor, whose text changes every few runs so some runs find changes.
const origin = createServer((req, res) => {
  const n = Number(/\/p\/(\d+)/.exec(req.url ?? "")?.[1] ?? 0)
  const epoch = Math.floor(simulated() / (25 * 60_000))
  res.writeHead(200, { "content-type": "text/html" }).end(
    `<html><head><title>Page ${n}</title></head><body><main><h1>Page ${n}</h1>` +
      `<p>Stock level ${(n * 7 + epoch) % 13} units. Updated in period ${epoch}.</p>` +
      "<p>Some stable paragraph of text about the product and its uses.</p>".repeat(10) + `</main></body></html>`
  )
})
await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve))
const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`

const service = await startService("monitors", { clock: fastClock })
const rss: Array<{ at: number; bytes: number }> = []
const sampler = setInterval(() => rss.push({ at: simulated(), bytes: process.memoryUsage().rss }), 1000)
try {
  const created = simulated()
  console.log(`creating ${count} monitors (10-minute interval) at ${speed}× speed …`)
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${service.origin}/v1/monitors`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `m${i}`, target: { type: "page", url: `${originUrl}/p/${i}` }, schedule: { type: "interval", frequency: 10, unit: "minutes" } })
    })
    if (res.status !== 200) throw new Error(`create failed: ${res.status} ${await res.text()}`)
  }
  const rssAfterCreate = process.memoryUsage().rss
  const windowStart = created + INTERVAL_MS
  const windowEnd = windowStart + INTERVAL_MS
  const query = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => service.runtime.runPromise(effect as Effect.Effect<A, never, never>)
  // Wait for the window to pass plus a minute for the last runs.
  for (;;) {
    const now = simulated()
    const done = await query(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ status: string; n: string | number }>`SELECT status, count(*) AS n FROM monitor_runs GROUP BY status`))
    const line = done.map((r) => `${r.status} ${r.n}`).join(", ")
    process.stdout.write(`\r  t = ${((now - created) / 60_000).toFixed(1)} min simulated: ${line}        `)
    if (now > windowEnd + 60_000) break
    await new Promise((r) => setTimeout(r, 2_000))
  }
  console.log()
  const runs = await query(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ monitor_id: string; run_type: string; status: string; queued_at: Date; slot_at: Date; started_at: Date | null; completed_at: Date | null; change_detected: boolean }>`
      SELECT monitor_id, run_type, status, queued_at, slot_at, started_at, completed_at, change_detected FROM monitor_runs WHERE trigger = 'schedule'`))
  // A run belongs to the window of its slot (the tick that queues it may come a few seconds later).
  const inWindow = runs.filter((r) => {
    const t = new Date(r.slot_at).getTime()
    return t >= windowStart && t < windowEnd
  })
  const perMonitor = new Map<string, number>()
  for (const r of inWindow) perMonitor.set(r.monitor_id, (perMonitor.get(r.monitor_id) ?? 0) + 1)
  const twice = [...perMonitor.values()].filter((n) => n > 1).length
  // Any two scheduled runs of one monitor closer than one interval (less the 5 s between ticks), over the whole run.
  const byMonitor = new Map<string, Array<number>>()
  for (const r of runs) byMonitor.set(r.monitor_id, [...(byMonitor.get(r.monitor_id) ?? []), new Date(r.queued_at).getTime()])
  const crowded = [...byMonitor.values()].filter((times) => {
    times.sort((a, b) => a - b)
    return times.some((t, i) => i > 0 && t - times[i - 1]! < INTERVAL_MS - 5_000 * speed)
  }).length
  const perMinute = new Array(10).fill(0) as Array<number>
  let lateStart = 0
  let lateFinish = 0
  let finishedInside = 0
  const lags: Array<number> = []
  for (const r of inWindow) {
    if (r.completed_at === null) continue
    const done = new Date(r.completed_at).getTime()
    const minute = Math.floor((done - windowStart) / 60_000)
    if (minute >= 0 && minute < 10) perMinute[minute]++
    if (done < windowEnd) finishedInside++
    const lag = done - new Date(r.queued_at).getTime()
    lags.push(lag)
    if (r.started_at !== null && new Date(r.started_at).getTime() - new Date(r.queued_at).getTime() > 60_000) lateStart++
    if (lag > 60_000) lateFinish++
  }
  lags.sort((a, b) => a - b)
  const completed = inWindow.filter((r) => r.status === "completed").length
  const mean = completed / 10
  const peak = Math.max(...perMinute)
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`
  console.log(`runs due in the window [10 min, 20 min): ${inWindow.length} of ${count} monitors; completed ${completed}; failed ${inWindow.filter((r) => r.status === "failed").length}; with a change ${inWindow.filter((r) => r.change_detected).length}`)
  console.log(`completed inside the window: ${finishedInside}; started > 60 s after their slot: ${lateStart}; finished > 60 s after: ${lateFinish}`)
  console.log(`lag slot → completed: p50 ${(lags[Math.floor(lags.length / 2)] ?? 0) / 1000} s, p99 ${(lags[Math.floor(lags.length * 0.99)] ?? 0) / 1000} s, max ${(lags[lags.length - 1] ?? 0) / 1000} s (simulated)`)
  console.log(`completions per minute: ${perMinute.join(" ")}; mean ${mean.toFixed(1)}, peak ${peak} = ${(peak / Math.max(mean, 1e-9)).toFixed(2)}× the mean (target ≤ 3×) ${peak <= 3 * mean ? "MET" : "MISSED"}`)
  console.log(`monitors with two slots in the window: ${twice}; with two runs queued less than an interval apart: ${crowded} (target 0) ${twice === 0 && crowded === 0 ? "MET" : "MISSED"}`)
  console.log(`every monitor's slot in the window: ${perMonitor.size} of ${count} (target all) ${perMonitor.size === count ? "MET" : "MISSED"}`)
  const running = rss.filter((sample) => sample.at >= windowStart && sample.at < windowEnd).map((sample) => sample.bytes)
  console.log(`RSS: after creating ${mb(rssAfterCreate)}, peak ${mb(Math.max(...rss.map((sample) => sample.bytes)))}, end ${mb(process.memoryUsage().rss)}`)
  console.log(`RSS while ${count} monitors run (the watched interval): median ${mb([...running].sort((a, b) => a - b)[Math.floor(running.length / 2)]!)}, peak ${mb(Math.max(...running))} (target < 400 MB)`)
} finally {
  clearInterval(sampler)
  await service.close()
  origin.close()
}
