/**
 * Atomic lockfiles with stale-owner takeover, synchronous on purpose: each step is a single filesystem call whose
 * atomicity (link, mkdir) is what makes the lock safe between processes. Whether a recorded owner still lives is the
 * caller's knowledge first (`stale`: on Linux, the kernel lock of `processLock`), then, for owners the caller cannot
 * judge, a pid check.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** The JSON stored in a lockfile. */
export interface OwnerRecord {
  readonly pid: number
  readonly hostname: string
  readonly acquiredAt: string
  readonly adminUrl?: string | undefined
  readonly role?: string | undefined
  /** The owner's network namespace, where it holds its kernel lock (Linux). */
  readonly netns?: string | undefined
}

/** The outcome of one acquisition attempt. */
export type Acquisition =
  | { readonly _tag: "Acquired"; readonly path: string; readonly owner: OwnerRecord }
  | { readonly _tag: "Locked"; readonly owner: OwnerRecord }

// Lockfiles this process holds right now: a pid check alone cannot tell "me, through another layer" from "a previous
// process that had my pid" (pid 1 in containers), so the process remembers its own.
const heldHere = new Set<string>()

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

const parse = (text: string): OwnerRecord | undefined => {
  try {
    const value = JSON.parse(text)
    return typeof value?.pid === "number" && typeof value?.hostname === "string" ? value : undefined
  } catch {
    return undefined
  }
}

/** The owner recorded in `file`, "missing" or "unreadable". */
export const readOwner = (file: string): OwnerRecord | "missing" | "unreadable" => {
  try {
    return parse(fs.readFileSync(file, "utf8")) ?? "unreadable"
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing"
    throw error
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Whether the owner recorded in a lockfile still holds it, as far as a pid check on this host can tell. */
export const isLive = (file: string, owner: OwnerRecord): boolean => {
  // A lock from another host (shared volume) cannot be checked: respect it.
  if (owner.hostname !== os.hostname()) return true
  if (owner.pid === process.pid) return heldHere.has(path.resolve(file))
  return isAlive(owner.pid)
}

const writeExclusive = (file: string, owner: OwnerRecord): boolean => {
  // Write a private file, then hard-link it into place: the lockfile appears complete or not at all, and link fails
  // with EEXIST if someone else got there first.
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`
  fs.writeFileSync(temp, JSON.stringify(owner))
  try {
    fs.linkSync(temp, file)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  } finally {
    fs.rmSync(temp, { force: true })
  }
}

/** Removes a stale lockfile, guarded so that two takers cannot both remove (one of them a fresh lock). */
const removeStale = (file: string, stale: OwnerRecord | "unreadable"): void => {
  const guard = `${file}.takeover`
  try {
    fs.mkdirSync(guard)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    // A guard older than a few seconds was left by a crash during takeover.
    const stat = fs.statSync(guard, { throwIfNoEntry: false })
    if (stat !== undefined && Date.now() - stat.mtimeMs > 5_000) fs.rmSync(guard, { recursive: true, force: true })
    sleepSync(20)
    return
  }
  try {
    const current = readOwner(file)
    const same = current === stale ||
      (typeof current === "object" && typeof stale === "object" && current.pid === stale.pid &&
        current.acquiredAt === stale.acquiredAt)
    if (same) fs.rmSync(file, { force: true })
  } finally {
    fs.rmSync(guard, { recursive: true, force: true })
  }
}

/**
 * Tries to take `<dir>/<name>`; creates `dir` when missing. A recorded owner for which `stale` answers true is taken
 * over without a pid check.
 */
export const acquire = (
  dir: string,
  name: string,
  info: Omit<OwnerRecord, "pid" | "hostname" | "acquiredAt">,
  stale: (owner: OwnerRecord) => boolean = () => false
): Acquisition => {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.resolve(dir, name)
  const owner: OwnerRecord = { ...info, pid: process.pid, hostname: os.hostname(), acquiredAt: new Date().toISOString() }
  let unreadableSince: number | undefined
  for (;;) {
    if (writeExclusive(file, owner)) {
      heldHere.add(file)
      return { _tag: "Acquired", path: file, owner }
    }
    const current = readOwner(file)
    if (current === "missing") continue
    if (current === "unreadable") {
      // Only an interrupted rewrite or foreign junk leaves an unparsable lockfile; give a writer a moment first.
      unreadableSince ??= Date.now()
      if (Date.now() - unreadableSince < 500) {
        sleepSync(20)
        continue
      }
      removeStale(file, current)
      continue
    }
    if (!stale(current) && isLive(file, current)) return { _tag: "Locked", owner: current }
    removeStale(file, current)
  }
}

/** Replaces the owner record of a held lockfile (write then rename, so readers never see half a file). */
export const rewrite = (file: string, owner: OwnerRecord): void => {
  const temp = `${file}.${process.pid}.rewrite`
  fs.writeFileSync(temp, JSON.stringify(owner))
  fs.renameSync(temp, file)
}

/** Removes the lockfile if this process still owns it. */
export const release = (file: string, pid: number): void => {
  heldHere.delete(file)
  const current = readOwner(file)
  if (typeof current === "object" && current.pid === pid) fs.rmSync(file, { force: true })
}
