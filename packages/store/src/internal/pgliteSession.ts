/**
 * PGlite on its own thread. PGlite is PostgreSQL compiled to WebAssembly and runs synchronously wherever it lives: on
 * the main thread every write (a batch of request-log rows, a pg-boss poll) stops the event loop that answers HTTP
 * requests; bench/http measured a fifth of a cache hit's CPU there. A worker thread owns the instance; the main thread
 * posts statements and awaits their rows. One worker per database, statements answered in the order sent, so the
 * client's one-permit semaphore still keeps transactions whole.
 */
import { createRequire } from "node:module"
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
const opened = PGlite.create(workerData.dataDir, { parsers })
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

/** Starts the worker and opens PGlite in it (`memory://` or a data directory); rejects if PGlite cannot open. */
export const open = async (dataDir: string): Promise<PgliteSession> => {
  const pglitePath = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const worker = new Worker(workerSource, { eval: true, workerData: { pglitePath, dataDir } })
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
