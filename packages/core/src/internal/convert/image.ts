/**
 * Images → their text through OCR (tesseract reads the file as it is), laid out like a scanned PDF page: headings by
 * size, paragraphs, columns and tables from word positions. The size an image declares is read from its header
 * first (image-size: every format tesseract reads, BMP and PNM included, without decoding a pixel), so a 1 KB PNG that
 * claims 100,000 × 100,000 pixels is refused before tesseract would try to allocate them.
 */
import type { Root } from "hast"
import { imageSize } from "image-size"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { ContentError } from "../../Errors.js"
import { documentTree } from "./hast.js"
import { MAX_IMAGE_PIXELS, tooLarge } from "./limits.js"
import { typographyOf } from "./pdf/blocks.js"
import { toLines } from "./pdf/lines.js"
import { imageRuns, withScratch } from "./pdf/ocr.js"
import { blocksOfPage } from "./pdf/page.js"

/** Refuses an image whose header declares more than {@link MAX_IMAGE_PIXELS}, or whose header cannot be read. */
export const checkPixels = (bytes: Uint8Array, extension: string): void => {
  let size: { width?: number | undefined; height?: number | undefined }
  try {
    size = imageSize(bytes)
  } catch (error) {
    throw new ContentError({ reason: "Corrupt", detail: `The ${extension} image's header cannot be read: ${(error as Error).message}` })
  }
  const { width = 0, height = 0 } = size
  if (width * height > MAX_IMAGE_PIXELS) {
    throw tooLarge(`The ${extension} image is ${width} × ${height} pixels; Sift reads images of at most ${MAX_IMAGE_PIXELS / 1e6} megapixels`)
  }
}

/** Recognises the text of an image file; the DPI assumed for sizes is tesseract's default for unknown images. */
export const convertImage = (bytes: Uint8Array, extension: string, signal?: AbortSignal): Promise<Root> => {
  try {
    checkPixels(bytes, extension)
  } catch (error) {
    return Promise.reject(error)
  }
  return withScratch(async (dir) => {
    const path = join(dir, `image.${extension}`)
    await writeFile(path, bytes)
    const lines = toLines(await imageRuns(path, signal, 300))
    return documentTree(undefined, blocksOfPage(lines, typographyOf(lines)))
  })
}
