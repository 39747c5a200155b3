/**
 * Vitest global setup: provides `databaseUrl` to tests (`inject("databaseUrl")`), or null when PostgreSQL-backed tests
 * are to be skipped. `DATABASE_URL` wins; `SIFT_TEST_POSTGRES=off` disables; otherwise a local PostgreSQL cluster is
 * started and prepared by `scripts/postgres.mjs` when one exists.
 */
import type { TestProject } from "vitest/node"
// @ts-expect-error: a plain ESM script shared with CI, without type declarations
import { ensurePostgres } from "../../../../scripts/postgres.mjs"

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string | null
  }
}

const skip = (why: string) =>
  console.log(`[store] PostgreSQL-backed tests are skipped: ${why}. Set DATABASE_URL or run \`node scripts/postgres.mjs\`.`)

export default function setup(project: TestProject): void {
  const fromEnv = process.env.DATABASE_URL
  if (fromEnv !== undefined && fromEnv !== "") {
    project.provide("databaseUrl", fromEnv)
    return
  }
  if (process.env.SIFT_TEST_POSTGRES === "off") {
    project.provide("databaseUrl", null)
    skip("SIFT_TEST_POSTGRES=off")
    return
  }
  try {
    const result = ensurePostgres({ install: false }) as { url: string } | { skipped: string }
    if ("url" in result) {
      project.provide("databaseUrl", result.url)
    } else {
      project.provide("databaseUrl", null)
      skip(result.skipped)
    }
  } catch (error) {
    project.provide("databaseUrl", null)
    skip(`preparing the local cluster failed (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`)
  }
}
