/**
 * PGlite on its own thread. PGlite is PostgreSQL compiled to WebAssembly and runs synchronously wherever it lives: on
 * the main thread every write (a batch of request-log rows, a pg-boss poll) stops the event loop that answers HTTP
 * requests; bench/http measured a fifth of a cache hit's CPU there. A worker thread owns the instance; the main thread
 * posts statements and awaits their rows. One worker per database, statements answered in the order sent, so the
 * client's one-permit semaphore still keeps transactions whole.
 */
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import { Worker } from "node:worker_threads"
import { JoinedText } from "./joinedText.js"

/** One statement's result, as PGlite returns it (rows, their fields, rows affected). */
export interface SessionResult {
  readonly rows: Array<any>
  readonly fields: ReadonlyArray<{ readonly name: string; readonly dataTypeID: number }>
  readonly affectedRows?: number | undefined
}

/** The PGlite calls the client makes, answered by the worker. */
export interface PgliteSession {
  /** Simple protocol: several statements allowed, one result each. */
  readonly exec: (sql: string) => Promise<Array<SessionResult>>
  /** Extended protocol with parameters; `rowMode: "array"` gives rows as arrays. */
  readonly query: (sql: string, params: ReadonlyArray<unknown>, options?: { readonly rowMode?: "array" | "object" }) => Promise<SessionResult>
  /** Closes PGlite (flushing it to the data directory) and ends the thread. */
  readonly close: () => Promise<void>
}

