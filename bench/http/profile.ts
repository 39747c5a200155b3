/**
 * A CPU profile of the service answering bench/http's request, and the CPU time per request of each thread (from
 * /proc, so neighbours on the machine count less than in wall-clock figures: the main thread, V8's helpers, PGlite's).
 * By default the load generator runs in another process, so the profile is the server's alone; `--in-process` runs it
 * in this process, as bench/http does. Not part of `npm run bench -- http`; run:
 *
 *   node --import tsx bench/http/profile.ts [seconds] [out.cpuprofile] [--in-process]
 *
 * With PROFILE_POSTGRES set to a DATABASE_URL, the service runs on PostgreSQL (a schema of its own) instead of PGlite,
 * and the CPU its connections' backends used is printed too. PROFILE_SNAPSHOT=file also writes a heap snapshot taken
 * under load; PROFILE_SURVIVORS=file a sampling heap profile of the allocations no young collection freed (promoted to
 * the old generation), or with PROFILE_LIVE set, of those still reachable at its end. PROFILE_PATH replaces the path.
 *
 * (without `--conditions=@sift/source` the packages' built JavaScript runs, so the profile has line numbers).
 */
import { execFile } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { Pool } from "undici"
import { threadTicks } from "./threads.js"
import { startOrigin, startService } from "../support/service.js"

const args = process.argv.slice(2).filter((arg) => arg !== "--in-process")
const inProcess = process.argv.includes("--in-process")
const seconds = Number(args[0] ?? "5")
const out = args[1] ?? "http.cpuprofile"
const origin = await startOrigin()
const service = await startService("http-profile", process.env.PROFILE_POSTGRES === undefined ? {} : { postgres: process.env.PROFILE_POSTGRES })
const path = process.env.PROFILE_PATH ?? `/v1/web/scrape/markdown?url=${encodeURIComponent(origin.url)}`

/** Runs the load for `s` seconds; resolves to the number of requests answered. */
const load = async (s: number): Promise<number> => {
  if (!inProcess) {
    return new Promise<number>((resolve, reject) =>
      execFile(process.execPath, [new URL("./loadgen.mjs", import.meta.url).pathname, service.origin, path, service.secret, String(s)], (error, stdout) =>
        error ? reject(error) : resolve(Number(stdout))))
  }
  const pool = new Pool(service.origin, { connections: 32, pipelining: 1 })
  const headers = { authorization: `Bearer ${service.secret}` }
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

// Linux only: user + system ticks of each PostgreSQL backend of `sift_test` (the pool's, and any other's on the machine).
const backendTicks = () =>
  new Map(readdirSync("/proc").filter((pid) => /^\d+$/.test(pid)).flatMap((pid) => {
    try {
      if (!/^postgres: (?:[^:]+: )?sift_test /.test(readFileSync(`/proc/${pid}/cmdline`, "utf8"))) return []
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
      return [[pid, Number(fields[11]) + Number(fields[12])] as const]
    } catch {
      return []
    }
  }))

await load(3)
const before = threadTicks()
const backendsBefore = backendTicks()
const requests = await load(seconds)
const backendsAfter = backendTicks()
console.log(`${(requests / seconds).toFixed(0)} req/s (load generator ${inProcess ? "in this process" : "in its own process"})`)
for (const [thread, ticks] of threadTicks()) {
  const used = ticks.total - (before.get(thread)?.total ?? 0)
  const system = ticks.system - (before.get(thread)?.system ?? 0)
  if (used > 0) console.log(`  thread ${thread}: ${(used * 10_000 / requests).toFixed(0)} µs CPU per request (${(system * 10_000 / requests).toFixed(0)} in the kernel)`)
}
if (process.env.PROFILE_POSTGRES !== undefined) {
  // Backends there before and after the load (the pool's connections; a test's short-lived ones elsewhere are not).
  let used = 0
  for (const [pid, ticks] of backendsAfter) used += ticks - (backendsBefore.get(pid) ?? ticks)
  console.log(`  PostgreSQL backends: ${(used * 10_000 / requests).toFixed(0)} µs CPU per request`)
}
const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.start")
await load(seconds)
const { profile } = await session.post("Profiler.stop")
writeFileSync(out, JSON.stringify(profile))
console.log(`profile: ${out}`)
if (process.env.PROFILE_SNAPSHOT !== undefined) {
  // A heap snapshot taken under load (after its own full collection): what is still reachable then, requests included.
  const { createWriteStream } = await import("node:fs")
  const file = createWriteStream(process.env.PROFILE_SNAPSHOT)
  session.on("HeapProfiler.addHeapSnapshotChunk", (message) => file.write(message.params.chunk))
  const loading = load(4)
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  await session.post("HeapProfiler.takeHeapSnapshot", { reportProgress: false })
  file.end()
  await loading
  console.log(`snapshot: ${process.env.PROFILE_SNAPSHOT}`)
}
if (process.env.PROFILE_SURVIVORS !== undefined) {
  // A sampling heap profile of what outlives young collections (promoted to the old generation, or still live): the
  // allocations that make scavenges slow and major collections frequent.
  await session.post("HeapProfiler.enable")
  await session.post("HeapProfiler.startSampling", { samplingInterval: 512, includeObjectsCollectedByMajorGC: process.env.PROFILE_LIVE === undefined, includeObjectsCollectedByMinorGC: false } as any)
  const counted = await load(seconds)
  const { profile: heap } = await session.post("HeapProfiler.stopSampling")
  writeFileSync(process.env.PROFILE_SURVIVORS, JSON.stringify(heap))
  console.log(`survivors: ${process.env.PROFILE_SURVIVORS} (${counted} requests)`)
}
await service.close()
origin.close()
