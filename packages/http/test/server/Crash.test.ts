import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { spawnNode, startServer, stopServer } from "./support/process.js"

// The runtime alone, with a stand-in application; the real executable is covered in Sift.test.ts.
const here = path.dirname(fileURLToPath(import.meta.url))
const cli = path.join(here, "support/standInCli.ts")

const siftJson = async (dir: string, args: ReadonlyArray<string>) => {
  const run = spawnNode([cli, ...args, "--json"], { SIFT_DATA_DIR: dir })
  expect(await run.exited, run.stderr()).toBe(0)
  return JSON.parse(run.stdout())
}

describe("a server killed with SIGKILL mid-request", () => {
  it("leaves a data directory that the CLI and a new server take over, with the database intact", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-crash-"))
    const server = await startServer({ entry: "standIn", args: ["--port", "0", "--data-dir", dir] })
    const created = await siftJson(dir, ["keys", "create", "--name", "before-crash"])
    const slow = fetch(`${server.url}/v1/slow?ms=5000`).then((r) => r.status, () => "aborted")
    await new Promise((r) => setTimeout(r, 300))
    server.child.kill("SIGKILL")
    expect(await server.exited).toBe("SIGKILL")
    expect(await slow).toBe("aborted")
    // The dead owner's files are still there.
    expect(fs.existsSync(path.join(dir, "sift.lock"))).toBe(true)
    expect(fs.existsSync(path.join(dir, "admin.json"))).toBe(true)

    // The CLI sees a stale lock, takes it over and opens the database itself.
    const listed = await siftJson(dir, ["keys", "list"])
    expect(listed.map((k: { id: string }) => k.id)).toEqual([created.key.id])

    const restarted = await startServer({ entry: "standIn", args: ["--port", "0", "--data-dir", dir] })
    try {
      expect(JSON.parse(fs.readFileSync(path.join(dir, "sift.lock"), "utf8")).pid).toBe(restarted.child.pid)
      const status = await fetch(`${restarted.url}/v1/whoami`, { headers: { authorization: `Bearer ${created.secret}` } })
      expect(status.status).toBe(200)
      const keys = await siftJson(dir, ["keys", "list"])
      expect(keys.map((k: { id: string }) => k.id)).toEqual([created.key.id])
    } finally {
      expect(await stopServer(restarted)).toBe(0)
    }
  })
})
