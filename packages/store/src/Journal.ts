/**
 * A redo journal in a Sift data directory, for embedded PGlite: a record (one line of JSON) is appended with a
 * synchronous write before the answer it stands for is sent, so a process killed at any moment leaves it in the file
 * for the next start to apply, while the database itself is written behind, in batches, off the request's path.
 * Waiting for PGlite's thread on every answer cost bench/http two thirds of its throughput on a loaded machine; a
 * write to the file is one system call on the request thread. The file survives the process being killed (it is in
 * the operating system's cache), as PGlite's own files do (PGlite runs with `fsync` off), not the machine losing power.
 *
 * Records go to segments (`journal/<time>-<pid>-<n>.ndjson`); a segment is removed once the database holds every
 * record in it (`appliedThrough`). Replaying must be idempotent: a record can be applied and still be
 * in its segment when the process stops.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** An open journal. */
export interface Journal {
  /**
   * Appends records (one JSON text each, without newlines); they are in the file when this returns, or it throws.
   * Returns the number of the first (records are numbered from 0 in the order appended).
   */
  readonly append: (records: ReadonlyArray<string>) => number
  /** The database now holds every record numbered below `next`: segments it holds wholly are removed. */
  readonly appliedThrough: (next: number) => void
  /** Closes the current segment (removing it when the database holds all of it). */
  readonly close: () => void
}

/** The sub-directory of the data directory that holds the segments. */
export const journalDir = "journal"

const segmentFiles = (dir: string): Array<string> => {
  const folder = path.join(dir, journalDir)
  if (!fs.existsSync(folder)) return []
  return fs.readdirSync(folder).filter((name) => name.endsWith(".ndjson")).sort().map((name) => path.join(folder, name))
}

/**
 * The records an earlier process left (complete lines only: a line cut short by a crash stood for no answer sent), in
 * the order written, and a function that removes their segments once they are applied.
 */
export const leftover = (dir: string): { readonly records: ReadonlyArray<string>; readonly remove: () => void } => {
  const files = segmentFiles(dir)
  const records: Array<string> = []
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8")
    const complete = text.slice(0, text.lastIndexOf("\n") + 1)
    for (const line of complete.split("\n")) if (line !== "") records.push(line)
  }
  return { records, remove: () => files.forEach((file) => fs.rmSync(file, { force: true })) }
}

/** Opens a new segment in `dir` (read `leftover` first); segments hold `segmentRecords` records before the next. */
export const open = (dir: string, options: { readonly segmentRecords?: number } = {}): Journal => {
  const folder = path.join(dir, journalDir)
  fs.mkdirSync(folder, { recursive: true })
  const perSegment = options.segmentRecords ?? 5_000
  const stamp = `${Date.now()}-${process.pid}`
  let serial = 0
  // Segments oldest first; `end` is the number of records appended up to and including the segment.
  const segments: Array<{ readonly file: string; fd: number | undefined; end: number }> = []
  let appended = 0
  let applied = 0
  const start = () => {
    const file = path.join(folder, `${stamp}-${String(serial++).padStart(6, "0")}.ndjson`)
    segments.push({ file, fd: fs.openSync(file, "a"), end: appended })
  }
  start()
  const removeApplied = () => {
    while (segments.length > 1 && segments[0]!.end <= applied) {
      const done = segments.shift()!
      if (done.fd !== undefined) fs.closeSync(done.fd)
      fs.rmSync(done.file, { force: true })
    }
  }
  return {
    append: (records) => {
      const first = appended
      if (records.length === 0) return first
      const current = segments[segments.length - 1]!
      const bytes = Buffer.from(`${records.join("\n")}\n`, "utf8")
      let at = 0
      while (at < bytes.length) at += fs.writeSync(current.fd!, bytes, at, bytes.length - at)
      appended += records.length
      current.end = appended
      if (current.end - (segments.length > 1 ? segments[segments.length - 2]!.end : 0) >= perSegment) {
        fs.closeSync(current.fd!)
        current.fd = undefined
        start()
      }
      return first
    },
    appliedThrough: (next) => {
      applied = Math.max(applied, next)
      removeApplied()
    },
    close: () => {
      for (const segment of segments) {
        if (segment.fd !== undefined) fs.closeSync(segment.fd)
        segment.fd = undefined
      }
      if (applied >= appended) for (const segment of segments) fs.rmSync(segment.file, { force: true })
      segments.length = 0
    }
  }
}
