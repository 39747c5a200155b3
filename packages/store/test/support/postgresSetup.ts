/**
 * Vitest global setup: provides `databaseUrl` to tests (`inject("databaseUrl")`), or null when PostgreSQL-backed tests
 * are to be skipped. `DATABASE_URL` wins; `SIFT_TEST_POSTGRES=off` disables; otherwise a local PostgreSQL cluster is
 * started and prepared by `scripts/postgres.mjs` when one exists.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Redacted } from "effect"
import type { TestProject } from "vitest/node"
import * as Sql from "../../src/Sql.js"
// @ts-expect-error: a plain ESM script shared with CI, without type declarations
import { ensurePostgres } from "../../../../scripts/postgres.mjs"

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string | null
    /** This run's id in the names of its job-queue schemas (`jobsSchema` in backends.ts). */
    jobsRun: string
  }
}

const skip = (why: string) =>
  console.log(`[store] PostgreSQL-backed tests are skipped: ${why}. Set DATABASE_URL or run \`node scripts/postgres.mjs\`.`)

/**
 * Drops the job-queue schemas (`pgboss_r<pid>_w<worker>`) of runs for which `done` holds: this run's at its end, and
 * those of runs whose process is gone (killed before their teardown) at the start.
 */
const dropJobSchemas = (url: string, done: (pid: number) => boolean) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const schemas = yield* sql<{ name: string }>`SELECT nspname AS name FROM pg_namespace WHERE nspname ~ '^pgboss_r[0-9]+_w[0-9]+$'`
    for (const { name } of schemas) {
      if (done(Number(/^pgboss_r(\d+)_/.exec(name)![1]))) yield* sql`DROP SCHEMA IF EXISTS ${sql(name)} CASCADE`
    }
  })).pipe(Effect.provide(Sql.layerPg({ url: Redacted.make(url) })))).catch((error) =>
    console.log(`[store] job-queue schemas of test runs were not dropped: ${error instanceof Error ? error.message : String(error)}`))

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  project.provide("jobsRun", String(process.pid))
  const url = provideUrl(project)
  if (url === null) return
  await dropJobSchemas(url, (pid) => !alive(pid))
  return () => dropJobSchemas(url, (pid) => pid === process.pid)
}

/** Provides `databaseUrl` (null when PostgreSQL-backed tests are skipped) and returns it. */
const provideUrl = (project: TestProject): string | null => {
  const fromEnv = process.env.DATABASE_URL
  if (fromEnv !== undefined && fromEnv !== "") {
    project.provide("databaseUrl", fromEnv)
    return fromEnv
  }
  if (process.env.SIFT_TEST_POSTGRES === "off") {
    project.provide("databaseUrl", null)
    skip("SIFT_TEST_POSTGRES=off")
    return null
  }
  try {
    const result = ensurePostgres({ install: false }) as { url: string } | { skipped: string }
    if ("url" in result) {
      project.provide("databaseUrl", result.url)
      return result.url
    }
    project.provide("databaseUrl", null)
    skip(result.skipped)
  } catch (error) {
    project.provide("databaseUrl", null)
    skip(`preparing the local cluster failed (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`)
  }
  return null
}
