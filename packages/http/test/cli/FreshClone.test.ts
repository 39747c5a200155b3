/**
 * The README's set-up, run as written on a fresh clone of this repository's HEAD (commit before running it): the
 * set-up line `npm install && npm start`, then `npx sift --help` and the README's `npx sift keys create ...` while
 * the server runs, a scrape and `GET /v1/logs` with that key, `/health` and `/ready`; after the server stopped,
 * `npx sift orgs list` finds the key's organization. Slow (a full install and build), so it runs only under CI=true.
 * It uses its own port (SIFT_PORT) and data directory (the clone's ./.sift), and removes both its processes and the
 * clone.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import { freePort } from "../support/freePort.js"

const root = fileURLToPath(new URL("../../../../", import.meta.url))
const runs = process.env.CI === "true"

/** The lines of the first ```sh block after `heading` in the README, without their trailing comments. */
const readmeLines = (heading: string): Array<string> => {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
  const section = readme.slice(readme.indexOf(heading))
  const block = /```sh\n([\s\S]*?)```/.exec(section)
  if (block === null) throw new Error(`no sh block under ${heading} in README.md`)
  return block[1]!.split("\n").map((line) => line.replace(/\s+#.*$/, "").trim()).filter((line) => line !== "")
}

interface Shell {
  readonly child: ChildProcess
  /** stdout and stderr as they came. */
  readonly output: () => string
  readonly stdout: () => string
  readonly exited: Promise<number | string>
}

/** Runs a shell line in its own process group (so the whole tree can be stopped), collecting its output. */
const shell = (line: string, cwd: string, env: NodeJS.ProcessEnv): Shell => {
  const child = spawn("bash", ["-c", line], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  let stdout = ""
  child.stdout!.on("data", (chunk) => {
    output += chunk
    stdout += chunk
  })
  child.stderr!.on("data", (chunk) => (output += chunk))
  // "close": every process of the group that held the pipes is done (npm start's server outlives npm by a moment).
  const exited = new Promise<number | string>((resolve) => child.once("close", (code, signal) => resolve(code ?? signal ?? "unknown")))
  return { child, output: () => output, stdout: () => stdout, exited }
}

const run = async (line: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 120_000) => {
  const started = shell(line, cwd, env)
  const timer = setTimeout(() => stopGroup(started.child, "SIGKILL"), timeoutMs)
  const code = await started.exited
  clearTimeout(timer)
  return { code, output: started.output(), stdout: started.stdout() }
}

const stopGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal)
  } catch {
    // Already gone.
  }
}

const get = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers, signal: AbortSignal.timeout(60_000) }).then(async (r) => ({ status: r.status, body: await r.text() }), () => undefined)

let site: FixtureSite.Site
beforeAll(async () => {
  if (runs) site = await FixtureSite.start({ "/": FixtureSite.html("<h1>Fresh clone</h1><p>Scraped by a new user.</p>") })
})
afterAll(() => site?.close())

