/**
 * Decompression bombs made in the test, small on the wire and huge once decoded: Office archives whose XML part
 * inflates to hundreds of megabytes (declared honestly, or declared tiny), archives with too many entries, a PNG whose
 * header claims 100,000 × 100,000 pixels, PDFs with a Flate content stream of spaces, too many pages or too many
 * scanned pages, and gzip/br/deflate HTTP bodies. The compressed data is produced as a stream, so making a bomb never
 * holds its inflated size in memory.
 */
import { crc32, createBrotliCompress, createDeflate, createDeflateRaw, createGzip, constants } from "node:zlib"
import type { Transform } from "node:stream"

const MiB = 1024 * 1024

/** Compressed data and what it inflates to. */
export interface Compressed {
  readonly data: Buffer
  /** Inflated length in bytes. */
  readonly size: number
  /** CRC-32 of the inflated bytes. */
  readonly crc: number
}

/**
 * Compresses `prefix`, then `size` bytes of `fill` (a byte, or a pattern repeated whole: `size` is then rounded down
 * to whole patterns), then `suffix`, through `stream`, about a mebibyte at a time.
 */
export const compressFill = async (stream: Transform, prefix: string, fill: number | string, size: number, suffix: string): Promise<Compressed> => {
  const out: Array<Buffer> = []
  stream.on("data", (chunk: Buffer) => out.push(chunk))
  const done = new Promise<void>((resolve, reject) => {
    stream.on("end", resolve)
    stream.on("error", reject)
  })
  const head = Buffer.from(prefix)
  const tail = Buffer.from(suffix)
  const chunk = typeof fill === "number"
    ? Buffer.alloc(MiB, fill)
    : Buffer.from(fill.repeat(Math.max(1, Math.floor(MiB / fill.length))))
  if (typeof fill === "string") size -= size % fill.length
  let crc = crc32(head)
  const write = async (buffer: Buffer) => {
    if (!stream.write(buffer)) await new Promise((resolve) => stream.once("drain", resolve))
  }
  await write(head)
  for (let left = size; left > 0; left -= chunk.length) {
    const part = left >= chunk.length ? chunk : chunk.subarray(0, left)
    crc = crc32(part, crc)
    await write(part)
  }
  crc = crc32(tail, crc)
  stream.end(tail)
  await done
  return { data: Buffer.concat(out), size: head.length + size + tail.length, crc }
}

/** Raw deflate (zip entries) of `fill` repeated between `prefix` and `suffix`. */
export const deflatedFill = (prefix: string, fill: number, size: number, suffix: string) =>
  compressFill(createDeflateRaw({ level: 9 }), prefix, fill, size, suffix)

/** An entry of {@link zip}: stored as given, or deflated; `declaredSize` may lie about the inflated size. */
export interface ZipEntry {
  readonly name: string
  readonly content: Buffer | Compressed
  readonly declaredSize?: number
}

/** A zip archive written by hand (local headers, central directory, end record), so sizes can be declared falsely. */
export const zip = (entries: ReadonlyArray<ZipEntry>): Buffer => {
  const locals: Array<Buffer> = []
  const centrals: Array<Buffer> = []
  let offset = 0
  for (const entry of entries) {
    const name = Buffer.from(entry.name)
    const stored = Buffer.isBuffer(entry.content)
    const data = Buffer.isBuffer(entry.content) ? entry.content : entry.content.data
    const size = entry.declaredSize ?? (Buffer.isBuffer(entry.content) ? entry.content.length : entry.content.size)
    const crc = Buffer.isBuffer(entry.content) ? crc32(entry.content) : entry.content.crc
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(stored ? 0 : 8, 8)
    local.writeUInt16LE(0x21, 12) // 1980-01-01
    local.writeUInt32LE(crc >>> 0, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(size, 22)
    local.writeUInt16LE(name.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(stored ? 0 : 8, 10)
    central.writeUInt16LE(0x21, 14)
    central.writeUInt32LE(crc >>> 0, 16)
    central.writeUInt32LE(data.length, 20)
    central.writeUInt32LE(size, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, data)
    centrals.push(central, name)
    offset += local.length + name.length + data.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8)
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

const contentTypes = (main: string, type: string) =>
  Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/${main}" ContentType="${type}"/></Types>`)

const rels = (target: string) =>
  Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${target}"/></Relationships>`)

/** The main part of each Office format, wrapped around a run of text. */
const mainParts = {
  docx: {
    name: "word/document.xml",
    type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
    prefix: `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>`,
    suffix: `</w:t></w:r></w:p></w:body></w:document>`
  },
  xlsx: {
    name: "xl/worksheets/sheet1.xml",
    type: "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml",
    prefix: `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>`,
    suffix: `</t></is></c></row></sheetData></worksheet>`
  },
  pptx: {
    name: "ppt/slides/slide1.xml",
    type: "application/vnd.openxmlformats-officedocument.presentationml.slide+xml",
    prefix: `<?xml version="1.0" encoding="UTF-8"?><p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>`,
    suffix: `</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`
  }
} as const

/** An Office format whose bombs {@link officeBomb} makes. */
export type OfficeFormat = keyof typeof mainParts

/**
 * A docx, xlsx or pptx whose main XML part inflates to `size` bytes of text ("AAAA..."). `declare: "honest"` states
 * that size in the zip headers; `"tiny"` claims 1 KB, so only inflating the entry reveals it.
 */
export const officeBomb = async (format: OfficeFormat, size: number, declare: "honest" | "tiny"): Promise<Buffer> => {
  const part = mainParts[format]
  const xml = await deflatedFill(part.prefix, 0x41, size, part.suffix)
  return zip([
    { name: "[Content_Types].xml", content: contentTypes(part.name, part.type) },
    { name: "_rels/.rels", content: rels(part.name) },
    { name: part.name, content: xml, ...(declare === "tiny" ? { declaredSize: 1024 } : {}) }
  ])
}

/** A docx-looking archive of `count` tiny entries. */
export const manyEntries = (count: number): Buffer =>
  zip([
    { name: "[Content_Types].xml", content: contentTypes(mainParts.docx.name, mainParts.docx.type) },
    { name: "word/document.xml", content: Buffer.from(`${mainParts.docx.prefix}hello${mainParts.docx.suffix}`) },
    ...Array.from({ length: count }, (_, i) => ({ name: `word/media/i${i}.bin`, content: Buffer.from([i & 0xff]) }))
  ])

const pngChunk = (type: string, data: Buffer) => {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, "latin1"), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body) >>> 0)
  return Buffer.concat([length, body, crc])
}

