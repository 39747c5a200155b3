/**
 * How much a file may decode into before Sift refuses it (`ContentError` `TooLarge`, 413 `CONTENT_TOO_LARGE`). A
 * small upload can declare or inflate to gigabytes (a zip bomb, a Flate stream of spaces, a PNG header claiming
 * 100,000 × 100,000 pixels); every decoder in the convert stage is bounded by one of these, checked before the
 * library that would expand it sees the file. Documented in docs/configuration.md ("Limits on decoded content").
 */
import { ContentError } from "../../Errors.js"

const MiB = 1024 * 1024

/** Entries an Office archive (docx, xlsx, pptx) may hold. Real documents have tens to a few hundred. */
export const MAX_ARCHIVE_ENTRIES = 10_000

/** Bytes all entries of an Office archive may inflate to, media included. */
export const MAX_ARCHIVE_BYTES = 128 * MiB

/**
 * Bytes the XML parts of an Office archive may inflate to, by format. Each library holds a tree many times the size of
 * the XML it parses (measured peak RSS per MiB of XML: mammoth about 90 MiB, exceljs about 12, our slide reader
 * about 15), so each cap keeps one conversion near or under 1.5 GB of memory.
 */
export const MAX_ARCHIVE_MARKUP_BYTES = { docx: 16 * MiB, xlsx: 64 * MiB, pptx: 64 * MiB } as const

/** Largest legacy Office file (.doc, .xls, .ppt) handed to LibreOffice: the POST /parse upload limit. */
export const MAX_LEGACY_INPUT_BYTES = 25 * MiB

/** Largest file LibreOffice may write while converting one legacy file (its process is stopped past it). */
export const MAX_LEGACY_OUTPUT_BYTES = 64 * MiB

/** How long LibreOffice may take over one legacy file. */
export const LEGACY_TIMEOUT_MS = 120_000

/** Pixels an image may declare before it is decoded or OCRed (the 40-megapixel screenshot cap). */
export const MAX_IMAGE_PIXELS = 40_000_000

/** PDF pages read in one conversion (narrow a longer document with a page range). */
export const MAX_PDF_PAGES = 2_000

/** Scanned PDF pages rasterised and OCRed in one conversion. */
export const MAX_OCR_PAGES = 100

/** Characters of text taken from one PDF (about 4,000 dense pages). */
export const MAX_PDF_TEXT_CHARS = 20_000_000

/**
 * Bytes one Flate-compressed PDF stream (a page's content, a form, an object stream) may inflate to. pdfjs holds
 * far more than the stream while it reads one (a page showing one 60 MB string peaked at 3 GB), so this is small.
 */
export const MAX_PDF_STREAM_BYTES = 16 * MiB

/** Bytes one embedded font program may inflate to (unsubsetted CJK fonts run to 20 MB; pdfjs parses them as binary). */
export const MAX_PDF_FONT_BYTES = 64 * MiB

/** Bytes all Flate-compressed, non-image streams of one PDF may inflate to together. */
export const MAX_PDF_STREAMS_BYTES = 256 * MiB

/** Formats a byte count for messages: `16 MiB`. */
export const mib = (bytes: number): string => `${Math.round(bytes / MiB * 10) / 10} MiB`

/** The `TooLarge` error with a message saying which cap was hit. */
export const tooLarge = (detail: string): ContentError => new ContentError({ reason: "TooLarge", detail })
