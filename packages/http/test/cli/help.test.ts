import { HelpDoc } from "@effect/cli"
import * as Span from "@effect/cli/HelpDoc/Span"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import * as HelpText from "../../src/internal/helpText.js"

const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url))

/** Runs the real `sift` executable (through tsx, on the sources) with its output piped, as a script or pager reads it. */
const sift = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "--conditions=@sift/source", bin, ...args], {
      env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env },
      timeout: 30_000
    }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    })
  })

const ESC = "\x1b["
const longest = (text: string) => Math.max(...text.split("\n").map((line) => line.length))

describe("sift --help through a pipe", () => {
  it("has no escape codes, no line over 120 characters, and names every subcommand", async () => {
    const { code, stdout } = await sift(["--help"])
    expect(code).toBe(0)
    expect(stdout).not.toContain(ESC)
    expect(longest(stdout)).toBeLessThanOrEqual(120)
    for (const command of ["serve", "scrape", "crawl", "batch", "batch submit", "batch list", "batch status", "batch results", "batch cancel", "map", "naics", "brand", "search", "styleguide", "fonts", "mcp", "keys", "keys create", "keys list", "keys revoke", "orgs", "orgs create", "orgs list"]) {
      expect(stdout).toMatch(new RegExp(`^\\s*- ${command}\\b`, "m"))
    }
    // The descriptions are all there, wrapped rather than cut.
    expect(stdout.replace(/\s+/g, " ")).toContain("SIGINT/SIGTERM stop it gracefully (in-flight requests finish, logs flush, the database closes).")
    expect(stdout).toContain("USAGE")
    expect(stdout).toContain("Exit codes: 0 ok")
  })

  it("sift scrape --help has no escape codes and no line over 120 characters, and still lists its options", async () => {
    const { code, stdout } = await sift(["scrape", "--help"])
    expect(code).toBe(0)
    expect(stdout).not.toContain(ESC)
    expect(longest(stdout)).toBeLessThanOrEqual(120)
    expect(stdout).toContain("--main-content")
    expect(stdout).toContain("--exclude")
    expect(stdout).toContain("<URL>")
    expect(stdout).toContain("$ sift scrape")
  })

  it("the help of a command group (sift keys) and of a nested command (sift keys create -h) is plain too", async () => {
    const group = await sift(["keys"])
    expect(group.code).toBe(0)
    expect(group.stdout).not.toContain(ESC)
    expect(group.stdout).toMatch(/^\s*- create\b/m)
    const nested = await sift(["keys", "create", "-h"])
    expect(nested.code).toBe(0)
    expect(nested.stdout).not.toContain(ESC)
    expect(longest(nested.stdout)).toBeLessThanOrEqual(120)
    expect(nested.stdout).toContain("--name")
  })

  it("sift batch submit --help lists its options and says what FILE holds", async () => {
    const { code, stdout } = await sift(["batch", "submit", "--help"])
    expect(code).toBe(0)
    expect(stdout).not.toContain(ESC)
    expect(longest(stdout)).toBeLessThanOrEqual(120)
    expect(stdout).toContain("$ sift batch submit")
    for (const option of ["--format", "--api", "--key", "--idempotency-key", "--webhook", "--watch", "<FILE>"]) expect(stdout).toContain(option)
    expect(stdout.replace(/\s+/g, " ")).toContain("one URL a line, or JSON lines with url, itemId and meta")
  })

  it("a command-line mistake is reported on stderr without escape codes", async () => {
    const { code, stderr } = await sift(["scrape"])
    expect(code).toBe(2)
    expect(stderr).not.toContain(ESC)
    expect(stderr).toContain("URL")
  })
})

describe("HelpText", () => {
  const page = HelpDoc.blocks([
    HelpDoc.h1("COMMANDS"),
    HelpDoc.enumeration([
      HelpDoc.p(Span.spans([Span.text("serve [--log-level trace | debug | info]"), Span.text("     "), Span.text("Run the server. ".repeat(20))]))
    ]),
    HelpDoc.p(Span.spans([Span.text("$ sift scrape [(-f, --format markdown | html | json)] [--main-content] [--timeout integer] <URL>")]))
  ])

  it("colours only a terminal without NO_COLOR, and pipes get 100 columns", () => {
    expect(HelpText.layoutFor({ isTTY: true, columns: 132 }, {})).toEqual({ width: 132, color: true })
    expect(HelpText.layoutFor({ isTTY: true, columns: 132 }, { NO_COLOR: "1" })).toEqual({ width: 132, color: false })
    expect(HelpText.layoutFor({ isTTY: true, columns: 132 }, { NO_COLOR: "" })).toEqual({ width: 132, color: true })
    expect(HelpText.layoutFor({}, {})).toEqual({ width: 100, color: false })
    expect(HelpText.render(page, { width: 100, color: true })).toContain(`${ESC}0;1mCOMMANDS`)
  })

  it("wraps to the width: a command row as usage then its description, a usage line between its items", () => {
    const text = HelpText.render(page, { width: 50, color: false })
    expect(longest(text)).toBeLessThanOrEqual(50)
    const lines = text.split("\n")
    expect(lines[2]).toBe("  - serve [--log-level trace | debug | info]")
    expect(lines[3]).toMatch(/^ {8}Run the server\. Run/)
    expect(text).toContain("\n$ sift scrape\n  [(-f, --format markdown | html | json)]\n  [--main-content] [--timeout integer] <URL>\n")
  })
})
