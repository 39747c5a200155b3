/**
 * The deployment files (issue 22, item 4), checked without Docker (it cannot run here): every Debian package the
 * Dockerfile installs exists in this machine's apt sources (Debian 12 bookworm, the base image's release), every
 * path it copies exists, the files compose.yaml mounts exist, the healthcheck's command works against a real
 * `sift serve`, and the browser server the compose file runs (deploy/browser-server.mjs, Debian's Chromium) renders
 * pages for a `sift serve` that connects to it (SIFT_BROWSER_WS_ENDPOINT) instead of launching its own browser.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { root, startServer, stopServer } from "./support/process.js"

const dockerfile = fs.readFileSync(path.join(root, "Dockerfile"), "utf8")
const compose = fs.readFileSync(path.join(root, "compose.yaml"), "utf8")
/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
const instructions = dockerfile.replace(/\\\n/g, " ").split("\n").map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"))
const hasApt = spawnSync("apt-cache", ["--version"], { stdio: "ignore" }).status === 0
const bookworm = fs.existsSync("/etc/os-release") && /VERSION_CODENAME=bookworm/.test(fs.readFileSync("/etc/os-release", "utf8"))

describe("Dockerfile", () => {
  it("builds on Node 20 over Debian bookworm slim, runs as a non-root user, with a /health healthcheck", () => {
    const froms = instructions.filter((line) => line.startsWith("FROM "))
    expect(froms.length).toBe(2)
    for (const from of froms) expect(from).toMatch(/^FROM node:20-bookworm-slim\b/)
    const user = instructions.filter((line) => line.startsWith("USER ")).at(-1)
    expect(user).toBe("USER sift")
    expect(instructions.some((line) => /^RUN .*useradd --system --uid 10001\b/.test(line))).toBe(true)
    const healthcheck = instructions.find((line) => line.startsWith("HEALTHCHECK "))
    expect(healthcheck).toContain("/health")
  })

  it.skipIf(!hasApt || !bookworm)("every package apt-get installs has a candidate in Debian bookworm (apt-cache policy)", () => {
    const installs = instructions.filter((line) => line.startsWith("RUN ") && line.includes("apt-get install"))
    expect(installs.length).toBe(1)
    const packages = installs[0]!.split("apt-get install")[1]!.split("&&")[0]!.split(/\s+/).filter((word) => word !== "" && !word.startsWith("-"))
    expect(packages).toEqual(expect.arrayContaining(["chromium", "tesseract-ocr", "tini"]))
    const policy = execFileSync("apt-cache", ["policy", ...packages], { encoding: "utf8" })
    const candidates = new Map(policy.split(/\n(?=\S)/).map((block) => [block.split(":")[0]!.trim(), /Candidate: (\S+)/.exec(block)?.[1]]))
    const missing = packages.filter((name) => candidates.get(name) === undefined || candidates.get(name) === "(none)")
    expect(missing).toEqual([])
  })

  it("every path it copies from the build context exists, and what it runs is there", () => {
    const copies = instructions.filter((line) => line.startsWith("COPY ") && !line.includes("--from="))
    expect(copies.length).toBeGreaterThanOrEqual(3)
    for (const copy of copies) {
      const parts = copy.split(/\s+/).slice(1).filter((part) => !part.startsWith("--"))
      for (const source of parts.slice(0, -1)) expect(fs.existsSync(path.join(root, source)), source).toBe(true)
    }
    const entrypoint = JSON.parse(instructions.find((line) => line.startsWith("ENTRYPOINT "))!.slice("ENTRYPOINT ".length)) as Array<string>
    expect(entrypoint.slice(0, 3)).toEqual(["/usr/bin/tini", "--", "node"])
    expect(fs.existsSync(path.join(root, entrypoint[3]!.replace(/^\/app\//, "")))).toBe(true)
    // The scripts the build runs exist in package.json.
    const scripts = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts as Record<string, string>
    for (const [, name] of dockerfile.matchAll(/npm run (\S+)/g)) expect(scripts[name!], name).toBeDefined()
    // What the image must not carry from the context.
    expect(fs.readFileSync(path.join(root, ".dockerignore"), "utf8")).toMatch(/\*\*\/node_modules/)
  })
})

describe("compose.yaml", () => {
  it("runs PostgreSQL, two api and two worker processes, a browser server, a TLS front and optional SearXNG; its mounts exist", () => {
    for (const service of ["postgres", "api-1", "api-2", "worker-1", "worker-2", "browser", "front", "searxng"]) {
      expect(compose).toMatch(new RegExp(`^  ${service}:$`, "m"))
    }
    expect(compose.match(/command: \["serve", "--role", "api"\]/g)?.length).toBe(2)
    expect(compose.match(/command: \["serve", "--role", "worker"\]/g)?.length).toBe(2)
    for (const [, mount] of compose.matchAll(/- (\.\/[^:]+):/g)) expect(fs.existsSync(path.join(root, mount!)), mount).toBe(true)
    expect(compose).toContain("node\", \"/app/deploy/browser-server.mjs")
  })
})

describe("the image's commands, run here", () => {
  let site: Server
  let siteUrl = ""
  let browser: ReturnType<typeof spawn> | undefined
  let wsEndpoint = ""
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-deploy-"))

  beforeAll(async () => {
    site = createServer((_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end(
        `<!doctype html><html><head><title>App</title></head><body><div id="root"></div>` +
          `<script>document.getElementById("root").innerHTML = "<h1>Drawn in the remote browser</h1><p>Rendered text.</p>"</script></body></html>`
      ))
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/app`
    browser = spawn(process.execPath, [path.join(root, "deploy/browser-server.mjs")], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    wsEndpoint = await new Promise<string>((resolve, reject) => {
      let out = ""
      browser!.stdout!.on("data", (chunk) => {
        out += chunk
        const line = out.split("\n").find((l) => l.startsWith("{"))
        if (line !== undefined) resolve((JSON.parse(line) as { wsEndpoint: string }).wsEndpoint)
      })
      browser!.once("exit", (code) => reject(new Error(`browser server exited ${code}`)))
      setTimeout(() => reject(new Error("browser server did not start")), 30_000)
    })
  }, 60_000)

  afterAll(async () => {
    if (browser !== undefined && browser.exitCode === null) {
      const exited = new Promise((resolve) => browser!.once("exit", resolve))
      browser.kill("SIGTERM")
      await exited
    }
    site?.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("the healthcheck passes against sift serve; the browser server renders for it, no local Chromium started", async () => {
    const server = await startServer({
      args: ["--port", "0", "--data-dir", dir],
      env: { SIFT_BROWSER_WS_ENDPOINT: wsEndpoint, SIFT_ALLOW_PRIVATE_TARGETS: "true", SIFT_BOOTSTRAP_KEY: "sift_sk_" + "D".repeat(40) }
    })
    try {
      // HEALTHCHECK's command, as the image runs it.
      const command = JSON.parse(instructions.find((line) => line.startsWith("HEALTHCHECK "))!.replace(/^HEALTHCHECK .*?CMD /, "")) as Array<string>
      const check = spawnSync(process.execPath, command.slice(1), { env: { ...process.env, SIFT_PORT: new URL(server.url).port }, timeout: 10_000 })
      expect(check.status).toBe(0)
      const refused = spawnSync(process.execPath, command.slice(1), { env: { ...process.env, SIFT_PORT: "1" }, timeout: 10_000 })
      expect(refused.status).toBe(1)

      const response = await fetch(`${server.url}/v1/web/scrape/markdown?url=${encodeURIComponent(siteUrl)}`, {
        headers: { authorization: `Bearer sift_sk_${"D".repeat(40)}` }
      })
      const text = await response.text()
      expect(response.status, text).toBe(200)
      expect(text).toContain("Drawn in the remote browser")
      const ready = (await (await fetch(`${server.url}/ready`)).json()) as { checks: { browser: { state: string } } }
      expect(ready.checks.browser.state).toBe("connected")
      // The page was rendered by the browser server's Chromium: the service has no Chromium of its own.
      const children = spawnSync("ps", ["--ppid", String(server.child.pid), "-o", "args="], { encoding: "utf8" }).stdout
      expect(children).not.toMatch(/chrom/i)
    } finally {
      expect(await stopServer(server)).toBe(0)
    }
  }, 120_000)
})
