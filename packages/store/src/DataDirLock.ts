/**
 * The data-directory lock. PGlite must never be opened by two processes at once (that corrupts it). The lock is one
 * that dies with its process: on Linux the opener binds an abstract Unix socket named after the directory, which the
 * kernel releases when the process ends in any way (`kill -9` included), so a crashed owner never blocks the next
 * opener and a recycled pid never passes for a live owner. Beside it the opener writes `<dir>/sift.lock` atomically,
 * with its pid, host, network namespace and, once known, the URL where it can be reached: for the message a second
 * opener gets (`DataDirLocked`), for the CLI to find a server that owns the directory, and as the lock between
 * processes that cannot see each other's socket (another host or container sharing the directory; there the recorded
 * owner is respected while its pid lives on this host, and always when it is another host's). Systems without abstract
 * sockets (macOS) rely on the lockfile alone, with the pid check.
 *
 * @since 0.1.0
 */
import { Effect, Option, Schema, Scope } from "effect"
import * as fs from "node:fs"
import type { Server } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as lockfile from "./internal/lockfile.js"
import * as processLock from "./internal/processLock.js"

/** The name of the lockfile inside the data directory. */
export const fileName = "sift.lock"

/**
 * What the owner tells other processes: free-form, `adminUrl` is where a CLI can reach the running server.
 *
 * @category models
 */
export interface LockInfo {
  readonly adminUrl?: string | undefined
  readonly role?: string | undefined
}

/**
 * The content of a lockfile.
 *
 * @category models
 */
export class LockOwner extends Schema.Class<LockOwner>("@sift/store/DataDirLock/LockOwner")({
  pid: Schema.Number,
  hostname: Schema.String,
  acquiredAt: Schema.String,
  adminUrl: Schema.optional(Schema.String),
  role: Schema.optional(Schema.String),
  netns: Schema.optional(Schema.String)
}) {}

/** Whether an owner record was written in this host's and this process's network namespace, where its socket is seen. */
const sameScope = (owner: lockfile.OwnerRecord) =>
  processLock.namespace !== undefined && owner.netns === processLock.namespace && owner.hostname === os.hostname()

/**
 * Another live process owns the data directory. `owner.adminUrl`, when present, is where that process can be reached.
 *
 * @category errors
 */
export class DataDirLocked extends Schema.TaggedError<DataDirLocked>()("DataDirLocked", {
  dir: Schema.String,
  owner: LockOwner
}) {
  override get message(): string {
    const where = this.owner.adminUrl === undefined ? "" : ` (reachable at ${this.owner.adminUrl})`
    const file = path.join(this.dir, fileName)
    if (this.owner.pid <= 0) {
      return `the data directory ${this.dir} is in use by another process, which has not recorded itself in ${file} yet; ` +
        `try again in a moment, or point SIFT_DATA_DIR elsewhere`
    }
    const who = `the data directory ${this.dir} is in use by process ${this.owner.pid} on ${this.owner.hostname}${where}`
    // Seen through the kernel lock, the owner is certainly alive; otherwise it may be gone without the lockfile saying so.
    if (sameScope(this.owner)) return `${who}; stop that process, or point SIFT_DATA_DIR elsewhere`
    if (this.owner.hostname !== os.hostname()) {
      return `${who}, another host or container sharing the directory; stop it there, or point SIFT_DATA_DIR elsewhere ` +
        `(if nothing there uses the directory any more, delete ${file})`
    }
    return `${who}; stop that process, or point SIFT_DATA_DIR elsewhere (if process ${this.owner.pid} is not Sift, ` +
      `delete ${file})`
  }
}

/**
 * A held lock: `update` rewrites the owner's info (for instance the admin URL once the server listens).
 *
 * @category models
 */
export interface HeldLock {
  readonly path: string
  readonly owner: LockOwner
  readonly update: (info: LockInfo) => Effect.Effect<void>
}

// How long an opener waits for the holder of a bound socket to record itself in the lockfile (it does so right after
// binding) before reporting an unnamed owner.
const UNRECORDED_WAIT_MS = 2_000

