/**
 * Running the system tools some conversions need (poppler's `pdftoppm`, `tesseract`, LibreOffice's `soffice`): their
 * output as bytes, cancelled through an `AbortSignal` (an interrupted scrape kills the child), and a missing tool
 * reported as the Debian package that provides it.
 */
import { execFile } from "node:child_process"
import { ContentError } from "../../Errors.js"

/** Which Debian package provides each tool, for the error that names what is missing. */
const packages: Record<string, string> = {
  pdftoppm: "poppler-utils",
  tesseract: "tesseract-ocr",
  soffice: "libreoffice-core (with libreoffice-writer, -calc, -impress)"
}

/** Runs a tool to completion and resolves with its standard output; a missing tool rejects with `CapabilityMissing`. */
export const runTool = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly signal?: AbortSignal | undefined; readonly timeoutMs?: number; readonly cwd?: string } = {}
): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    execFile(command, args, {
      encoding: "buffer",
      maxBuffer: 64 * 1024 * 1024,
      signal: options.signal,
      timeout: options.timeoutMs ?? 120_000,
      cwd: options.cwd,
      env: { ...process.env, OMP_THREAD_LIMIT: "1" }
    }, (error, stdout, stderr) => {
      if (error === null) return resolve(stdout)
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        return reject(new ContentError({
          reason: "CapabilityMissing",
          detail: `${command} is not installed on this server (Debian package ${packages[command] ?? command})`
        }))
      }
      if (error.name === "AbortError") return reject(error)
      reject(new ContentError({
        reason: "Corrupt",
        detail: `${command} failed: ${String(stderr).trim().split("\n").slice(-1)[0] || error.message}`
      }))
    })
  })