// CommonJS, evaluated in the worker: it loads PGlite from the path the main thread resolved. int8 stays a string and
// bytea becomes bytes, as node-postgres returns them, so both backends give identical rows.
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const { PGlite } = require(workerData.pglitePath)
const parsers = { 20: (value) => value, 17: (value) => Buffer.from(value.slice(2), "hex") }
const startParams = [...PGlite.defaultStartParams, ...workerData.settings]
const opened = PGlite.create(workerData.dataDir, {
  parsers,
  startParams,
  ...(workerData.template ? { loadDataDir: new Blob([workerData.template], { type: "application/gzip" }) } : {})
})
const decoder = new TextDecoder()
opened.catch(() => {})
const plain = (error) => {
  const out = { message: String((error && error.message) || error), name: error && error.name }
  for (const key of Object.keys(error || {})) {
    const value = error[key]
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) out[key] = value
  }
  return out
}
const shape = (result) => ({ rows: result.rows, fields: result.fields, affectedRows: result.affectedRows })
parentPort.on("message", async (message) => {
  try {
    const db = await opened
    let result = null
    if (message.op === "exec") result = (await db.exec(message.sql)).map(shape)
    else if (message.op === "query") {
      const params = message.params
      for (const i of message.encoded || []) params[i] = decoder.decode(params[i])
      result = shape(await db.query(message.sql, params, message.options))
    }
    else if (message.op === "close") await db.close()
    parentPort.postMessage({ id: message.id, result })
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: plain(error) })
  }
})
`

const BYTEA = 17

/** Text parameters at least this long (and every `JoinedText`) cross to the worker as transferred UTF-8 bytes. */
const ENCODED_TEXT = 16_384
const encoder = new TextEncoder()

/**
 * The message of a query. Long text parameters (a batch of request-log rows as one JSON text) are encoded and their
 * bytes transferred: cloning the string cost the main thread several times more (bench/http), and the worker decodes.
 */
const queryMessage = (sql: string, params: ReadonlyArray<unknown>, options: unknown) => {
  let encoded: Array<number> | undefined
  let sent: Array<unknown> | undefined
  const transfer: Array<ArrayBuffer> = []
  for (let i = 0; i < params.length; i++) {
    const value = params[i]
    const joined = value instanceof JoinedText
    if (!joined && (typeof value !== "string" || value.length < ENCODED_TEXT)) continue
    sent ??= [...params]
    const bytes = joined ? value.toUtf8(encoder) : encoder.encode(value as string)
    sent[i] = bytes
    transfer.push(bytes.buffer as ArrayBuffer)
    ;(encoded ??= []).push(i)
  }
  return { message: { op: "query", sql, params: sent ?? params, options, encoded }, transfer }
}

/** Bytes cross the thread boundary as Uint8Array; callers get Buffers, as from node-postgres. */
const revive = (result: SessionResult, rowMode: "array" | "object"): SessionResult => {
  const bytea = result.fields.flatMap((field, i) => field.dataTypeID === BYTEA ? [rowMode === "array" ? i : field.name] : [])
  if (bytea.length === 0) return result
  for (const row of result.rows) {
    for (const key of bytea) {
      const value = row[key]
      if (value instanceof Uint8Array) row[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    }
  }
  return result
}

/** An error from the worker, rebuilt with PostgreSQL's fields (`code`, `detail`, ...) so callers can inspect them. */
const rebuild = (plain: Record<string, unknown>): Error =>
  Object.assign(new Error(String(plain["message"])), plain)

/**
 * PostgreSQL's memory settings inside PGlite. Its defaults are a server's (128 MB of shared buffers, 100 connections'
 * worth of shared state), and WebAssembly memory, once touched, is never given back: they cost about 125 MB of resident
 * memory before any work. PGlite has one session, and the data directory's files stay in the OS page cache anyway.
 */
export interface Settings {
  /** `shared_buffers` in MB (the database's page cache inside the WebAssembly heap). */
  readonly sharedBuffersMb: number
}

/** The defaults of `Settings` (documented in docs/configuration.md, `SIFT_PGLITE_SHARED_BUFFERS_MB`). */
export const defaultSettings: Settings = { sharedBuffersMb: 16 }

/** The `-c name=value` start parameters for `settings`, after PGlite's own. */
export const startParams = (settings: Settings): Array<string> =>
  [
    `shared_buffers=${settings.sharedBuffersMb}MB`,
    // One session: a handful of backend slots (the minimum leaves room for PGlite's own), small WAL and temp buffers.
    "max_connections=5",
    "wal_buffers=1MB",
    "temp_buffers=2MB",
    // Sorts and index builds spill to files beyond these instead of growing the heap that never shrinks.
    "work_mem=2MB",
    "maintenance_work_mem=16MB"
  ].flatMap((setting) => ["-c", setting])

// initdb grows PGlite's WebAssembly memory to ~750 MB, and after it most of that stays with the process even once the
// instance and its thread are gone (freed but not returned to the system). So a new database is made by a short-lived
// child process and this process only opens it: a directory is initialised in place; `memory://` gets a copy of one
// fresh database made once per process (gzip tar on the child's stdout; also spares each later open initdb's seconds).
const initSource = `
const [pglitePath, dataDir, settings] = process.argv.slice(1)
const { PGlite } = require(pglitePath)
;(async () => {
  const db = await PGlite.create(dataDir, { startParams: [...PGlite.defaultStartParams, ...JSON.parse(settings)] })
  const template = dataDir === "memory://" ? Buffer.from(await (await db.dumpDataDir("gzip")).arrayBuffer()) : null
  await db.close()
  if (template !== null) await new Promise((resolve, reject) => process.stdout.write(template, (error) => error ? reject(error) : resolve()))
})().catch((error) => {
  process.stderr.write(String((error && error.stack) || error))
  process.exitCode = 1
})
`

const runInit = (pglitePath: string, dataDir: string, settings: ReadonlyArray<string>): Promise<Uint8Array> =>
  new Promise((resolve, reject) => {
    // Without NODE_OPTIONS: a loader of the parent's (tsx under the benches) is not needed to run plain CommonJS.
    const { NODE_OPTIONS: _, ...env } = process.env
    const child = spawn(process.execPath, [...childFlags, "-e", initSource, pglitePath, dataDir, JSON.stringify(settings)], {
      env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    const out: Array<Buffer> = []
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)))
    child.once("error", reject)
    child.once("close", (code, signal) => {
      if (code === 0) resolve(Buffer.concat(out))
      else reject(new Error(`PGlite initdb failed (${signal ?? `exit code ${code}`}): ${err.trim()}`))
    })
  })

const memoryTemplates = new Map<string, Promise<Uint8Array>>()

/** A fresh database for `memory://` (gzip tar of its data directory), made once per process and settings. */
const template = (pglitePath: string, settings: ReadonlyArray<string>): Promise<Uint8Array> => {
  const key = settings.join(" ")
  let made = memoryTemplates.get(key)
  if (made === undefined) {
    made = runInit(pglitePath, "memory://", settings)
    memoryTemplates.set(key, made)
    // A failed initdb is not remembered: the next open tries again.
    made.catch(() => memoryTemplates.delete(key))
  }
  return made
}

