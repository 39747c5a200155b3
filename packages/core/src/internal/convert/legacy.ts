/**
 * Legacy binary Office files (.doc, .xls, .ppt, and .xlsb) are converted to their Open XML twins by LibreOffice
 * headless, then read like those (the twin passes the same archive caps as an upload). Without LibreOffice the
 * conversion is `Unsupported`, naming the package to install. LibreOffice runs as a child process bounded in time
 * and in the size of every file it writes (its temporary files included: they go to the scratch folder too).
 */
import { readdir, readFile, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { ContentError } from "../../Errors.js"
import { LEGACY_TIMEOUT_MS, MAX_LEGACY_INPUT_BYTES, MAX_LEGACY_OUTPUT_BYTES, mib, tooLarge } from "./limits.js"
import { withScratch } from "./pdf/ocr.js"
import { runTool } from "./tools.js"

/** The Open XML type each legacy type becomes. */
export const modernOf = { doc: "docx", xls: "xlsx", xlsb: "xlsx", ppt: "pptx" } as const

/** Whether LibreOffice wrote a file up to the cap (its write past the cap was refused, whatever it reported). */
const hitOutputCap = async (dir: string): Promise<boolean> => {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  for (const entry of entries) {
    if (!entry.isFile()) continue
    const size = await stat(join(entry.parentPath ?? entry.path, entry.name)).then((s) => s.size, () => 0)
    if (size >= MAX_LEGACY_OUTPUT_BYTES) return true
  }
  return false
}

/** Converts a legacy file to its Open XML twin's bytes. */
export const toOpenXml = (bytes: Uint8Array, type: keyof typeof modernOf, signal?: AbortSignal): Promise<Uint8Array> => {
  if (bytes.byteLength > MAX_LEGACY_INPUT_BYTES) {
    return Promise.reject(tooLarge(`The .${type} file is larger than ${mib(MAX_LEGACY_INPUT_BYTES)}; Sift converts legacy Office files up to that size`))
  }
  return withScratch(async (dir) => {
    const input = join(dir, `input.${type}`)
    await writeFile(input, bytes)
    const target = modernOf[type]
    const outputTooLarge = () =>
      tooLarge(`Converting the .${type} file wrote more than ${mib(MAX_LEGACY_OUTPUT_BYTES)}; Sift stopped LibreOffice`)
    try {
      // A private profile per run: concurrent soffice processes sharing one profile block each other.
      await runTool("soffice", [
        `-env:UserInstallation=file://${join(dir, "profile")}`, "--headless", "--norestore", "--convert-to", target, "--outdir", dir, input
      ], { signal, timeoutMs: LEGACY_TIMEOUT_MS, maxFileBytes: MAX_LEGACY_OUTPUT_BYTES, env: { TMPDIR: dir } })
    } catch (error) {
      if (error instanceof ContentError && error.reason === "CapabilityMissing") {
        throw new ContentError({
          reason: "Unsupported",
          detail: `Legacy .${type} files need LibreOffice, which is not installed on this server (Debian: libreoffice-writer-nogui, libreoffice-calc-nogui, libreoffice-impress-nogui); upload .${target} instead`
        })
      }
      if (error instanceof ContentError && error.reason === "TooLarge") throw outputTooLarge()
      if (await hitOutputCap(dir)) throw outputTooLarge()
      throw error
    }
    // soffice may report success after a refused write; a file at the cap is a truncated one.
    if (await hitOutputCap(dir)) throw outputTooLarge()
    try {
      return new Uint8Array(await readFile(join(dir, `input.${target}`)))
    } catch {
      throw new ContentError({ reason: "Corrupt", detail: `LibreOffice could not convert the .${type} file` })
    }
  })
}
