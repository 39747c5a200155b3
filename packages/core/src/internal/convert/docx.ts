/**
 * Word (.docx) → HTML by mammoth (headings from paragraph styles, lists, tables, links, footnotes, images inlined as
 * `data:` URIs) → the hast document. The title comes from the file's core properties when set.
 */
import type { Root } from "hast"
// mammoth and JSZip are loaded at the first Word document, not at start.
import type JSZip from "jszip"
import { ContentError } from "../../Errors.js"
import * as Html from "../../Html.js"
import { checkArchive } from "./archive.js"
import { parseXml, descendantsNamed, textOf } from "./xml.js"

const coreTitle = async (zip: JSZip): Promise<string | undefined> => {
  const xml = await zip.file("docProps/core.xml")?.async("string")
  if (xml === undefined) return undefined
  const title = descendantsNamed(parseXml(xml), "dc:title")[0]
  return title === undefined ? undefined : textOf(title).trim() || undefined
}

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;")

/** Converts a .docx; a file that is not a readable Word document is `Corrupt`, one that inflates past the caps `TooLarge`. */
export const convertDocx = async (bytes: Uint8Array): Promise<Root> => {
  await checkArchive(bytes, "docx")
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const [{ default: mammoth }, { default: zip }] = await Promise.all([import("mammoth"), import("jszip")])
  try {
    const [result, title] = await Promise.all([
      mammoth.convertToHtml({ buffer }),
      zip.loadAsync(buffer).then(coreTitle).catch(() => undefined)
    ])
    const head = title === undefined ? "" : `<title>${escapeHtml(title)}</title>`
    return Html.parse(`<!doctype html><html><head>${head}</head><body>${result.value}</body></html>`)
  } catch (error) {
    throw new ContentError({ reason: "Corrupt", detail: `The Word document cannot be read: ${(error as Error).message}` })
  }
}
