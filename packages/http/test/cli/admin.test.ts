/**
 * `sift keys`, `sift orgs` and `sift users` through the real executable, run from a working directory of the test's own: read
 * commands never create a data directory (they say which one they looked at), a command that creates one says where,
 * and `sift orgs update` gives an organization credits, a request limit, a plan or ZDR, validated, both directly on
 * the store and through a running server's admin channel.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import { startServer, stopServer } from "../server/support/process.js"

const root = fileURLToPath(new URL("../../../../", import.meta.url))
const bin = path.join(root, "packages/http/src/bin.ts")
const tsx = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href

/** Runs the real `sift` (sources through tsx) in `cwd`, without SIFT_DATA_DIR or DATABASE_URL unless given. */
const sift = (cwd: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const base: Record<string, string | undefined> = { ...process.env, SIFT_ALLOW_PRIVATE_TARGETS: "true", DATABASE_URL: "" }
    delete base.SIFT_DATA_DIR
    const child = spawn(process.execPath, ["--conditions=@sift/source", "--import", tsx, bin, ...args], {
      cwd,
      env: { ...base, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code: code ?? 1, stdout, stderr })
    })
  })

const siftJson = async (cwd: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const run = await sift(cwd, [...args, "--json"], env)
  expect(run.code, run.stderr).toBe(0)
  return JSON.parse(run.stdout)
}

const made: Array<string> = []
const tempDir = (name: string) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `sift-${name}-`)))
  made.push(dir)
  return dir
}

