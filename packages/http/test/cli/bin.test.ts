/**
 * The `sift` executable npm links: a committed plain-JS file that exists before any build (npm links a workspace's
 * bins before `prepare` builds it and silently skips a missing file), which runs the build or says how to make it.
 * FreshClone.test.ts (CI only) runs the whole README set-up on a clone.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { shebangEnv } from "../../../../bench/support/allocator.js"

const root = fileURLToPath(new URL("../../../../", import.meta.url))
const packageDir = path.join(root, "packages/http")

describe("the sift bin", () => {
  it("is a committed, executable file with a shebang, named by package.json and the lock file", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8"))
    const bin = manifest.bin.sift as string
    expect(bin).not.toMatch(/dist\//)
    const relative = path.posix.join("packages/http", bin)
    // Tracked by git with the executable bit: a fresh clone has it before `npm install` links bins.
    expect(execFileSync("git", ["ls-files", "-s", "--", relative], { cwd: root, encoding: "utf8" })).toMatch(/^100755 /)
    expect(fs.readFileSync(path.join(packageDir, bin), "utf8")).toMatch(/^#!\/usr\/bin\/env -S (\S+=\S* )*node\n/)
    expect(manifest.files).toContain(bin.replace(/^\.\//, "").split("/")[0])
    // npm links from the lock file's record of the workspace, so it must name the same file.
    const lock = JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8"))
    expect(lock.packages["packages/http"].bin.sift).toBe(bin.replace(/^\.\//, ""))
  })

  it("runs the build with the arguments as given, or says to build when there is none", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-bin-"))
    fs.mkdirSync(path.join(dir, "bin"))
    fs.copyFileSync(path.join(packageDir, "bin/sift.js"), path.join(dir, "bin/sift.js"))
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }))

    const unbuilt = spawnSync(process.execPath, [path.join(dir, "bin/sift.js"), "--help"], { encoding: "utf8" })
    expect(unbuilt.status).toBe(1)
    expect(unbuilt.stdout).toBe("")
    expect(unbuilt.stderr).toContain(`sift is not built yet (${path.join(dir, "dist/bin.js")} is missing)`)
    expect(unbuilt.stderr).toContain("npm run build")

    fs.mkdirSync(path.join(dir, "dist"))
    fs.writeFileSync(path.join(dir, "dist/bin.js"), "console.log(JSON.stringify(process.argv.slice(2))); process.exitCode = 7\n")
    const built = spawnSync(process.execPath, [path.join(dir, "bin/sift.js"), "keys", "list", "--json"], { encoding: "utf8" })
    expect(built.status).toBe(7)
    expect(JSON.parse(built.stdout)).toEqual(["keys", "list", "--json"])
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("starts node with the allocator settings of its first line, which npm start and the Dockerfile share", () => {
    const firstLine = fs.readFileSync(path.join(packageDir, "bin/sift.js"), "utf8").split("\n")[0]!
    const settings = shebangEnv(firstLine)
    expect(settings).toEqual({ MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072" })
    // Run as npm links it (executed, not through node): the kernel reads the line, env sets the variables.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-bin-env-"))
    fs.mkdirSync(path.join(dir, "bin"))
    fs.mkdirSync(path.join(dir, "dist"))
    fs.copyFileSync(path.join(packageDir, "bin/sift.js"), path.join(dir, "bin/sift.js"))
    fs.chmodSync(path.join(dir, "bin/sift.js"), 0o755)
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }))
    fs.writeFileSync(path.join(dir, "dist/bin.js"),
      "console.log(JSON.stringify({ argv: process.argv.slice(2), arena: process.env.MALLOC_ARENA_MAX, mmap: process.env.MALLOC_MMAP_THRESHOLD_ }))\n")
    const { MALLOC_ARENA_MAX: _a, MALLOC_MMAP_THRESHOLD_: _m, ...env } = process.env
    const ran = spawnSync(path.join(dir, "bin/sift.js"), ["serve", "--port", "1"], { encoding: "utf8", env })
    expect(ran.stderr).toBe("")
    expect(JSON.parse(ran.stdout)).toEqual({ argv: ["serve", "--port", "1"], arena: "2", mmap: "131072" })
    fs.rmSync(dir, { recursive: true, force: true })
    // `npm start` executes the file (so the line applies); the image runs it through node, so it sets them itself.
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
    expect(manifest.scripts.start).toMatch(/&& packages\/http\/bin\/sift\.js serve$/)
    const dockerfile = fs.readFileSync(path.join(root, "Dockerfile"), "utf8")
    for (const [name, value] of Object.entries(settings)) expect(dockerfile).toContain(`\n    ${name}=${value} \\\n`)
  })
})
