/**
 * Legacy binary Office files (.doc, .xls, .ppt, and .xlsb) are converted to their Open XML twins by LibreOffice
 * headless, then read like those. Without LibreOffice the conversion is `Unsupported`, naming the package to install.
 */
import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { ContentError } from "../../Errors.js"
import { withScratch } from "./pdf/ocr.js"
import { runTool } from "./tools.js"

/** The Open XML type each legacy type becomes. */
export const modernOf = { doc: "docx", xls: "xlsx", xlsb: "xlsx", ppt: "pptx" } as const

/** Converts a legacy file to its Open XML twin's bytes. */
export const toOpenXml = (bytes: Uint8Array, type: keyof typeof modernOf, signal?: AbortSignal): Promise<Uint8Array> =>
  withScratch(async (dir) => {
    const input = join(dir, `input.${type}`)
    await writeFile(input, bytes)
    const target = modernOf[type]
    try {
      // A private profile per run: concurrent soffice processes sharing one profile block each other.
      await runTool("soffice", [
        `-env:UserInstallation=file://${join(dir, "profile")}`, "--headless", "--norestore", "--convert-to", target, "--outdir", dir, input
      ], { signal, timeoutMs: 120_000 })
    } catch (error) {
      if (error instanceof ContentError && error.reason === "CapabilityMissing") {
        throw new ContentError({
          reason: "Unsupported",
          detail: `Legacy .${type} files need LibreOffice, which is not installed on this server (Debian: libreoffice-writer-nogui, libreoffice-calc-nogui, libreoffice-impress-nogui); upload .${target} instead`
        })
      }
      throw error
    }
    try {
      return new Uint8Array(await readFile(join(dir, `input.${target}`)))
    } catch {
      throw new ContentError({ reason: "Corrupt", detail: `LibreOffice could not convert the .${type} file` })
    }
  })