let site: FixtureSite.Site
beforeAll(async () => {
  site = await FixtureSite.start({ "/": FixtureSite.html("<h1>Credited page</h1><p>Worth one credit.</p>") })
})
afterAll(() => {
  site.close()
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

describe("the CLI's data directory", () => {
  it("read commands run where there is no database fail, name the directory and how to point elsewhere, and create nothing", { timeout: 240_000 }, async () => {
    const cwd = tempDir("nowhere")
    // They open nothing, so they may run side by side.
    const commands = [["orgs", "list"], ["keys", "revoke", "key_x"], ["orgs", "update", "acme", "--credits", "5"]]
    const runs = await Promise.all(commands.map((args) => sift(cwd, args)))
    for (const [i, run] of runs.entries()) {
      expect(run.code, commands[i]!.join(" ")).toBe(2)
      expect(run.stdout).toBe("")
      expect(run.stderr).toContain(`error: DATA_DIR_NOT_FOUND: no Sift database in ${path.join(cwd, ".sift")}`)
      expect(run.stderr).toContain("SIFT_DATA_DIR")
      expect(run.stderr).toContain("DATABASE_URL")
      expect(fs.readdirSync(cwd)).toEqual([])
    }
    // The same with SIFT_DATA_DIR pointing at an empty directory: it is named, and left empty.
    const empty = path.join(cwd, "elsewhere")
    fs.mkdirSync(empty)
    const run = await sift(cwd, ["orgs", "list"], { SIFT_DATA_DIR: empty })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`no Sift database in ${empty} `)
    expect(fs.readdirSync(empty)).toEqual([])
  })

  it("keys create on a new data directory says on stderr which directory it created; then the read commands find it", { timeout: 240_000 }, async () => {
    const cwd = tempDir("fresh")
    const first = await sift(cwd, ["keys", "create", "--name", "laptop", "--plan", "scale"])
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toMatch(/sift_sk_[A-Za-z0-9]{40}/)
    expect(first.stderr).toContain(`note: created a new Sift database in ${path.join(cwd, ".sift")}`)
    expect(first.stderr).toContain(`SIFT_DATA_DIR=${path.join(cwd, ".sift")}`)
    const second = await sift(cwd, ["keys", "create", "--name", "desktop", "--org", "laptop"])
    expect(second.code, second.stderr).toBe(0)
    expect(second.stderr).toBe("")
    const orgs = await siftJson(cwd, ["orgs", "list"])
    expect(orgs.map((o: { name: string }) => o.name)).toEqual(["laptop"])
  })

  it("users create adds a person to an organization for the web console and prints the one-time link; a taken email is refused", { timeout: 240_000 }, async () => {
    const cwd = tempDir("users")
    const key = await sift(cwd, ["keys", "create", "--name", "team", "--plan", "scale"])
    expect(key.code, key.stderr).toBe(0)
    const made = await sift(cwd, ["users", "create", "ada@lanterns.example", "--org", "team"], { SIFT_PUBLIC_URL: "https://sift.example/" })
    expect(made.code, made.stderr).toBe(0)
    expect(made.stdout).toMatch(/^Created ada@lanterns\.example \(owner\) in \S+ {2}team$/m)
    expect(made.stdout).toMatch(/^ {2}https:\/\/sift\.example\/#\/set-password\?token=\S+$/m)
    const member = await siftJson(cwd, ["users", "create", "bea@lanterns.example", "--org", "team", "--role", "member"])
    expect(member).toMatchObject({ email: "bea@lanterns.example", role: "member", org: { name: "team" } })
    expect(member.link).toMatch(/^http:\/\/127\.0\.0\.1:3002\/#\/set-password\?token=\S+$/)
    const taken = await sift(cwd, ["users", "create", "ada@lanterns.example", "--org", "team"])
    expect(taken.code).not.toBe(0)
    expect(taken.stderr).toContain("already has an account")
  })
})

describe("sift orgs update", () => {
  it("gives an enterprise organization credits and a request limit (and plan, ZDR), validated; directly and through a running server", { timeout: 480_000 }, async () => {
    const cwd = tempDir("update")
    const created = await siftJson(cwd, ["keys", "create", "--name", "big", "--org", "bigcorp", "--plan", "enterprise"])
    expect(created.org).toMatchObject({ plan: "enterprise", credits_remaining: 0, credits_per_cycle: 0, requests_per_minute: 1000 })

    // Bad input: exit 2, the contract's code, and nothing changed.
    const invalid: Array<[ReadonlyArray<string>, string]> = [
      [["--plan", "gold"], "plan: one of free, hobby, starter, pro, scale, enterprise"],
      [["--credits", "-5"], "credits: a whole number from 0 to 1000000000000"],
      [["--rpm", "2.5"], "rpm: a whole number of requests per minute from 1 to 1000000"],
      [["--zdr", "maybe"], `zdr: on or off, not "maybe"`],
      [[], "nothing to update: give a plan, credits, rpm or zdr"]
    ]
    // Refused before the database opens, so they may run side by side.
    const refused = await Promise.all(invalid.map(([flags]) => sift(cwd, ["orgs", "update", "bigcorp", ...flags])))
    for (const [i, [flags, message]] of invalid.entries()) {
      expect(refused[i]!.code, flags.join(" ")).toBe(2)
      expect(refused[i]!.stderr.trim()).toBe(`error: INPUT_VALIDATION_ERROR: ${message}`)
    }
    const unknown = await sift(cwd, ["orgs", "update", "nocorp", "--credits", "5"])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr.trim()).toBe("error: NOT_FOUND: no organization nocorp")

    // Directly on the store (no server): by name.
    const direct = await siftJson(cwd, ["orgs", "update", "bigcorp", "--credits", "100", "--rpm", "50", "--zdr", "on"])
    expect(direct).toMatchObject({ id: created.org.id, plan: "enterprise", zdr: true, credits_remaining: 100, credits_per_cycle: 100, requests_per_minute: 50 })
    const text = await sift(cwd, ["orgs", "list"])
    expect(text.stdout).toContain(`${created.org.id}  bigcorp  plan enterprise  active  ZDR  credits 100 of 100  50 req/min`)

    // Through the running server's admin channel: by id; the key then spends what it was given.
    const server = await startServer({ args: ["--port", "0"], env: { SIFT_DATA_DIR: path.join(cwd, ".sift"), SIFT_ALLOW_PRIVATE_TARGETS: "true" } })
    try {
      const scrape = () =>
        fetch(`${server.url}/v1/web/scrape/markdown?url=${encodeURIComponent(`${site.url}/`)}`, { headers: { authorization: `Bearer ${created.secret}` } })
      const first = await scrape()
      expect(first.status).toBe(200)
      expect(((await first.json()) as any).key_metadata.credits_remaining).toBe(99)

      const online = await siftJson(cwd, ["orgs", "update", created.org.id, "--credits", "1", "--zdr", "off"])
      expect(online).toMatchObject({ credits_remaining: 1, credits_per_cycle: 1, requests_per_minute: 50, zdr: false })
      const badOnline = await sift(cwd, ["orgs", "update", created.org.id, "--credits", "-1"])
      expect([badOnline.code, badOnline.stderr.trim()]).toEqual([2, "error: INPUT_VALIDATION_ERROR: credits: a whole number from 0 to 1000000000000"])
      // The admin channel validates on its own too (it takes JSON from anyone holding its token).
      const endpoint = JSON.parse(fs.readFileSync(path.join(cwd, ".sift", "admin.json"), "utf8"))
      const forged = await fetch(`${endpoint.url}/_admin/updateOrg`, {
        method: "POST",
        headers: { authorization: `Bearer ${endpoint.token}` },
        body: JSON.stringify({ org: created.org.id, credits: -3 })
      })
      expect(forged.status).toBe(400)
      expect(await forged.json()).toMatchObject({ error_code: "INPUT_VALIDATION_ERROR" })

      await new Promise((r) => setTimeout(r, 2_100)) // the authentication cache holds an organization for 2 s
      const last = await scrape()
      expect(last.status).toBe(200)
      expect(((await last.json()) as any).key_metadata.credits_remaining).toBe(0)
      const spent = await scrape()
      expect(spent.status).toBe(403)
      expect(((await spent.json()) as { error_code: string }).error_code).toBe("USAGE_EXCEEDED")

      // A plan change brings the plan's limits and starts its cycle; limits given with it apply on top.
      const moved = await siftJson(cwd, ["orgs", "update", "bigcorp", "--plan", "pro"])
      expect(moved).toMatchObject({ plan: "pro", credits_remaining: 200_000, credits_per_cycle: 200_000, requests_per_minute: 300 })
      const both = await siftJson(cwd, ["orgs", "update", "bigcorp", "--plan", "enterprise", "--credits", "5000"])
      expect(both).toMatchObject({ plan: "enterprise", credits_remaining: 5000, credits_per_cycle: 5000, requests_per_minute: 1000 })
      // `orgs set-plan` does the same as `--plan`.
      const setPlan = await siftJson(cwd, ["orgs", "set-plan", "bigcorp", "scale"])
      expect(setPlan).toMatchObject({ plan: "scale", credits_remaining: 2_500_000, credits_per_cycle: 2_500_000, requests_per_minute: 800 })
    } finally {
      expect(await stopServer(server)).toBe(0)
    }
  })
})