// PGlite's WebAssembly (9 MB) is compiled by V8's baseline compiler only, each function when first called. By default
// every function is compiled up front and the hot ones again by the optimising compiler on background threads: that
// code and the compiler's scratch memory (malloc arenas never given back) cost ~60 MB of resident memory on an idle
// server, and the compiles take seconds of CPU at start. Our statements are small: their time is the protocol and the
// JavaScript around them, so the baseline code answers as fast (5,000 inserts, then 5,000 selects: 1.5 and 1.2 s
// against 1.7 and 1.4 s with the optimising tier). The flags are
// process-wide and take effect for modules compiled after they are set: pdf.js's JPEG 2000 and JBIG2 decoders, the
// only other WebAssembly a server runs, get baseline code too (slower on such images, which are rare).
const compileBaselineOnly = (): void => {
  setFlagsFromString("--liftoff-only")
  setFlagsFromString("--wasm-lazy-compilation")
}
const childFlags = ["--liftoff-only", "--wasm-lazy-compilation"]

// The worker's young generation: its JavaScript makes little garbage (rows in, rows out), and V8's default lets the
// nursery grow to 32 MB that stay resident.
const workerYoungGenerationMb = 4

/**
 * Starts the worker and opens PGlite in it (`memory://` or a data directory); rejects if PGlite cannot open. A data
 * directory without a database gets one first, from a child process (see `initSource`).
 */
export const open = async (dataDir: string, settings: Settings = defaultSettings): Promise<PgliteSession> => {
  const pglitePath = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const params = startParams(settings)
  const memory = dataDir === "memory://"
  let copy: Uint8Array | undefined
  // Each database gets its own copy of the template's bytes, handed over (the cached one stays whole).
  // (A Buffer's slice() is a view of the same memory: transferring it would detach the cached template.)
  if (memory) copy = new Uint8Array(await template(pglitePath, params))
  else if (!existsSync(join(dataDir, "PG_VERSION"))) await runInit(pglitePath, dataDir, params)
  compileBaselineOnly()
  const worker = new Worker(workerSource, {
    eval: true,
    resourceLimits: { maxYoungGenerationSizeMb: workerYoungGenerationMb },
    workerData: { pglitePath, dataDir, settings: params, template: copy },
    transferList: copy === undefined ? [] : [copy.buffer as ArrayBuffer]
  })
  const pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>()
  let next = 0
  let ended: Error | undefined
  const failAll = (error: Error) => {
    ended ??= error
    for (const waiter of pending.values()) waiter.reject(error)
    pending.clear()
  }
  worker.on("message", (message: { id: number; result?: unknown; error?: Record<string, unknown> }) => {
    const waiter = pending.get(message.id)
    if (waiter === undefined) return
    pending.delete(message.id)
    if (message.error !== undefined) waiter.reject(rebuild(message.error))
    else waiter.resolve(message.result)
  })
  worker.on("error", (error) => failAll(error))
  worker.on("exit", (code) => failAll(new Error(`the PGlite thread exited (code ${code})`)))

  const call = <A>(message: Record<string, unknown>, transfer: ReadonlyArray<ArrayBuffer> = []): Promise<A> => {
    if (ended !== undefined) return Promise.reject(ended)
    return new Promise<A>((resolve, reject) => {
      const id = next++
      pending.set(id, { resolve, reject })
      worker.postMessage({ ...message, id }, transfer as Array<ArrayBuffer>)
    })
  }

  const session: PgliteSession = {
    exec: async (sql) => (await call<Array<SessionResult>>({ op: "exec", sql })).map((result) => revive(result, "object")),
    query: async (sql, params, options) => {
      const { message, transfer } = queryMessage(sql, params, options)
      return revive(await call<SessionResult>(message, transfer), options?.rowMode ?? "object")
    },
    close: async () => {
      try {
        if (ended === undefined) await call({ op: "close" })
      } finally {
        await worker.terminate()
      }
    }
  }
  try {
    // The first statement waits for PGlite to open, so a data directory it cannot read fails here.
    await session.query("SELECT 1", [])
  } catch (error) {
    await worker.terminate()
    throw error
  }
  return session
}
