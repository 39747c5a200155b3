import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as https from "node:https"
import * as os from "node:os"
import * as path from "node:path"
import { type Entry, jsonLines, spawnNode, startServer, stopServer } from "./support/process.js"

// The runtime alone, with a stand-in application; the real executable is covered in Sift.test.ts.
const entry: Entry = "standIn"

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "sift-serve-"))

const nonLoopbackAddress = (): string | undefined =>
  Object.values(os.networkInterfaces()).flat().find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address

describe("sift serve", () => {
  it("starts with a start-up line (URL, backend, data dir), serves, logs each request as JSON, and stops on SIGTERM with exit 0", async () => {
    const dir = tempDir()
    const server = await startServer({ entry, args: ["--port", "0", "--data-dir", dir] })
    expect(server.startLine).toMatchObject({ level: "info", backend: "pglite", data_dir: dir })
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(JSON.parse(fs.readFileSync(path.join(dir, "sift.lock"), "utf8")).pid).toBe(server.child.pid)

    const response = await fetch(`${server.url}/v1/ping`)
    expect(response.status).toBe(200)
    const body = await response.json() as { request_id: string }
    expect(body.request_id).toBe(response.headers.get("x-request-id"))

    expect(await stopServer(server)).toBe(0)
    const access = server.lines.find((line) => line.path === "/v1/ping")
    expect(access).toMatchObject({ level: "info", method: "GET", status: 200, request_id: body.request_id })
    expect(typeof access?.latency_ms).toBe("number")
    expect(typeof access?.time).toBe("string")
    expect(server.lines.at(-1)?.msg).toBe("stopped")
    // The lock is released: nothing owns the directory any more.
    expect(fs.existsSync(path.join(dir, "sift.lock"))).toBe(false)
  })

  it("shuts down gracefully (exit 0, 'stopped') on a SIGTERM sent the moment its start-up line is written", async () => {
    const dir = tempDir()
    // Not startServer (it polls the output): the signal goes from the very chunk that holds the line, as an
    // orchestrator reading the log could send it. Node's default action would end the process by the signal.
    const spawned = spawnNode([path.join(import.meta.dirname, "support/standIn.ts"), "--port", "0", "--data-dir", dir], {})
    let sent = false
    spawned.child.stderr!.on("data", () => {
      if (!sent && spawned.stderr().includes('"listening on ')) {
        sent = true
        spawned.child.kill("SIGTERM")
      }
    })
    expect(await spawned.exited).toBe(0)
    expect(sent).toBe(true)
    expect(jsonLines(spawned.stderr()).at(-1)?.msg).toBe("stopped")
    expect(fs.existsSync(path.join(dir, "sift.lock"))).toBe(false)
  })

  it("binds the port given by SIFT_PORT/SIFT_HOST and refuses a second server on the same data directory", async () => {
    const dir = tempDir()
    const first = await startServer({ entry, args: ["--data-dir", dir], env: { SIFT_PORT: "0", SIFT_HOST: "127.0.0.1" } })
    try {
      await expect(startServer({ entry, args: ["--port", "0", "--data-dir", dir] })).rejects.toThrow(/in use by process/)
    } finally {
      expect(await stopServer(first)).toBe(0)
    }
  })

  it("on SIGTERM finishes the request in flight, refuses new connections, then exits 0", async () => {
    const dir = tempDir()
    const server = await startServer({ entry, args: ["--port", "0", "--data-dir", dir] })
    const slow = fetch(`${server.url}/v1/slow?ms=1500`).then(async (r) => ({ status: r.status, body: await r.json() }))
    await new Promise((r) => setTimeout(r, 300))
    server.child.kill("SIGTERM")
    await new Promise((r) => setTimeout(r, 300))
    await expect(fetch(`${server.url}/v1/ping`)).rejects.toThrow()
    expect(await slow).toMatchObject({ status: 200, body: { slept: 1500 } })
    expect(await server.exited).toBe(0)
    const messages = server.lines.map((line) => line.msg)
    expect(messages.some((m) => m.startsWith("shutting down (SIGTERM): waiting for 1 request(s)"))).toBe(true)
    expect(messages.indexOf("GET /v1/slow 200")).toBeLessThan(messages.indexOf("stopped"))
  })

  it("fails to start, with exit 1 and a message, on a half TLS configuration", async () => {
    const dir = tempDir()
    await expect(startServer({ entry, args: ["--port", "0", "--data-dir", dir], env: { SIFT_TLS_CERT: "/nope.pem" } }))
      .rejects.toThrow(/SIFT_TLS_CERT and SIFT_TLS_KEY must be set together/)
  })
})

describe("the HTTPS rule", () => {
  const address = nonLoopbackAddress()

  it.skipIf(address === undefined)("refuses plain HTTP on a non-loopback bind with 403 FORBIDDEN and a request id", async () => {
    const server = await startServer({ entry, args: ["--host", address!, "--port", "0", "--data-dir", tempDir()] })
    try {
      const response = await fetch(`${server.url}/v1/ping`)
      expect(response.status).toBe(403)
      const body = await response.json() as Record<string, string>
      expect(body.error_code).toBe("FORBIDDEN")
      expect(body.message).toMatch(/HTTPS/)
      expect(body.request_id).toBe(response.headers.get("x-request-id"))
      // A forwarded header from an untrusted peer changes nothing.
      const spoofed = await fetch(`${server.url}/v1/ping`, { headers: { "x-forwarded-proto": "https" } })
      expect(spoofed.status).toBe(403)
    } finally {
      expect(await stopServer(server)).toBe(0)
    }
  })

  it.skipIf(address === undefined)("accepts it through a trusted proxy that forwarded HTTPS", async () => {
    const server = await startServer({
      entry,
      args: ["--host", address!, "--port", "0", "--data-dir", tempDir()],
      env: { SIFT_TRUSTED_PROXIES: `10.9.9.9, ${address}/32` }
    })
    try {
      const viaProxy = await fetch(`${server.url}/v1/ping`, { headers: { "x-forwarded-proto": "https" } })
      expect(viaProxy.status).toBe(200)
      expect(((await viaProxy.json()) as { ok: boolean }).ok).toBe(true)
      const plain = await fetch(`${server.url}/v1/ping`, { headers: { "x-forwarded-proto": "http" } })
      expect(plain.status).toBe(403)
      expect(((await plain.json()) as { message: string }).message).toMatch(/did not forward an HTTPS request/)
    } finally {
      expect(await stopServer(server)).toBe(0)
    }
  })

  it("serves HTTPS with SIFT_TLS_CERT/SIFT_TLS_KEY, also on a non-loopback bind", async () => {
    const dir = tempDir()
    const cert = path.join(dir, "cert.pem")
    const key = path.join(dir, "key.pem")
    const host = address ?? "127.0.0.1"
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=sift-test",
      "-addext", `subjectAltName=IP:${host},IP:127.0.0.1`, "-keyout", key, "-out", cert
    ], { stdio: "ignore" })
    const server = await startServer({
      entry,
      args: ["--host", host, "--port", "0", "--data-dir", path.join(dir, "data")],
      env: { SIFT_TLS_CERT: cert, SIFT_TLS_KEY: key }
    })
    try {
      expect(server.url).toMatch(/^https:\/\//)
      const result = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        https.get(`${server.url}/v1/ping`, { ca: fs.readFileSync(cert) }, (res) => {
          let body = ""
          res.on("data", (c) => (body += c))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
        }).on("error", reject)
      })
      expect(result.status).toBe(200)
      expect(JSON.parse(result.body).ok).toBe(true)
    } finally {
      expect(await stopServer(server)).toBe(0)
    }
  })
})
