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
  runChild(`
    await Effect.runPromise(Effect.scoped(Effect.zipRight(
      DataDirLock.acquire(${JSON.stringify(dir)}, { adminUrl: "http://127.0.0.1:3999" }),
      Effect.zipRight(Effect.sync(() => console.log("locked")), Effect.never)
    )))`)

/** A Node process running `body` (with `Effect` and `DataDirLock` imported); resolves once it prints "locked". */
const runChild = (body: string): Promise<ChildProcess> =>
  new Promise((resolve, reject) => {
    const program = `
      import { Effect, Scope } from "effect"
      import * as DataDirLock from ${JSON.stringify(lockModule)}
      ${body}`
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", program], {
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      stdio: ["ignore", "pipe", "inherit"]
    })
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("locked")) resolve(child)
    })
    // "close", not "exit": it comes after the child's output has been read.
    child.on("close", (code) => reject(new Error(`lock holder exited early (${code})`)))
  })

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.removeAllListeners("close")
    if (child.exitCode !== null) resolve(child.exitCode)
    else child.on("exit", (code) => resolve(code))
  })

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.removeAllListeners("close")
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

  it.live("while the holder lives a second opener is refused, saying which directory, which process and what to do; its kill -9 frees the lock at once", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const child = yield* Effect.promise(() => holdLockInChild(dir))
      const refused = yield* Effect.flip(Effect.scoped(DataDirLock.acquire(dir)))
      expect(refused._tag).toBe("DataDirLocked")
      expect(refused.owner.pid).toBe(child.pid)
      expect(refused.message).toContain(dir)
      expect(refused.message).toContain(`process ${child.pid}`)
      expect(refused.message).toContain("stop that process, or point SIFT_DATA_DIR elsewhere")
      expect(refused.message).toContain("http://127.0.0.1:3999")

      yield* Effect.promise(() => killed(child))
      // No waiting and no clean-up by hand: the kernel dropped the lock with the process.
      const held = yield* Effect.scoped(Effect.map(DataDirLock.acquire(dir), (h) => h.owner.pid))
      expect(held).toBe(process.pid)
    }), 120_000)

  it.live("a lockfile whose pid now names a live, unrelated process does not block opening", () =>
    Effect.gen(function*() {
      const file = (dir: string) => path.join(dir, DataDirLock.fileName)
      for (const pid of [process.ppid, 1]) {
        const dir = tempDir()
        // A real holder's record, left by kill -9; then its pid is reused by another process (here: a live one's).
        const child = yield* Effect.promise(() => holdLockInChild(dir))
        yield* Effect.promise(() => killed(child))
        const left = JSON.parse(fs.readFileSync(file(dir), "utf8"))
        expect(left.pid).toBe(child.pid)
        fs.writeFileSync(file(dir), JSON.stringify({ ...left, pid }))
        expect(() => process.kill(pid, 0)).not.toThrow()

        expect(yield* DataDirLock.read(dir)).toEqual(Option.none())
        expect(yield* insertAndCount("reopened").pipe(Effect.provide(Sql.layerPglite({ dir })))).toEqual(["reopened"])
        expect(fs.existsSync(file(dir))).toBe(false)
      }
    }), 120_000)

  it.live("the lock never keeps its process alive, and dies with it when it ends without releasing", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      // The child takes the lock into a scope it never closes, then has nothing left to do.
      const child = yield* Effect.promise(() => runChild(`
        const scope = Effect.runSync(Scope.make())
        await Effect.runPromise(Scope.extend(DataDirLock.acquire(${JSON.stringify(dir)}), scope))
        console.log("locked")`))
      expect(yield* Effect.promise(() => exited(child))).toBe(0)
      expect(JSON.parse(fs.readFileSync(path.join(dir, DataDirLock.fileName), "utf8")).pid).toBe(child.pid)
      expect(yield* DataDirLock.read(dir)).toEqual(Option.none())
      expect(yield* Effect.scoped(Effect.map(DataDirLock.acquire(dir), (h) => h.owner.pid))).toBe(process.pid)
    }), 120_000)

  it.effect("respects a lock recorded by another host sharing the directory, and says how to clear it", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, DataDirLock.fileName)
      fs.writeFileSync(file, JSON.stringify({ pid: 4242, hostname: "elsewhere.example", acquiredAt: "2020-01-01T00:00:00Z" }))
      expect(Option.getOrThrow(yield* DataDirLock.read(dir)).hostname).toBe("elsewhere.example")
      const refused = yield* Effect.flip(Effect.scoped(DataDirLock.acquire(dir)))
      expect(refused.owner).toMatchObject({ pid: 4242, hostname: "elsewhere.example" })
      expect(refused.message).toContain(`process 4242 on elsewhere.example`)
      expect(refused.message).toContain(`delete ${file}`)
      expect(fs.existsSync(file)).toBe(true)
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
