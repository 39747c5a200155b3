/**
 * The zip container of an Office file checked before mammoth, exceljs or JSZip see it: yauzl reads the central
 * directory (entry count and declared sizes, refused at once when over the caps), then every entry is inflated as a
 * stream whose output is counted and dropped, stopping as soon as the caps are passed: declared sizes can lie, so only
 * what an entry really inflates to counts. The libraries then expand at most what was measured here.
 */
import type { Readable } from "node:stream"
import yauzl from "yauzl"
import { ContentError } from "../../Errors.js"
import { MAX_ARCHIVE_BYTES, MAX_ARCHIVE_ENTRIES, MAX_ARCHIVE_MARKUP_BYTES, mib, tooLarge } from "./limits.js"

/** The Office formats read from a zip container. */
export type ArchiveFormat = keyof typeof MAX_ARCHIVE_MARKUP_BYTES

/** The parts the libraries parse into trees (their memory grows with these), as opposed to media copied as they are. */
const isMarkup = (name: string) => /\.(?:xml|rels|vml)$/i.test(name)

interface Tally {
  total: number
  markup: number
}

const over = (format: ArchiveFormat, tally: Tally, measured: string): ContentError | undefined => {
  const markupCap = MAX_ARCHIVE_MARKUP_BYTES[format]
  if (tally.markup > markupCap) {
    return tooLarge(`The ${format} file's XML ${measured} more than ${mib(markupCap)}; Sift converts ${format} files of at most ${mib(markupCap)} of XML`)
  }
  if (tally.total > MAX_ARCHIVE_BYTES) {
    return tooLarge(`The ${format} file ${measured} more than ${mib(MAX_ARCHIVE_BYTES)}; Sift converts archives of at most ${mib(MAX_ARCHIVE_BYTES)} inflated`)
  }
  return undefined
}

/** Counts what one entry inflates to, destroying the stream (and failing) once the tally passes a cap. */
const measureEntry = (stream: Readable, format: ArchiveFormat, markup: boolean, tally: Tally): Promise<void> =>
  new Promise((resolve, reject) => {
    stream.on("data", (chunk: Buffer) => {
      tally.total += chunk.byteLength
      if (markup) tally.markup += chunk.byteLength
      const error = over(format, tally, "inflates to")
      if (error !== undefined) {
        stream.destroy()
        reject(error)
      }
    })
    stream.on("error", reject)
    stream.on("end", resolve)
  })

const corrupt = (format: ArchiveFormat, error: unknown) =>
  error instanceof ContentError
    ? error
    : new ContentError({ reason: "Corrupt", detail: `The ${format} file is not a readable zip archive: ${(error as Error)?.message ?? String(error)}` })

/**
 * Refuses an Office archive with more than {@link MAX_ARCHIVE_ENTRIES} entries or whose parts inflate past the caps
 * (`TooLarge`); an unreadable container is `Corrupt`. Memory use is a few inflate buffers, whatever the file claims.
 */
export const checkArchive = async (bytes: Uint8Array, format: ArchiveFormat): Promise<void> => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let zip: yauzl.ZipFile
  try {
    // Names stay raw bytes: yauzl's file-name checks (absolute paths, `..`) are for extracting to disk, not reading.
    zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true, decodeStrings: false, validateEntrySizes: false })
  } catch (error) {
    throw corrupt(format, error)
  }
  try {
    if (zip.entryCount > MAX_ARCHIVE_ENTRIES) {
      throw tooLarge(`The ${format} file holds ${zip.entryCount} zip entries; Sift converts archives of at most ${MAX_ARCHIVE_ENTRIES}`)
    }
    const entries: Array<{ entry: yauzl.Entry; markup: boolean }> = []
    const declared: Tally = { total: 0, markup: 0 }
    for await (const entry of zip.eachEntry()) {
      const markup = isMarkup(entry.fileNameRaw.toString("latin1"))
      declared.total += entry.uncompressedSize
      if (markup) declared.markup += entry.uncompressedSize
      entries.push({ entry, markup })
    }
    const claimed = over(format, declared, "declares")
    if (claimed !== undefined) throw claimed
    const measured: Tally = { total: 0, markup: 0 }
    for (const { entry, markup } of entries) {
      await measureEntry(await zip.openReadStreamPromise(entry), format, markup, measured)
    }
  } catch (error) {
    throw corrupt(format, error)
  } finally {
    zip.close()
  }
}
