import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { spawnNode, startServer, stopServer } from "./support/process.js"

// The runtime alone, with a stand-in application; the real executable is covered in Sift.test.ts.
const here = path.dirname(fileURLToPath(import.meta.url))
const cli = path.join(here, "support/standInCli.ts")

const sift = async (dir: string, args: ReadonlyArray<string>) => {
  const run = spawnNode([cli, ...args], { SIFT_DATA_DIR: dir })
  const code = await run.exited
  return { code, stdout: run.stdout(), stderr: run.stderr() }
}

const siftJson = async (dir: string, args: ReadonlyArray<string>) => {
  const result = await sift(dir, [...args, "--json"])
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout)
}

const whoami = (url: string, secret: string) =>
  fetch(`${url}/v1/whoami`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.status)

describe("sift keys / sift orgs", () => {
  it("work without a server (the CLI opens the database) and with one running on the same data directory (admin channel)", { timeout: 240_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-keys-"))

    // No server: the command opens the data directory itself, and releases it.
    const offline = await siftJson(dir, ["keys", "create", "--name", "offline", "--plan", "hobby"])
    expect(offline.secret).toMatch(/^sift_sk_/)
    expect(offline.org).toMatchObject({ name: "offline", plan: "hobby" })
    expect(offline.org_created).toBe(true)
    expect(fs.existsSync(path.join(dir, "sift.lock"))).toBe(false)

    const server = await startServer({ entry: "standIn", args: ["--port", "0", "--data-dir", dir] })
    try {
      expect(await whoami(server.url, offline.secret)).toBe(200)
      const endpointFile = path.join(dir, "admin.json")
      expect(fs.statSync(endpointFile).mode & 0o777).toBe(0o600)
      const endpoint = JSON.parse(fs.readFileSync(endpointFile, "utf8"))
      expect(endpoint.pid).toBe(server.child.pid)
      expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)

      // Server running: the same commands go through its admin channel (PGlite cannot be opened twice).
      const online = await siftJson(dir, ["keys", "create", "--name", "online", "--org", "acme", "--zdr"])
      expect(online.org).toMatchObject({ name: "acme", zdr: true })
      expect(await whoami(server.url, online.secret)).toBe(200)
      const again = await siftJson(dir, ["keys", "create", "--name", "second", "--org", online.org.id])
      expect(again.org_created).toBe(false)
      expect(again.org.id).toBe(online.org.id)

      const keys = await siftJson(dir, ["keys", "list", "--org", "acme"])
      expect(keys.map((k: { name: string }) => k.name)).toEqual(["online", "second"])
      expect(JSON.stringify(keys)).not.toContain("sift_sk_")

      const text = await sift(dir, ["keys", "revoke", online.key.id])
      expect(text.code, text.stderr).toBe(0)
      expect(text.stdout).toContain(`Revoked ${online.key.id}`)
      expect(await whoami(server.url, online.secret)).toBe(401)

      expect((await siftJson(dir, ["orgs", "set-plan", "acme", "scale"])).plan).toBe("scale")
      const created = await siftJson(dir, ["orgs", "create", "--name", "beta"])
      expect((await siftJson(dir, ["orgs", "enable-zdr", created.id])).zdr).toBe(true)
      const orgs = await siftJson(dir, ["orgs", "list"])
      expect(orgs.map((o: { name: string }) => o.name)).toEqual(["acme", "beta", "offline"])

      const missing = await sift(dir, ["keys", "revoke", "key_nope"])
      expect(missing.code).toBe(2)
      expect(missing.stderr).toContain("NOT_FOUND")

      // The channel wants the token.
      const forged = await fetch(`${endpoint.url}/_admin/listOrgs`, { method: "POST", headers: { authorization: "Bearer x" }, body: "{}" })
      expect(forged.status).toBe(401)
    } finally {
      expect(await stopServer(server)).toBe(0)
    }
    expect(fs.existsSync(path.join(dir, "admin.json"))).toBe(false)

    // Server gone: direct access again, and it sees what the server wrote.
    const after = await siftJson(dir, ["keys", "list"])
    expect(after.map((k: { name: string }) => k.name)).toEqual(["offline", "online", "second"])
    expect(after.find((k: { name: string }) => k.name === "online").revoked_at).not.toBeNull()
  })
})
