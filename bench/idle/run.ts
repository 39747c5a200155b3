/**
 * bench/idle: the resident memory of `sift serve` before any work (issue 24, item 1), as `npm start` runs it: the
 * built server (packages/http/dist, made by `npm install`; from sources through tsx when it is missing, which costs
 * tsx's own memory and is said), embedded PGlite in a new data directory, every default on. Each run starts a fresh
 * process, waits for `/ready` (a new data directory is initialised first), then reads its RSS from /proc every second
 * for `--settle` seconds (no Chromium runs before the first render). Start-up leaves garbage that V8 collects once the
 * process has been idle a while, so the figure is the RSS at the end (idle), with the highest seen on the way.
 * Baseline, same run: a bare `node:http` server's RSS (the Node runtime alone).
 * Target: the median idle RSS under 250 MB.
 *
 *   npm run bench -- idle [--runs 3] [--settle 60]
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { allocatorEnv } from "../support/allocator.js"

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" }, settle: { type: "string", default: "60" } } })
const runs = Number(values.runs)
const settleMs = Number(values.settle) * 1000
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const built = path.join(root, "packages/http/dist/bin.js")
const fromSources = !fs.existsSync(built)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const rssMb = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024
}

/**
 * Runs `args` with node until the address it says it listens on (a free port, so no other process can answer for it)
 * answers `path`, then samples its RSS for the settle time: the last and the highest, MB.
 */
const measure = async (args: ReadonlyArray<string>, env: Record<string, string>, path: string, settleMs: number): Promise<{ last: number; peak: number }> => {
  // Without NODE_OPTIONS: `npm run bench` adds a source condition that `npm start` does not have.
  const { NODE_OPTIONS: _, ...inherited } = process.env
  // The allocator settings `npm start` starts the server with; the bare server gets them too.
  const child = spawn(process.execPath, [...args], { env: { ...inherited, ...allocatorEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000))
  child.stdout.on("data", keep)
  child.stderr.on("data", keep)
  try {
    const deadline = Date.now() + 120_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${output}`)
      if (Date.now() > deadline) throw new Error(`no answer at ${path} within 120 s: ${output}`)
      const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1]
      const ok = origin !== undefined && await fetch(`${origin}${path}`).then((r) => r.ok, () => false)
      if (ok) break
      await sleep(250)
    }
    let peak = 0
    let last = 0
    for (const end = Date.now() + settleMs; Date.now() < end;) {
      await sleep(1000)
      last = rssMb(child.pid!)
      peak = Math.max(peak, last)
    }
    return { last, peak }
  } finally {
    child.kill("SIGTERM")
    await new Promise((resolve) => child.exitCode !== null ? resolve(undefined) : child.once("exit", resolve))
  }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const bareSource = `const s = require("node:http").createServer((q, r) => r.end("ok")).listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + s.address().port))`
const bare: Array<number> = []
const sift: Array<number> = []
const peaks: Array<number> = []
console.log(`bench/idle: ${runs} runs, RSS read each second for ${settleMs / 1000} s after /ready; ${fromSources ? "from sources through tsx (no build found: run npm install)" : "the built server"}; load ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`)
for (let i = 0; i < runs; i++) {
  bare.push((await measure(["-e", bareSource], {}, "/", 3000)).last)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-bench-idle-"))
  try {
    const entry = fromSources ? ["--conditions=@sift/source", "--import", "tsx", path.join(root, "packages/http/src/bin.ts")] : [built]
    const { last, peak } = await measure([...entry, "serve"], { SIFT_DATA_DIR: dataDir, SIFT_PORT: "0", SIFT_LOG_LEVEL: "info" }, "/ready", settleMs)
    sift.push(last)
    peaks.push(peak)
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  console.log(`run ${i + 1}: bare node:http ${bare[i]!.toFixed(0)} MB; sift serve ${sift[i]!.toFixed(0)} MB idle, ${peaks[i]!.toFixed(0)} MB at most since ready`)
}
console.log(`bare node:http idle RSS, median: ${median(bare).toFixed(0)} MB`)
console.log(`sift serve, highest RSS from ready to idle, median: ${median(peaks).toFixed(0)} MB`)
console.log(`sift serve idle RSS on a new PGlite data directory, median of ${runs}: ${median(sift).toFixed(0)} MB (target < 250 MB)`)
