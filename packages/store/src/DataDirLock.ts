/**
 * The data-directory lock. PGlite must never be opened by two processes at once (that corrupts it), so the process
 * that opens a data directory first creates `<dir>/sift.lock` atomically, with its pid and, once known, the URL where
 * it can be reached. A second opener gets `DataDirLocked` naming the owner; a lock left by a dead process is taken over.
 * The CLI reads the lock to find a server that owns the directory.
 *
 * @since 0.1.0
 */
import { Effect, Option, Schema, Scope } from "effect"
import * as lockfile from "./internal/lockfile.js"

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
  role: Schema.optional(Schema.String)
}) {}

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
    return `the data directory ${this.dir} is in use by process ${this.owner.pid} on ${this.owner.hostname}${where}; ` +
      `stop it or point SIFT_DATA_DIR elsewhere`
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

/**
 * Takes the lock on `dir` for the current scope, creating the directory if needed; fails with `DataDirLocked` when a
 * live process holds it (including this process, through another layer).
 *
 * @category constructors
 */
export const acquire = (dir: string, info: LockInfo = {}): Effect.Effect<HeldLock, DataDirLocked, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const result = lockfile.acquire(dir, fileName, info)
      return result._tag === "Acquired"
        ? Effect.succeed(result)
        : Effect.fail(new DataDirLocked({ dir, owner: LockOwner.make(result.owner) }))
    }),
    (held) => Effect.sync(() => lockfile.release(held.path, held.owner.pid))
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
 * Reads who owns `dir`: `None` when it is free or its lock is stale (left by a dead process).
 *
 * @category accessors
 */
export const read = (dir: string): Effect.Effect<Option.Option<LockOwner>> =>
  Effect.sync(() => Option.map(Option.fromNullable(lockfile.readLive(dir, fileName)), (o) => LockOwner.make(o)))
