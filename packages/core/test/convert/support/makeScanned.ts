/**
 * Writes `test/fixtures/documents/scanned.pdf`: a page of the report rasterised at 150 dpi (poppler's pdftoppm) and
 * embedded as the only content of a new PDF, like a scanner's output. Run once with `npx tsx` and commit the result.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { imageOnly, simple } from "./pdfFixtures.js"

const dir = mkdtempSync(join(tmpdir(), "scan-"))
const source = await simple([
  "The lighthouse keeper logged the weather at dawn and at dusk.",
  "Visibility was good on most days of the season."
])
writeFileSync(join(dir, "source.pdf"), source)
execFileSync("pdftoppm", ["-r", "150", "-gray", "-png", "-singlefile", join(dir, "source.pdf"), join(dir, "page")])
const pdf = await imageOnly(readFileSync(join(dir, "page.png")))
writeFileSync(new URL("../../fixtures/documents/scanned.pdf", import.meta.url), pdf)
console.log(`scanned.pdf: ${pdf.length} bytes`)
