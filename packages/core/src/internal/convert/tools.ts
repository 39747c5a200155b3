/**
 * Running the system tools some conversions need (poppler's `pdftoppm`, `tesseract`, LibreOffice's `soffice`): their
 * output as bytes, cancelled through an `AbortSignal` (an interrupted scrape kills the child), bounded in time and,
 * when asked, in the size of any file they write (`prlimit --fsize`: the kernel stops a write past it), and a missing
 * tool reported as the Debian package that provides it.
 */
import { execFile } from "node:child_process"
import { accessSync, constants } from "node:fs"
import { delimiter, join } from "node:path"
import { ContentError } from "../../Errors.js"
import { mib, tooLarge } from "./limits.js"

/** Which Debian package provides each tool, for the error that names what is missing. */
const packages: Record<string, string> = {
  pdftoppm: "poppler-utils",
  tesseract: "tesseract-ocr",
  soffice: "libreoffice-core (with libreoffice-writer, -calc, -impress)"
}

/** Largest standard output read from a tool. */
const MAX_STDOUT_BYTES = 64 * 1024 * 1024

let prlimitPath: string | null | undefined

/** util-linux's `prlimit` on the PATH, looked up once; without it file sizes are checked only afterwards. */
const prlimit = (): string | null => {
  if (prlimitPath !== undefined) return prlimitPath
  prlimitPath = null
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    try {
      accessSync(join(dir, "prlimit"), constants.X_OK)
      prlimitPath = join(dir, "prlimit")
      break
    } catch {
      // not in this directory
    }
  }
  return prlimitPath
}

/** How a tool runs. */
export interface ToolOptions {
  readonly signal?: AbortSignal | undefined
  /** Default two minutes; the child is killed past it. */
  readonly timeoutMs?: number
  readonly cwd?: string
  /** Largest file the tool may write; a write past it kills the tool (SIGXFSZ) and rejects with `TooLarge`. */
  readonly maxFileBytes?: number | undefined
  /** Variables added to the environment. */
  readonly env?: Readonly<Record<string, string>> | undefined
}

/**
 * Runs a tool to completion and resolves with its standard output; a missing tool rejects with `CapabilityMissing`,
 * a file written past `maxFileBytes` or standard output past 64 MiB with `TooLarge`.
 */
export const runTool = (command: string, args: ReadonlyArray<string>, options: ToolOptions = {}): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const limiter = options.maxFileBytes === undefined ? null : prlimit()
    const [file, argv] = limiter === null
      ? [command, args]
      : [limiter, [`--fsize=${options.maxFileBytes}`, "--", command, ...args]]
    const missing = () =>
      new ContentError({
        reason: "CapabilityMissing",
        detail: `${command} is not installed on this server (Debian package ${packages[command] ?? command})`
      })
    execFile(file, argv, {
      encoding: "buffer",
      maxBuffer: MAX_STDOUT_BYTES,
      signal: options.signal,
      timeout: options.timeoutMs ?? 120_000,
      cwd: options.cwd,
      env: { ...process.env, OMP_THREAD_LIMIT: "1", ...options.env }
    }, (error, stdout, stderr) => {
      if (error === null) return resolve(stdout)
      const code = (error as NodeJS.ErrnoException).code as unknown
      if (code === "ENOENT") return reject(missing())
      // prlimit exits 127 when it cannot execute the command.
      if (limiter !== null && code === 127 && /failed to execute/.test(String(stderr))) return reject(missing())
      if (error.name === "AbortError") return reject(error)
      if ((error as { signal?: string }).signal === "SIGXFSZ") {
        return reject(tooLarge(`${command} wrote a file larger than ${mib(options.maxFileBytes ?? 0)}; Sift stopped it`))
      }
      if (code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") {
        return reject(tooLarge(`${command} printed more than ${mib(MAX_STDOUT_BYTES)}; Sift stopped it`))
      }
      if ((error as { killed?: boolean }).killed === true && (error as { signal?: string }).signal === "SIGTERM") {
        return reject(new ContentError({ reason: "Corrupt", detail: `${command} did not finish within ${Math.round((options.timeoutMs ?? 120_000) / 1000)} s` }))
      }
      reject(new ContentError({
        reason: "Corrupt",
        detail: `${command} failed: ${String(stderr).trim().split("\n").slice(-1)[0] || error.message}`
      }))
    })
  })
