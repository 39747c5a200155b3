import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Journal from "../src/Journal.js"

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "sift-journal-"))
const segments = (dir: string) => fs.readdirSync(path.join(dir, Journal.journalDir)).sort()

describe("Journal", () => {
  it("records are in the file when append returns, numbered in order; a new process finds them", () => {
    const dir = tempDir()
    const journal = Journal.open(dir)
    expect(journal.append(['{"a":1}', '{"a":2}'])).toBe(0)
    expect(journal.append(['{"a":3}'])).toBe(2)
    // Read as a process started after a crash would (this one never closed the journal).
    expect(Journal.leftover(dir).records).toEqual(['{"a":1}', '{"a":2}', '{"a":3}'])
  })

  it("a line cut short by a crash is not a record", () => {
    const dir = tempDir()
    const journal = Journal.open(dir)
    journal.append(['{"a":1}'])
    const [segment] = segments(dir)
    fs.appendFileSync(path.join(dir, Journal.journalDir, segment!), '{"a":2, "cut')
    expect(Journal.leftover(dir).records).toEqual(['{"a":1}'])
  })

  it("segments the database holds wholly are removed; the rest stay for the next start", () => {
    const dir = tempDir()
    const journal = Journal.open(dir, { segmentRecords: 2 })
    for (let i = 0; i < 5; i++) journal.append([`{"n":${i}}`])
    expect(segments(dir)).toHaveLength(3)
    journal.appliedThrough(3) // records 0..2: the first segment only
    expect(segments(dir)).toHaveLength(2)
    expect(Journal.leftover(dir).records).toEqual(['{"n":2}', '{"n":3}', '{"n":4}'])
    journal.appliedThrough(4)
    expect(Journal.leftover(dir).records).toEqual(['{"n":4}'])
    // Closed with a record the database does not hold: it stays.
    journal.close()
    expect(Journal.leftover(dir).records).toEqual(['{"n":4}'])
  })

  it("closed with everything applied, nothing is left; leftover's remove clears what a start replayed", () => {
    const dir = tempDir()
    const first = Journal.open(dir)
    first.append(['{"x":1}'])
    first.appliedThrough(1)
    first.close()
    expect(Journal.leftover(dir).records).toEqual([])
    const second = Journal.open(dir)
    second.append(['{"x":2}'])
    const left = Journal.leftover(dir)
    expect(left.records).toEqual(['{"x":2}'])
    left.remove()
    expect(Journal.leftover(dir).records).toEqual([])
  })
})
