/**
 * A CPU profile of the service answering bench/http's request, with the load generator in another process so the
 * profile is the server's alone; also the main thread's CPU time per request (from /proc, so neighbours on the machine
 * count less than in wall-clock figures). Not part of `npm run bench -- http`; run:
 *
 *   node --import tsx bench/http/profile.ts [seconds] [out.cpuprofile]
 *
 * (without `--conditions=@sift/source` the packages' built JavaScript runs, so the profile has line numbers).
 */
import { execFile } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { startOrigin, startService } from "../support/service.js"

const seconds = Number(process.argv[2] ?? "5")
const out = process.argv[3] ?? "http.cpuprofile"
const origin = await startOrigin()
const service = await startService("http-profile")
const path = `/v1/web/scrape/markdown?url=${encodeURIComponent(origin.url)}`
const load = (s: number) =>
  new Promise<number>((resolve, reject) =>
    execFile(process.execPath, [new URL("./loadgen.mjs", import.meta.url).pathname, service.origin, path, service.secret, String(s)], (error, stdout) =>
      error ? reject(error) : resolve(Number(stdout))))
// Linux only: user + system ticks (10 ms) of this process's main thread.
const mainThreadTicks = () => {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return Number(fields[11]) + Number(fields[12])
}
await load(3)
const ticks = mainThreadTicks()
const requests = await load(seconds)
console.log(`${(requests / seconds).toFixed(0)} req/s; main thread ${((mainThreadTicks() - ticks) * 10_000 / requests).toFixed(0)} µs CPU per request`)
const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.start")
await load(seconds)
const { profile } = await session.post("Profiler.stop")
writeFileSync(out, JSON.stringify(profile))
console.log(`profile: ${out}`)
await service.close()
origin.close()
