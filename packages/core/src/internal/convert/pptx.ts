/**
 * PowerPoint (.pptx) → slides in presentation order: each slide's title as a heading, its text boxes as paragraphs
 * or (in body placeholders, or with bullets) nested lists, its tables as tables, picture descriptions, then its speaker
 * notes under "Notes". Read straight from the Office Open XML parts (zip + XML).
 */
import { isTag } from "domhandler"
import type { Element, ElementContent, Root } from "hast"
// JSZip is loaded at the first presentation, not at start.
import type JSZip from "jszip"
import { posix } from "node:path"
import { ContentError } from "../../Errors.js"
import { checkArchive } from "./archive.js"
import { documentTree, h, table } from "./hast.js"
import { childNamed, childrenNamed, descendantsNamed, parseXml, textOf, type XmlElement } from "./xml.js"

type Links = ReadonlyMap<string, string>

const relationships = async (zip: JSZip, part: string): Promise<Map<string, { target: string; type: string }>> => {
  const relsPath = posix.join(posix.dirname(part), "_rels", posix.basename(part) + ".rels")
  const xml = await zip.file(relsPath)?.async("string")
  const out = new Map<string, { target: string; type: string }>()
  if (xml === undefined) return out
  for (const rel of descendantsNamed(parseXml(xml), "Relationship")) {
    const target = rel.attribs["TargetMode"] === "External" ? rel.attribs["Target"]! : posix.join(posix.dirname(part), rel.attribs["Target"] ?? "")
    out.set(rel.attribs["Id"] ?? "", { target, type: rel.attribs["Type"] ?? "" })
  }
  return out
}

const placeholderType = (shape: XmlElement): string | undefined => {
  const ph = descendantsNamed(childNamed(shape, "p:nvSpPr") ?? shape, "p:ph")[0]
  return ph === undefined ? undefined : (ph.attribs["type"] ?? "body")
}

/** A paragraph's inline content: runs, line breaks and fields, with links. */
const runsOf = (paragraph: XmlElement, links: Links): Array<ElementContent> => {
  const out: Array<ElementContent> = []
  for (const child of paragraph.children) {
    if (!isTag(child)) continue
    if (child.name === "a:br") out.push(h("br"))
    if (child.name !== "a:r" && child.name !== "a:fld") continue
    const run = childNamed(child, "a:t")
    const text = run === undefined ? "" : textOf(run)
    const id = descendantsNamed(child, "a:hlinkClick")[0]?.attribs["r:id"]
    const href = id === undefined ? undefined : links.get(id)
    out.push(href !== undefined && /^(?:https?:|mailto:)/i.test(href) ? h("a", { href }, [text]) : { type: "text", value: text })
  }
  return out
}

const isBlank = (content: ReadonlyArray<ElementContent>) =>
  content.every((node) => node.type === "text" ? node.value.trim() === "" : node.type === "element" && node.tagName === "br")

/** A text body: bulleted paragraphs become (nested) lists, the others paragraphs. */
const textBody = (body: XmlElement, bulletsByDefault: boolean, links: Links): Array<Element> => {
  const out: Array<Element> = []
  const stack: Array<Element> = []
  for (const paragraph of childrenNamed(body, "a:p")) {
    const content = runsOf(paragraph, links)
    if (isBlank(content)) continue
    const props = childNamed(paragraph, "a:pPr")
    // PowerPoint's levels are 0 to 8; a forged `lvl="100000000"` would otherwise nest a list per level.
    const level = Math.min(8, Math.max(0, Number(props?.attribs["lvl"] ?? 0) || 0))
    const numbered = props !== undefined && childNamed(props, "a:buAutoNum") !== undefined
    const bulleted = props !== undefined && childNamed(props, "a:buNone") === undefined &&
      (bulletsByDefault || childNamed(props, "a:buChar") !== undefined || numbered) || (props === undefined && bulletsByDefault)
    if (!bulleted) {
      stack.length = 0
      out.push(h("p", {}, content))
      continue
    }
    while (stack.length > level + 1) stack.pop()
    while (stack.length < level + 1) {
      const list = h(numbered ? "ol" : "ul")
      const parentItem = stack[stack.length - 1]?.children.at(-1)
      if (parentItem !== undefined && parentItem.type === "element") parentItem.children.push(list)
      else out.push(list)
      stack.push(list)
    }
    stack[stack.length - 1]!.children.push(h("li", {}, content))
  }
  return out
}

const tableOf = (frame: XmlElement, links: Links): Element | undefined => {
  const tbl = descendantsNamed(frame, "a:tbl")[0]
  if (tbl === undefined) return undefined
  const rows = childrenNamed(tbl, "a:tr").map((tr) => childrenNamed(tr, "a:tc").map((tc) => {
    const paragraphs = descendantsNamed(tc, "a:p").map((p) => runsOf(p, links)).filter((c) => !isBlank(c))
    return paragraphs.flatMap((content, i) => i === 0 ? content : [h("br"), ...content])
  }))
  return rows.length === 0 ? undefined : table(rows)
}

