/**
 * Like profile.ts, but with the load generator in this process, as bench/http runs it: requests/s, CPU per request of
 * every thread (main, V8's helpers, PGlite's), and a CPU profile. Not part of `npm run bench -- http`:
 *
 *   node --import tsx bench/http/profile-inproc.ts [seconds] [out.cpuprofile]
 */
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { Pool } from "undici"
import { startOrigin, startService } from "../support/service.js"
const seconds = Number(process.argv[2] ?? "5")
const out = process.argv[3] ?? "http.cpuprofile"
const origin = await startOrigin()
const service = await startService("http-profile")
const path = `/v1/web/scrape/markdown?url=${encodeURIComponent(origin.url)}`
const headers = { authorization: `Bearer ${service.secret}` }
const load = async (s: number) => {
  const pool = new Pool(service.origin, { connections: 32, pipelining: 1 })
  let count = 0
  const end = performance.now() + s * 1000
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (performance.now() < end) {
      const response = await pool.request({ path, method: "GET", headers })
      await response.body.arrayBuffer()
      count++
    }
  }))
  await pool.close()
  return count
}
import { readdirSync, readFileSync } from "node:fs"
const threads = () => new Map(readdirSync("/proc/self/task").map((tid) => {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8")
  const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))
  const f = stat.split(") ")[1]!.split(" ")
  return [`${tid} ${name}`, Number(f[11]) + Number(f[12])] as const
}))
await load(3)
const t0 = threads()
const cpu0 = process.cpuUsage()
const n = await load(seconds)
const cpu = process.cpuUsage(cpu0)
console.log(`${(n / seconds).toFixed(0)} req/s; process CPU ${((cpu.user + cpu.system) / n).toFixed(0)} µs per request`)
for (const [k, v] of threads()) { const d = v - (t0.get(k) ?? 0); if (d > 0) console.log(`  thread ${k}: ${(d * 10_000 / n).toFixed(0)} µs per request`) }
const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.start")
await load(seconds)
const { profile } = await session.post("Profiler.stop")
writeFileSync(out, JSON.stringify(profile))
await service.close()
origin.close()
