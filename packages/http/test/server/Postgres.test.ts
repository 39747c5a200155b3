import { describe, expect, it } from "@effect/vitest"
import { inject } from "vitest"
import { fileURLToPath } from "node:url"
import * as path from "node:path"
import { spawnNode, startServer, stopServer } from "./support/process.js"

// The runtime alone, with a stand-in application; the real executable is covered in Sift.test.ts.
const databaseUrl = inject("databaseUrl")
const cli = path.join(path.dirname(fileURLToPath(import.meta.url)), "support/standInCli.ts")

describe.skipIf(databaseUrl === null)("two server processes on one PostgreSQL", () => {
  it("start together, report the postgres backend, and see each other's writes; the CLI goes to the database directly", async () => {
    const env = { DATABASE_URL: databaseUrl!, SIFT_DATA_DIR: "/nonexistent/never-used" }
    const [a, b] = await Promise.all([
      startServer({ entry: "standIn", args: ["--port", "0"], env }),
      startServer({ entry: "standIn", args: ["--port", "0"], env })
    ])
    try {
      expect(a.startLine).toMatchObject({ backend: "postgres", data_dir: null })
      expect(b.startLine).toMatchObject({ backend: "postgres", data_dir: null })
      const run = spawnNode([cli, "keys", "create", "--name", `pg-${Date.now()}`, "--json"], env)
      expect(await run.exited, run.stderr()).toBe(0)
      const created = JSON.parse(run.stdout())
      const statuses = await Promise.all([a.url, b.url].map((url) =>
        fetch(`${url}/v1/whoami`, { headers: { authorization: `Bearer ${created.secret}` } }).then((r) => r.status)
      ))
      expect(statuses).toEqual([200, 200])
    } finally {
      expect(await Promise.all([stopServer(a), stopServer(b)])).toEqual([0, 0])
    }
  })
})