describe.skipIf(!runs)("a fresh clone set up as the README says (runs only under CI=true: it clones, installs and builds)", () => {
  it("npm install && npm start serves; npx sift --help and keys create work; the key scrapes and reads its logs", { timeout: 600_000 }, async () => {
    const setUp = readmeLines("## Set-up")
    const startLine = setUp.find((line) => line === "npm install && npm start")
    expect(startLine, `README set-up lines: ${JSON.stringify(setUp)}`).toBeDefined()
    const keyLine = readmeLines("## Run the service").find((line) => line.startsWith("npx sift keys create "))
    expect(keyLine).toBeDefined()

    const began = Date.now()
    const temp = fs.mkdtempSync(path.join(os.tmpdir(), "sift-fresh-clone-"))
    const clone = path.join(temp, "sift")
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // The npm cache is warm: install from it, quietly. Only the npm registry would be reachable anyway.
      npm_config_prefer_offline: "true",
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false",
      SIFT_PORT: String(port),
      SIFT_ALLOW_PRIVATE_TARGETS: "true",
      SIFT_LOG_LEVEL: "info",
      DATABASE_URL: ""
    }
    delete env.SIFT_DATA_DIR
    delete env.SIFT_BOOTSTRAP_KEY
    // npx must run the clone's own `sift`, never look for a package of that name in the registry.
    const npxEnv = { ...env, npm_config_offline: "true", npm_config_yes: "false" }
    let server: Shell | undefined
    const times: Record<string, number> = {}
    try {
      const cloned = await run(`git clone --quiet ${JSON.stringify(root)} sift`, temp, env)
      expect(cloned.code, cloned.output).toBe(0)

      server = shell(startLine!, clone, env)
      const until = Date.now() + 480_000
      for (;;) {
        const ready = await get(`${base}/ready`)
        if (ready?.status === 200) break
        // 503 while starting; anything else will not change by waiting.
        if (ready !== undefined && ready.status !== 503) throw new Error(`/ready answered ${ready.status} ${ready.body}`)
        if (server.child.exitCode !== null || Date.now() > until) throw new Error(`not ready (exit ${server.child.exitCode}):\n${server.output().slice(-4_000)}`)
        await new Promise((r) => setTimeout(r, 500))
      }
      times.ready = Date.now() - began
      expect(fs.existsSync(path.join(clone, "node_modules/.bin/sift"))).toBe(true)
      expect(server.output()).toContain(`${base}/v1`)
      expect(server.output()).toContain("npx sift keys create --name NAME --plan scale")
      expect(await get(`${base}/health`)).toEqual({ status: 200, body: `{"status":"ok"}` })
      // The web console was built by the set-up and is served at /, its script with it.
      const consolePage = await get(`${base}/`)
      expect(consolePage?.status).toBe(200)
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(consolePage?.body ?? "")?.[1]
      expect(script, consolePage?.body).toBeDefined()
      expect((await get(`${base}${script}`))?.status).toBe(200)

      const help = await run("npx sift --help", clone, npxEnv)
      expect(help.code, help.output).toBe(0)
      expect(help.output).toContain("keys")
      expect(help.output).toContain("serve")

      const created = await run(keyLine!, clone, npxEnv)
      expect(created.code, created.output).toBe(0)
      const secret = /sift_sk_[A-Za-z0-9]{40}/.exec(created.output)?.[0]
      expect(secret, created.output).toBeDefined()
      const auth = { authorization: `Bearer ${secret}` }

      const scraped = await get(`${base}/v1/web/scrape/markdown?url=${encodeURIComponent(`${site.url}/`)}`, auth)
      expect(scraped?.status, scraped?.body).toBe(200)
      expect(JSON.parse(scraped!.body).markdown).toContain("# Fresh clone")
      const logs = await get(`${base}/v1/logs`, auth)
      expect(logs?.status, logs?.body).toBe(200)

      stopGroup(server.child, "SIGTERM")
      const stopped = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r("still running"), 60_000))])
      expect(stopped, server.output().slice(-2_000)).not.toBe("still running")
      expect(server.output()).toContain(`"msg":"stopped"`)
      server = undefined

      const orgs = await run("npx sift orgs list --json", clone, npxEnv)
      expect(orgs.code, orgs.output).toBe(0)
      expect(JSON.parse(orgs.stdout).map((o: { name: string }) => o.name)).toContain("laptop")
      times.total = Date.now() - began
      console.log(`fresh clone: ready after ${times.ready} ms (clone, npm install, build, start), all done after ${times.total} ms`)
    } finally {
      if (server !== undefined) {
        stopGroup(server.child, "SIGTERM")
        const stopped = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r(undefined), 30_000))])
        if (stopped === undefined) stopGroup(server.child, "SIGKILL")
      }
      fs.rmSync(temp, { recursive: true, force: true })
    }
  })
})
