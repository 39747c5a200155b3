#!/usr/bin/env node
// `npm run bench -- <name> [args]` runs bench/<name>/run.ts with tsx; without a name it lists the benchmarks.
// `npm run bench -- all [--quick]` runs every benchmark in turn (with `--quick` each at a small size, a minute or two
// in all), prints the lines that state a target and whether each was met; a missed target is printed and the exit
// status stays 0 (machines are noisy), a benchmark that crashes or overruns its time makes it non-zero.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const names = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(here, entry.name, "run.ts")))
  .map((entry) => entry.name)
const [name, ...args] = process.argv.slice(2)
const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --conditions=@sift/source`.trim() }
const command = (bench, benchArgs) => [process.execPath, ["--import", "tsx", "--expose-gc", join(here, bench, "run.ts"), ...benchArgs]]

if (name === "all") process.exit(await all(args.includes("--quick")))
if (name === undefined || !names.includes(name)) {
  console.error(`usage: npm run bench -- <name> [args] | all [--quick]\nbenchmarks: ${names.join(", ")}`)
  process.exit(name === undefined ? 0 : 2)
}
const result = spawnSync(...command(name, args), { stdio: "inherit", env })
process.exit(result.status ?? 1)

/** Each benchmark's small size for `all --quick` (its own arguments); a benchmark missing here runs at its defaults. */
function quickArgs() {
  return {
    batch: ["--quick"],
    cluster: ["--quick"],
    console: ["--quick"],
    documents: ["1"],
    extraction: ["--limit", "40"],
    // Three rounds, their median: a single 2 s round read 0.15-0.22 on the same code (the machine's other work).
    http: ["--seconds", "2", "--rounds", "3", "--warmup", "1"],
    idle: ["--runs", "1"],
    map: ["1", "10000", "2"],
    markdown: ["40", "1"],
    mcp: ["--seconds", "1", "--rounds", "1"],
    memory: ["--scrapes", "300", "--warmup", "100"],
    metering: ["--loops", "200"],
    monitors: ["--monitors", "100", "--speed", "30"],
    naics: [],
    render: ["8", "2", "1"],
    "render-soak": ["40", "2"],
    "render-third-party": ["3", "1"],
    "screenshot-cache": ["3", "1"],
    "site-intelligence": ["--quick"],
    search: ["--quick"]
  }
}

/**
 * Whether a line stating a target says it was met: its own word (MET / MISSED, met / NOT met), else the number before
 * "(target" against the target's bound (>=, ≥, <=, ≤, <, >; "within N%": every percentage on the line). Undefined
 * when the line cannot tell.
 */
function verdict(line) {
  if (/\bMISSED\b|\bNOT met\b/.test(line)) return false
  if (/\bMET\b|\bmet\b/.test(line)) return true
  const at = line.search(/\(target/i)
  if (at < 0) return undefined
  // Counts of a setting ("at 8 concurrent", "concurrency 4") are not the figure measured.
  const before = line.slice(0, at).replace(/\bat \d+ concurrent\b|\bconcurrency \d+/g, "")
  const target = line.slice(at)
  const within = /within\s+([\d.]+)\s*%/.exec(target)
  if (within !== null) {
    const percents = [...before.matchAll(/(-?[\d.]+)\s*%/g)].map((m) => Math.abs(Number(m[1])))
    return percents.length === 0 ? undefined : percents.every((p) => p <= Number(within[1]))
  }
  const bound = /(>=|≥|<=|≤|<|>)\s*~?\s*([\d.,]+)/.exec(target)
  const values = [...before.matchAll(/(-?\d[\d,]*(?:\.\d+)?)/g)].map((m) => Number(m[1].replace(/,/g, "")))
  if (bound === null || values.length === 0 || /×|x\s*~/.test(target.slice(0, bound.index + 4))) return undefined
  const value = values[values.length - 1]
  const limit = Number(bound[2].replace(/,/g, ""))
  return { ">=": value >= limit, "≥": value >= limit, "<=": value <= limit, "≤": value <= limit, "<": value < limit, ">": value > limit }[bound[1]]
}

/** Runs every benchmark (each within `limitMs`), then prints the targets; 1 when any crashed or overran. */
async function all(quick) {
  const sizes = quick ? quickArgs() : {}
  const limitMs = quick ? 5 * 60_000 : 60 * 60_000
  const summary = []
  let crashed = 0
  const started = Date.now()
  for (const bench of names) {
    const benchArgs = sizes[bench] ?? []
    console.log(`\n=== bench ${bench} ${benchArgs.join(" ")}`)
    const t0 = Date.now()
    const { status, output, timedOut } = await runOne(bench, benchArgs, limitMs)
    const seconds = ((Date.now() - t0) / 1000).toFixed(0)
    const targets = output.split(/\r?\n|\r/).map((l) => l.trim()).filter((l) => /\btarget/i.test(l) && !/^\*|^\/\//.test(l))
    if (status !== 0) {
      crashed++
      summary.push(`${bench}: CRASHED (${timedOut ? `no end within ${limitMs / 60_000} min` : `exit ${status}`}, ${seconds} s)`)
      continue
    }
    if (targets.length === 0) summary.push(`${bench} (${seconds} s): ran to completion; states no target`)
    for (const line of targets) {
      const met = verdict(line)
      summary.push(`${bench} (${seconds} s): ${met === true ? "met    " : met === false ? "MISSED " : "see    "} ${line}`)
    }
  }
  console.log(`\n=== targets (${names.length} benchmarks, ${((Date.now() - started) / 60_000).toFixed(1)} min${quick ? ", quick sizes" : ""})`)
  for (const line of summary) console.log(line)
  console.log(crashed === 0 ? "every benchmark ran to completion (a missed target does not fail this run)" : `${crashed} benchmark(s) crashed`)
  return crashed === 0 ? 0 : 1
}

/** One benchmark as a child process: its output passed through and kept, killed (with its children) after `limitMs`. */
function runOne(bench, benchArgs, limitMs) {
  return new Promise((resolve) => {
    const child = spawn(...command(bench, benchArgs), { stdio: ["ignore", "pipe", "pipe"], env, detached: true })
    let output = ""
    const keep = (stream, sink) => stream.on("data", (chunk) => {
      output += chunk.toString()
      sink.write(chunk)
    })
    keep(child.stdout, process.stdout)
    keep(child.stderr, process.stderr)
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      try {
        process.kill(-child.pid, "SIGKILL")
      } catch {
        child.kill("SIGKILL")
      }
    }, limitMs)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      resolve({ status: code ?? (signal === null ? 1 : 128), output, timedOut })
    })
  })
}
