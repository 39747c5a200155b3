/**
 * Images → their text through OCR (tesseract reads the file as it is), laid out like a scanned PDF page: headings by
 * size, paragraphs, columns and tables from word positions.
 */
import type { Root } from "hast"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { documentTree } from "./hast.js"
import { typographyOf } from "./pdf/blocks.js"
import { toLines } from "./pdf/lines.js"
import { imageRuns, withScratch } from "./pdf/ocr.js"
import { blocksOfPage } from "./pdf/page.js"

/** Recognises the text of an image file; the DPI assumed for sizes is tesseract's default for unknown images. */
export const convertImage = (bytes: Uint8Array, extension: string, signal?: AbortSignal): Promise<Root> =>
  withScratch(async (dir) => {
    const path = join(dir, `image.${extension}`)
    await writeFile(path, bytes)
    const lines = toLines(await imageRuns(path, signal, 300))
    return documentTree(undefined, blocksOfPage(lines, typographyOf(lines)))
  })
