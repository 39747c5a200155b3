import { describe, expect, it } from "@effect/vitest"
import { afterAll } from "vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Exit, Layer, Option, Scope } from "effect"
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as DataDirLock from "../src/DataDirLock.js"
import * as Sql from "../src/Sql.js"

const made: Array<string> = []
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-store-"))
  made.push(dir)
  return dir
}
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

const lockModule = fileURLToPath(new URL("../src/DataDirLock.ts", import.meta.url))

/** A separate Node process that takes the lock on `dir` and holds it until killed. */
const holdLockInChild = (dir: string): Promise<ChildProcess> =>
  new Promise((resolve, reject) => {
    const program = `
      import { Effect } from "effect"
      import * as DataDirLock from ${JSON.stringify(lockModule)}
      await Effect.runPromise(Effect.scoped(Effect.zipRight(
        DataDirLock.acquire(${JSON.stringify(dir)}, { adminUrl: "http://127.0.0.1:3999" }),
        Effect.zipRight(Effect.sync(() => console.log("locked")), Effect.never)
      )))`
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", program], {
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      stdio: ["ignore", "pipe", "inherit"]
    })
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("locked")) resolve(child)
    })
    child.on("exit", (code) => reject(new Error(`lock holder exited early (${code})`)))
  })

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.removeAllListeners("exit")
    child.on("exit", () => resolve())
    child.kill("SIGKILL")
  })

const insertAndCount = (value: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS notes (body text NOT NULL)`
    yield* sql`INSERT INTO notes VALUES (${value})`
    return (yield* sql<{ body: string }>`SELECT body FROM notes ORDER BY body`).map((r) => r.body)
  })

describe("PGlite data directory", () => {
  it.live("keeps its data across close and reopen, and releases its lock on close", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const first = yield* insertAndCount("first").pipe(Effect.provide(Sql.layerPglite({ dir })))
      expect(first).toEqual(["first"])
      expect(fs.existsSync(path.join(dir, Sql.pgdataDir))).toBe(true)
      expect(yield* DataDirLock.read(dir)).toEqual(Option.none())
      const second = yield* insertAndCount("second").pipe(Effect.provide(Sql.layerPglite({ dir })))
      expect(second).toEqual(["first", "second"])
    }), 120_000)

  it.live("refuses a second opener of a locked directory with DataDirLocked, leaving the owner intact", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const scope = yield* Scope.make()
      const owner = yield* Layer.buildWithScope(Sql.layerPglite({ dir, lockInfo: { adminUrl: "http://127.0.0.1:3002" } }), scope)
      yield* insertAndCount("kept").pipe(Effect.provide(owner))

      const error = yield* Effect.flip(insertAndCount("intruder").pipe(Effect.provide(Sql.layerPglite({ dir }))))
      expect(error._tag).toBe("DataDirLocked")
      const locked = error as DataDirLock.DataDirLocked
      expect(locked.owner.pid).toBe(process.pid)
      expect(locked.owner.adminUrl).toBe("http://127.0.0.1:3002")
      expect(locked.message).toContain("http://127.0.0.1:3002")

      const owned = Option.getOrThrow(yield* DataDirLock.read(dir))
      expect(owned.pid).toBe(process.pid)
      expect(yield* insertAndCount("still").pipe(Effect.provide(owner))).toEqual(["kept", "still"])
      yield* Scope.close(scope, Exit.void)
      expect(yield* DataDirLock.read(dir)).toEqual(Option.none())
    }), 120_000)

  it.live("sees a lock held by another process, and takes it over once that process is dead", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const child = yield* Effect.promise(() => holdLockInChild(dir))
      const owner = Option.getOrThrow(yield* DataDirLock.read(dir))
      expect(owner.pid).toBe(child.pid)
      expect(owner.adminUrl).toBe("http://127.0.0.1:3999")

      const error = yield* Effect.flip(insertAndCount("x").pipe(Effect.provide(Sql.layerPglite({ dir }))))
      expect(error._tag).toBe("DataDirLocked")
      expect(fs.existsSync(path.join(dir, Sql.pgdataDir))).toBe(false)

      // SIGKILL: the holder cannot clean up, so its lockfile stays behind, stale.
      yield* Effect.promise(() => killed(child))
      expect(fs.existsSync(path.join(dir, DataDirLock.fileName))).toBe(true)
      expect(yield* DataDirLock.read(dir)).toEqual(Option.none())
      expect(yield* insertAndCount("mine").pipe(Effect.provide(Sql.layerPglite({ dir })))).toEqual(["mine"])
    }), 120_000)

  it.scoped("lets the owner publish where it can be reached", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const held = yield* DataDirLock.acquire(dir, { role: "server" })
      expect(Option.getOrThrow(yield* DataDirLock.read(dir)).adminUrl).toBeUndefined()
      yield* held.update({ adminUrl: "http://127.0.0.1:4000" })
      const owner = Option.getOrThrow(yield* DataDirLock.read(dir))
      expect(owner).toMatchObject({ pid: process.pid, role: "server", adminUrl: "http://127.0.0.1:4000" })
      const again = yield* Effect.flip(Effect.scoped(DataDirLock.acquire(dir)))
      expect(again.owner.adminUrl).toBe("http://127.0.0.1:4000")
    }))

  it.effect("takes over a lockfile left by a dead process or a previous run under the same pid", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, DataDirLock.fileName)
      for (const pid of [2 ** 22 + 17, process.pid]) {
        fs.writeFileSync(file, JSON.stringify({ pid, hostname: os.hostname(), acquiredAt: "2020-01-01T00:00:00Z" }))
        expect(yield* DataDirLock.read(dir)).toEqual(Option.none())
        const held = yield* Effect.scoped(Effect.map(DataDirLock.acquire(dir), (h) => h.owner.pid))
        expect(held).toBe(process.pid)
        expect(fs.existsSync(file)).toBe(false)
      }
    }))
})
