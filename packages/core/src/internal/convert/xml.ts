/**
 * The Office Open XML parts that no well-kept converter reads for us (slides, notes, document properties) as
 * htmlparser2's DOM (domhandler) in XML mode, queried with domutils. Names keep their prefixes (`a:t`, `p:sp`) and
 * their case. The parts are bounded before they get here (`archive.ts`: each Office archive's XML is capped).
 */
import { type Document, type Element, type ParentNode } from "domhandler"
import { getElementsByTagName, textContent } from "domutils"
import { parseDocument } from "htmlparser2"

export type { Element as XmlElement } from "domhandler"

/** Parses an XML document into its DOM. */
export const parseXml = (xml: string): Document => parseDocument(xml, { xmlMode: true, decodeEntities: true })

/** Child elements with the given name. */
export const childrenNamed = (element: ParentNode, name: string): Array<Element> =>
  getElementsByTagName(name, element.children, false)

/** The first child element with the given name. */
export const childNamed = (element: ParentNode, name: string): Element | undefined =>
  getElementsByTagName(name, element.children, false, 1)[0]

/** Every descendant element with the given name (not the element itself), in document order. */
export const descendantsNamed = (element: ParentNode, name: string): Array<Element> =>
  getElementsByTagName(name, element.children, true)

/** The concatenated text under a node. */
export const textOf = (node: ParentNode): string => textContent(node)