/** Without a title placeholder (decks written by tools rather than from a layout), the slide's first text is its
 * title when it is one short line set in large type (24 pt or more). */
const looksLikeTitle = (body: XmlElement, into: { title?: string; blocks: Array<Element> }): boolean => {
  if (into.blocks.length > 0) return false
  const paragraphs = childrenNamed(body, "a:p").filter((p) => textOf(p).trim() !== "")
  if (paragraphs.length !== 1 || textOf(paragraphs[0]!).trim().length > 120) return false
  const sizes = descendantsNamed(paragraphs[0]!, "a:rPr").map((props) => Number(props.attribs["sz"] ?? 0))
  return sizes.length > 0 && sizes.every((size) => size >= 2400)
}

/** The blocks of a shape tree, recursing into groups; the title is returned apart. */
const shapes = (tree: XmlElement, links: Links, into: { title?: string; blocks: Array<Element> }): void => {
  for (const shape of tree.children) {
    if (!isTag(shape)) continue
    if (shape.name === "p:grpSp") shapes(shape, links, into)
    else if (shape.name === "p:graphicFrame") {
      const found = tableOf(shape, links)
      if (found !== undefined) into.blocks.push(found)
    } else if (shape.name === "p:pic") {
      const description = descendantsNamed(shape, "p:cNvPr")[0]?.attribs["descr"]?.trim()
      if (description) into.blocks.push(h("p", {}, [h("em", {}, [`Image: ${description}`])]))
    } else if (shape.name === "p:sp") {
      const type = placeholderType(shape)
      const body = childNamed(shape, "p:txBody")
      if (body === undefined || type === "sldNum" || type === "dt" || type === "ftr") continue
      if ((type === "title" || type === "ctrTitle" || (type === undefined && looksLikeTitle(body, into))) && into.title === undefined) {
        into.title = childrenNamed(body, "a:p").map((p) => textOf(p).trim()).filter(Boolean).join(" ")
        continue
      }
      for (const block of textBody(body, type === "body" || type === "obj", links)) into.blocks.push(block)
    }
  }
}

const slideContent = async (zip: JSZip, part: string): Promise<{ title?: string; blocks: Array<Element>; notes: Array<Element> }> => {
  const rels = await relationships(zip, part)
  const links: Links = new Map([...rels].map(([id, rel]) => [id, rel.target]))
  const root = parseXml(await zip.file(part)!.async("string"))
  const into: { title?: string; blocks: Array<Element> } = { blocks: [] }
  const tree = descendantsNamed(root, "p:spTree")[0]
  if (tree !== undefined) shapes(tree, links, into)
  const notesPart = [...rels.values()].find((rel) => rel.type.endsWith("/notesSlide"))?.target
  const notes: Array<Element> = []
  const notesXml = notesPart === undefined ? undefined : await zip.file(notesPart)?.async("string")
  if (notesXml !== undefined) {
    for (const shape of descendantsNamed(parseXml(notesXml), "p:sp")) {
      const body = childNamed(shape, "p:txBody")
      if (placeholderType(shape) === "body" && body !== undefined) for (const block of textBody(body, false, links)) notes.push(block)
    }
  }
  return { ...into, notes }
}

/** Converts a .pptx; a file without a readable presentation part is `Corrupt`, one that inflates past the caps `TooLarge`. */
export const convertPptx = async (bytes: Uint8Array): Promise<Root> => {
  await checkArchive(bytes, "pptx")
  let zip: JSZip
  let presentation: string | undefined
  try {
    zip = await (await import("jszip")).default.loadAsync(bytes)
    presentation = await zip.file("ppt/presentation.xml")?.async("string")
  } catch (error) {
    throw new ContentError({ reason: "Corrupt", detail: `The presentation cannot be read: ${(error as Error).message}` })
  }
  if (presentation === undefined) throw new ContentError({ reason: "Corrupt", detail: "The file has no ppt/presentation.xml part" })
  const rels = await relationships(zip, "ppt/presentation.xml")
  const order = descendantsNamed(parseXml(presentation), "p:sldId").flatMap((id) => rels.get(id.attribs["r:id"] ?? "")?.target ?? [])
  const body: Array<Element> = []
  for (const [i, part] of order.entries()) {
    if (zip.file(part) === null) continue
    const slide = await slideContent(zip, part)
    // Block by block: a slide may hold more blocks than one call takes arguments.
    body.push(h("h2", {}, [slide.title || `Slide ${i + 1}`]))
    for (const block of slide.blocks) body.push(block)
    if (slide.notes.length > 0) body.push(h("h3", {}, ["Notes"]))
    for (const block of slide.notes) body.push(block)
  }
  return documentTree(undefined, body)
}
