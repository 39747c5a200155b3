#!/usr/bin/env node
/**
 * A local PostgreSQL for the storage tests. From the command line (CI):
 *
 *   export DATABASE_URL="$(node scripts/postgres.mjs)"
 *
 * starts the local cluster if it is stopped (installing the `postgresql` Debian package first when missing and running
 * as root), creates the `sift_test` role and database if missing, and prints the connection URL on stdout (diagnostics
 * go to stderr). The vitest global setup imports `ensurePostgres` with `install: false`.
 */
import { execFileSync } from "node:child_process"
import { pathToFileURL } from "node:url"

const ROLE = "sift_test"

const log = (line) => process.stderr.write(`postgres: ${line}\n`)

const run = (command, args, options = {}) =>
  execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...options })

const has = (command) => {
  try {
    run("sh", ["-c", `command -v ${command}`])
    return true
  } catch {
    return false
  }
}

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0

/** Clusters from `pg_lsclusters`: version, name, port, status. */
export const listClusters = () => {
  if (!has("pg_lsclusters")) return []
  return run("pg_lsclusters", ["--no-header"])
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [version, name, port, status] = line.trim().split(/\s+/)
      return { version, name, port: Number(port), status }
    })
}

const psql = (port, sql) =>
  run("su", ["postgres", "-c", `psql -v ON_ERROR_STOP=1 -qtAX -p ${port} -c ${JSON.stringify(sql)}`])

const installPostgres = () => {
  log("PostgreSQL is not installed; installing the postgresql package with apt-get")
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  execFileSync("apt-get", ["update"], { stdio: ["ignore", 2, 2], env })
  execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "postgresql"], { stdio: ["ignore", 2, 2], env })
}

/**
 * Makes sure a local cluster runs and holds the `sift_test` role and database; returns its URL, or a reason why not.
 *
 * @param {{ install?: boolean }} options install the Debian package when missing (root only)
 * @returns {{ url: string } | { skipped: string }}
 */
export const ensurePostgres = ({ install = false } = {}) => {
  let clusters = listClusters()
  if (clusters.length === 0 && install) {
    if (!isRoot() || !has("apt-get")) {
      return { skipped: "PostgreSQL is not installed: install it with `apt-get install postgresql` (as root)" }
    }
    installPostgres()
    clusters = listClusters()
  }
  if (clusters.length === 0) {
    return { skipped: "no local PostgreSQL cluster (pg_lsclusters found none); run `node scripts/postgres.mjs` as root" }
  }
  if (!isRoot()) {
    return { skipped: "starting the local PostgreSQL cluster needs root; run `node scripts/postgres.mjs` as root" }
  }
  // Prefer the newest running cluster, else the newest one.
  const sorted = [...clusters].sort((a, b) => Number(b.version) - Number(a.version))
  const cluster = sorted.find((c) => c.status === "online") ?? sorted[0]
  if (cluster.status !== "online") {
    log(`starting cluster ${cluster.version}/${cluster.name} on port ${cluster.port}`)
    run("pg_ctlcluster", [cluster.version, cluster.name, "start"])
  }
  const roleExists = psql(cluster.port, `SELECT 1 FROM pg_roles WHERE rolname = '${ROLE}'`).trim() === "1"
  if (!roleExists) psql(cluster.port, `CREATE ROLE ${ROLE} LOGIN PASSWORD '${ROLE}'`)
  const dbExists = psql(cluster.port, `SELECT 1 FROM pg_database WHERE datname = '${ROLE}'`).trim() === "1"
  if (!dbExists) psql(cluster.port, `CREATE DATABASE ${ROLE} OWNER ${ROLE}`)
  return { url: `postgres://${ROLE}:${ROLE}@127.0.0.1:${cluster.port}/${ROLE}` }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    const result = ensurePostgres({ install: true })
    if ("url" in result) {
      process.stdout.write(`${result.url}\n`)
    } else {
      log(result.skipped)
      process.exitCode = 1
    }
  } catch (error) {
    log(`failed: ${error instanceof Error ? error.message : String(error)}`)
    if (error && typeof error === "object" && "stderr" in error && error.stderr) log(String(error.stderr).trim())
    process.exitCode = 1
  }
}