/** A lock as taken: the lockfile, and the bound socket where there is one. */
interface Taken {
  readonly path: string
  readonly owner: lockfile.OwnerRecord
  readonly socket: Server | undefined
}

const lockedBy = (dir: string, owner: lockfile.OwnerRecord) => new DataDirLocked({ dir, owner: LockOwner.make(owner) })

/** Writes the lockfile; a recorded owner for which `stale` is true is replaced without a pid check. */
const takeFile = (dir: string, info: LockInfo, stale: (owner: lockfile.OwnerRecord) => boolean): Effect.Effect<Taken, DataDirLocked> => {
  const result = lockfile.acquire(dir, fileName, { ...info, netns: processLock.namespace }, stale)
  return result._tag === "Acquired"
    ? Effect.succeed({ path: result.path, owner: result.owner, socket: undefined })
    : Effect.fail(lockedBy(dir, result.owner))
}

/** Linux: the abstract socket first (the lock itself), then the lockfile (who holds it, and other namespaces' lock). */
const acquireWithSocket = (dir: string, info: LockInfo): Effect.Effect<Taken, DataDirLocked> =>
  Effect.gen(function*() {
    const name = yield* Effect.sync(() => {
      fs.mkdirSync(dir, { recursive: true })
      return processLock.nameFor(dir)
    })
    const deadline = Date.now() + UNRECORDED_WAIT_MS
    for (;;) {
      const bound = yield* Effect.promise(() => processLock.bind(name))
      if (bound !== "in-use") {
        // The socket is ours, so whoever recorded itself in this namespace has ended: its record is stale.
        return yield* takeFile(dir, info, sameScope).pipe(
          Effect.map((held): Taken => ({ ...held, socket: bound })),
          Effect.tapError(() => Effect.promise(() => processLock.unbind(bound)))
        )
      }
      const owner = lockfile.readOwner(path.resolve(dir, fileName))
      if (typeof owner === "object" && sameScope(owner)) return yield* Effect.fail(lockedBy(dir, owner))
      // The holder has bound but not yet written (or has just removed) its record: give it a moment.
      if (Date.now() > deadline) {
        return yield* Effect.fail(lockedBy(dir, typeof owner === "object" ? owner : { pid: 0, hostname: os.hostname(), acquiredAt: "" }))
      }
      // Real time, whatever clock the caller runs on: the other process does not follow a test clock.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
    }
  })

/**
 * Takes the lock on `dir` for the current scope, creating the directory if needed; fails with `DataDirLocked` when a
 * live process holds it (including this process, through another layer).
 *
 * @category constructors
 */
export const acquire = (dir: string, info: LockInfo = {}): Effect.Effect<HeldLock, DataDirLocked, Scope.Scope> =>
  Effect.acquireRelease(
    processLock.supported ? acquireWithSocket(dir, info) : Effect.suspend(() => takeFile(dir, info, () => false)),
    (held) =>
      Effect.promise(async () => {
        // The file first: while the socket is still bound, a new opener waits for it instead of reading a dead owner.
        lockfile.release(held.path, held.owner.pid)
        if (held.socket !== undefined) await processLock.unbind(held.socket)
      })
  ).pipe(
    Effect.map((held): HeldLock => {
      let owner = LockOwner.make(held.owner)
      return {
        path: held.path,
        get owner() {
          return owner
        },
        update: (next) =>
          Effect.sync(() => {
            owner = LockOwner.make({ ...owner, ...next })
            lockfile.rewrite(held.path, owner)
          })
      }
    })
  )

/**
 * Reads who owns `dir`: `None` when it is free or its lock is stale (left by a process that has ended).
 *
 * @category accessors
 */
export const read = (dir: string): Effect.Effect<Option.Option<LockOwner>> =>
  Effect.gen(function*() {
    const file = path.resolve(dir, fileName)
    const owner = lockfile.readOwner(file)
    if (typeof owner !== "object") return Option.none()
    const live = processLock.supported && sameScope(owner)
      ? yield* Effect.promise(() => processLock.isHeld(processLock.nameFor(dir)))
      : lockfile.isLive(file, owner)
    return live ? Option.some(LockOwner.make(owner)) : Option.none()
  })
