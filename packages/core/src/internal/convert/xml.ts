/**
 * A minimal XML element tree over htmlparser2's parser in XML mode, for the Office Open XML parts (slides, notes)
 * that no well-kept converter reads for us. Names keep their prefixes (`a:t`, `p:sp`).
 */
import { Parser } from "htmlparser2"

/** An XML element: its qualified name, attributes, and children (elements and text). */
export interface XmlElement {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: Array<XmlElement | string>
}

/** Parses an XML document into its root element (a synthetic `#document` holding the top-level nodes). */
export const parseXml = (xml: string): XmlElement => {
  const root: XmlElement = { name: "#document", attributes: {}, children: [] }
  const stack: Array<XmlElement> = [root]
  const parser = new Parser({
    onopentag: (name, attributes) => {
      const element: XmlElement = { name, attributes, children: [] }
      stack[stack.length - 1]!.children.push(element)
      stack.push(element)
    },
    ontext: (text) => {
      stack[stack.length - 1]!.children.push(text)
    },
    onclosetag: () => {
      if (stack.length > 1) stack.pop()
    }
  }, { xmlMode: true, decodeEntities: true })
  parser.end(xml)
  return root
}

/** Child elements with the given name. */
export const childrenNamed = (element: XmlElement, name: string): Array<XmlElement> =>
  element.children.filter((child): child is XmlElement => typeof child !== "string" && child.name === name)

/** The first child element with the given name. */
export const childNamed = (element: XmlElement, name: string): XmlElement | undefined => childrenNamed(element, name)[0]

/** Every descendant element with the given name, in document order. */
export const descendantsNamed = (element: XmlElement, name: string, out: Array<XmlElement> = []): Array<XmlElement> => {
  for (const child of element.children) {
    if (typeof child === "string") continue
    if (child.name === name) out.push(child)
    descendantsNamed(child, name, out)
  }
  return out
}

/** The concatenated text under an element. */
export const textOf = (element: XmlElement): string =>
  element.children.map((child) => typeof child === "string" ? child : textOf(child)).join("")