/** A PNG of a few dozen bytes whose header claims `width` × `height` 8-bit grey pixels. */
export const hugePng = (width: number, height: number): Buffer => {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 0 // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", Buffer.from([0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01])),
    pngChunk("IEND", Buffer.alloc(0))
  ])
}

/** A PDF from object bodies (object n is `objects[n - 1]`, 1 the catalog), with a correct cross-reference table. */
export const pdfFile = (objects: ReadonlyArray<string | Buffer>): Buffer => {
  const parts: Array<Buffer> = [Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1")]
  let offset = parts[0]!.length
  const offsets: Array<number> = []
  objects.forEach((body, i) => {
    offsets.push(offset)
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.isBuffer(body) ? body : Buffer.from(body, "latin1"), Buffer.from("\nendobj\n")])
    parts.push(object)
    offset += object.length
  })
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("") +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`
  parts.push(Buffer.from(xref))
  return Buffer.concat(parts)
}

/** A stream object: its dictionary entries and data. */
export const pdfStream = (dictionary: string, data: Buffer): Buffer =>
  Buffer.concat([Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`), data, Buffer.from("\nendstream")])

const font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"

/** A one-page PDF whose Flate content stream shows a line of text, then inflates to `size` bytes of spaces. */
export const pdfStreamBomb = async (size: number): Promise<Buffer> => {
  const content = await compressFill(createDeflate({ level: 9 }), "BT /F1 12 Tf 72 720 Td (Hello bomb) Tj ET\n", 0x20, size, "\n")
  return pdfFile([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    pdfStream("/Filter /FlateDecode", content.data),
    font
  ])
}

/**
 * A PDF of `count` pages sharing one content stream: page text `Page of text` (or, with `scanned`, a 1 × 1 grey
 * image and no text). `claimedCount` overrides the page tree's /Count.
 */
export const pdfPages = (count: number, options: { readonly scanned?: boolean; readonly claimedCount?: number } = {}): Buffer => {
  const first = 6
  const kids = Array.from({ length: count }, (_, i) => `${first + i} 0 R`).join(" ")
  const resources = options.scanned === true ? "<< /XObject << /Im1 5 0 R >> >>" : "<< /Font << /F1 5 0 R >> >>"
  const content = options.scanned === true ? "q 500 0 0 700 50 50 cm /Im1 Do Q" : "BT /F1 12 Tf 72 400 Td (Page of text) Tj ET"
  return pdfFile([
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${kids}] /Count ${options.claimedCount ?? count} >>`,
    "<< >>",
    pdfStream("", Buffer.from(content)),
    options.scanned === true
      ? pdfStream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8", Buffer.from([0x80]))
      : font,
    ...Array.from({ length: count }, () => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources ${resources} >>`)
  ])
}

/**
 * A PDF of `pages` large pages (200 × 200 inches) sharing one Flate content stream that shows about `characters`
 * letters, in lines of 10,000 at one point (pdfjs leaves out text outside the page, so it all fits).
 */
export const pdfLongText = async (characters: number, pages: number): Promise<Buffer> => {
  const line = `(${"A".repeat(10_000)}) '\n`
  const content = await compressFill(createDeflate({ level: 9 }), "BT /F1 1 Tf 1 TL 10 14000 Td\n", line, Math.ceil(characters / 10_000) * line.length, "ET\n")
  const kids = Array.from({ length: pages }, (_, i) => `${5 + i} 0 R`).join(" ")
  return pdfFile([
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    pdfStream("/Filter /FlateDecode", content.data),
    font,
    ...Array.from({ length: pages }, () => "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 14400 14400] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>")
  ])
}

/** An HTTP body of `size` bytes of spaces in a paragraph, under a `Content-Encoding`. */
export const encodedBody = async (coding: "gzip" | "br" | "deflate", size: number): Promise<Buffer> => {
  const stream = coding === "gzip"
    ? createGzip({ level: 9 })
    : coding === "br"
    ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } })
    : createDeflate({ level: 9 })
  return (await compressFill(stream, "<html><body><p>", 0x20, size, "</p></body></html>")).data
}
