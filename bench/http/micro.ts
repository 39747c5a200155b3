/**
 * The request pipeline's own cost per cache hit, without sockets or a load generator: requests are handed to the
 * listener as Node request/response objects in this process, 32 at a time, and the main thread's CPU time per
 * request is read from /proc (Linux). A request ends once its charge and log row are journaled; the database is written
 * behind (PGlite's thread is not measured). Not part of `npm run bench -- http`; for finding costs:
 *
 *   node --import tsx bench/http/micro.ts [requests] [cpu.cpuprofile] [heap.heapprofile]
 *
 * (without `--conditions=@sift/source` the packages' built JavaScript runs, so profiles have line numbers). Each round
 * also prints every thread's CPU per request (PGlite's thread, V8's helpers). `MICRO_SQL` is run on the service's
 * database before measuring (to try a setting); `MICRO_POSTGRES` (a URL) runs it on PostgreSQL instead of PGlite.
 */
import http from "node:http"
import { Socket } from "node:net"
import { syncBuiltinESMExports } from "node:module"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
let captured: http.Server | undefined
const original = http.createServer
;(http as any).createServer = (...args: Array<any>) => (captured = (original as any)(...args))
syncBuiltinESMExports()
const { startOrigin, startService } = await import("../support/service.js")
const { threadTicks } = await import("./threads.js")
const origin = await startOrigin()
const service = await startService("http-micro", process.env.MICRO_POSTGRES === undefined ? {} : { postgres: process.env.MICRO_POSTGRES })
const path = process.env.MICRO_PATH ?? `/v1/web/scrape/markdown?url=${encodeURIComponent(origin.url)}`
const one = () => new Promise<string>((resolve) => {
  const socket = new Socket()
  const req = new http.IncomingMessage(socket)
  req.url = path
  req.method = "GET"
  req.headers = { authorization: `Bearer ${service.secret}`, host: "127.0.0.1", "user-agent": "micro" }
  Object.defineProperty(socket, "remoteAddress", { value: "127.0.0.1" })
  req.push(null)
  const res = new http.ServerResponse(req)
  const end = res.end.bind(res)
  ;(res as any).end = (...args: Array<any>) => { const r = end(...args); resolve(String(args[0]).slice(0, 60)); return r }
  captured!.emit("request", req, res)
})
const flush = () => new Promise((r) => setTimeout(r, 80))
// The database writer is given time to keep up (its thread is not measured), so its queue never grows.
const batch = async (n: number) => { for (let i = 0; i < n; i += 32) { await Promise.all(Array.from({ length: 32 }, one)); if (i % 320 === 0) await flush() } }
if (process.env.MICRO_SQL) {
  const SqlClient = await import("@effect/sql/SqlClient")
  const { Effect } = await import("effect")
  await service.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(process.env.MICRO_SQL!)) as any)
}
console.log(await one())
await batch(20_000)
// The main thread's ticks (the service's own work); the others' are printed by thread too.
const mainTicks = () => threadTicks().get("main")!.total
const N = Number(process.argv[2] ?? 30_000)
for (let r = 0; r < 3; r++) {
  const threads0 = threadTicks(); const t0 = mainTicks(); const w0 = performance.now(); const o0 = (globalThis as any).__ops ?? 0; const c0 = process.cpuUsage()
  await batch(N)
  const c = process.cpuUsage(c0)
  console.log(`main thread ${((mainTicks() - t0) * 10_000 / N).toFixed(0)} µs CPU per request (all threads ${((c.user + c.system) / N).toFixed(0)} µs); wall ${((performance.now() - w0) * 1000 / N).toFixed(0)} µs${(globalThis as any).__ops === undefined ? "" : `; effect ops ${((((globalThis as any).__ops ?? 0) - o0) / N).toFixed(0)} per request`}`)
  const threads1 = threadTicks()
  console.log("  by thread (µs per request): " + [...threads1].map(([name, ticks]) => [name, (ticks.total - (threads0.get(name)?.total ?? 0)) * 10_000 / N] as const)
    .filter(([, us]) => us >= 1).sort((a, b) => b[1] - a[1]).map(([name, us]) => `${name} ${us.toFixed(0)}`).join(", "))
}
if (process.argv[4]) {
  const session = new Session(); session.connect()
  await session.post("HeapProfiler.enable"); await session.post("HeapProfiler.startSampling", { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: process.env.MICRO_PROMOTED === undefined } as any)
  await batch(N)
  const { profile } = await session.post("HeapProfiler.stopSampling")
  writeFileSync(process.argv[4], JSON.stringify(profile))
}
if (process.argv[3]) {
  const session = new Session(); session.connect()
  await session.post("Profiler.enable"); await session.post("Profiler.start")
  await batch(N)
  const { profile } = await session.post("Profiler.stop")
  writeFileSync(process.argv[3], JSON.stringify(profile))
}
await service.close()
origin.close()
process.exit(0)
