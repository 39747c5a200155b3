/**
 * Linux only: CPU ticks (10 ms) of each of this process's threads, in all (user + system) and in the kernel (system),
 * keyed "main" for the main thread and by thread id for the others (PGlite's worker, V8's helpers, libuv's pool).
 * A thread that ended while being read is left out. Shared by bench/http/profile.ts and micro.ts.
 */
import { readdirSync, readFileSync } from "node:fs"

export const threadTicks = (): Map<string, { readonly total: number; readonly system: number }> =>
  new Map(readdirSync("/proc/self/task").flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ")
      const system = Number(fields[12])
      return [[tid === String(process.pid) ? "main" : tid, { total: Number(fields[11]) + system, system }] as const]
    } catch {
      return []
    }
  }))
