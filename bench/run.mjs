#!/usr/bin/env node
// `npm run bench -- <name> [args]` runs bench/<name>/run.ts with tsx; without a name it lists the benchmarks.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const names = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(here, entry.name, "run.ts")))
  .map((entry) => entry.name)
const [name, ...args] = process.argv.slice(2)
if (name === undefined || !names.includes(name)) {
  console.error(`usage: npm run bench -- <name> [args]\nbenchmarks: ${names.join(", ")}`)
  process.exit(name === undefined ? 0 : 2)
}
const result = spawnSync(process.execPath, ["--import", "tsx", "--expose-gc", join(here, name, "run.ts"), ...args], {
  stdio: "inherit",
  env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --conditions=@sift/source`.trim() }
})
process.exit(result.status ?? 1)
