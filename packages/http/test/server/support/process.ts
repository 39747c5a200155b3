/**
 * Runs Sift server processes for the tests: spawns, reads the JSON log lines on stderr, waits for the start-up line,
 * and stops them with a signal.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
/** The repository root. */
export const root = path.resolve(here, "../../../../..")

/** A JSON log line of the server. */
export type LogLine = Record<string, unknown> & { readonly msg: string; readonly level: string }

/** A running server process. */
export interface ServerProcess {
  readonly child: ChildProcess
  /** The URL from the start-up line. */
  readonly url: string
  readonly startLine: LogLine
  /** Every JSON line so far, and any other stderr text. */
  readonly lines: Array<LogLine>
  readonly stderr: () => string
  readonly stdout: () => string
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>
}

/** What to start: the stand-in application, or the real `sift` executable through tsx. */
export type Entry = "standIn" | "sift"

const entryArgs = (entry: Entry): Array<string> =>
  entry === "standIn"
    ? [path.join(here, "standIn.ts")]
    : [path.join(root, "packages/http/src/bin.ts"), "serve"]

/** Spawns a process with `node --conditions=@sift/source --import tsx` (sources, no build needed). */
export const spawnNode = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): { child: ChildProcess; stderr: () => string; stdout: () => string; exited: Promise<number | string> } => {
  const child = spawn(process.execPath, ["--conditions=@sift/source", "--import", "tsx", ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: "", SIFT_LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stderr = ""
  let stdout = ""
  child.stderr!.on("data", (chunk) => (stderr += chunk))
  child.stdout!.on("data", (chunk) => (stdout += chunk))
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown"))
  )
  return { child, stderr: () => stderr, stdout: () => stdout, exited }
}

/** Parses the JSON lines of a stderr text. */
export const jsonLines = (text: string): Array<LogLine> =>
  text.split("\n").flatMap((line) => {
    try {
      const value = JSON.parse(line)
      return typeof value === "object" && value !== null && typeof value.msg === "string" ? [value as LogLine] : []
    } catch {
      return []
    }
  })

/** Starts a server and waits (up to `timeoutMs`) for its start-up line. */
export const startServer = async (
  options: { entry?: Entry; args?: ReadonlyArray<string>; env?: Record<string, string | undefined>; timeoutMs?: number }
): Promise<ServerProcess> => {
  const spawned = spawnNode([...entryArgs(options.entry ?? "sift"), ...(options.args ?? [])], options.env ?? {})
  const deadline = Date.now() + (options.timeoutMs ?? 60_000)
  for (;;) {
    const start = jsonLines(spawned.stderr()).find((line) => line.msg.startsWith("listening on "))
    if (start !== undefined) {
      const server: ServerProcess = {
        ...spawned,
        url: String(start.url),
        startLine: start,
        get lines() {
          return jsonLines(spawned.stderr())
        }
      }
      return server
    }
    const code = await Promise.race([spawned.exited, new Promise((r) => setTimeout(() => r(undefined), 50))])
    if (code !== undefined || Date.now() > deadline) {
      spawned.child.kill("SIGKILL")
      throw new Error(`server did not start (exit ${String(code)}):\n${spawned.stderr()}\n${spawned.stdout()}`)
    }
  }
}

/** Sends `signal` and waits for the exit. */
export const stopServer = async (server: { child: ChildProcess; exited: Promise<number | string> }, signal: NodeJS.Signals = "SIGTERM") => {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal)
  return server.exited
}
