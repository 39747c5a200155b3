/**
 * Cleans the chosen content: blocks inside it that read like chrome (mostly links, or names saying so) are removed,
 * while headings, paragraphs, lists of text, tables, code and images stay.
 */
import type { Element, ElementContent } from "hast"
import { attributeHint } from "./hints.js"
import { holdsParagraph, isDataTable, maxByline } from "./chrome.js"
import { continuation, furniture, furnitureOpening, readerNotice, relatedLabel, relatedLead } from "./phrases.js"
import { type Stats, inlineTags, linkDensity, textOf } from "./stats.js"

/** Blocks inside the content that are more than this share link text are navigation left over. */
const maxLinkDensity = 0.35
const containerTags = new Set(["div", "section", "ul", "ol", "dl", "table", "form", "header", "nav", "center", "span"])

/** Whether a block inside the content is chrome left over from the page layout. */
const isLeftover = (element: Element, s: Stats): boolean => {
  if (!containerTags.has(element.tagName)) return false
  const hint = attributeHint(element)
  if (hint === "chrome" && s.text < 400) return true
  // The article's author line is mostly a link to the author's page; an author box (a bio, a follow button) is not
  // article text even when laxer chrome rules kept it.
  if (hint === "byline") return s.text <= maxAuthorBox && (s.text > maxByline || holdsParagraph(element))
  const density = linkDensity(s)
  // A table with a header cell holds data (items with links to them), never a layout of navigation links.
  if (density > maxLinkDensity && s.text < 1000 && !isDataTable(element)) return true
  return false
}



/** An author box is a short bio: a block named like a byline and longer holds the article. */
const maxAuthorBox = 1000

/** A dateline is a date and a time at most, with a weekday or a word ("Updated") before it. */
const maxDateline = 40
const dateOf = "(?:" + [
  "\\d{1,2}[./-] ?\\d{1,2}[./-] ?\\d{2,4}", "\\d{4}-\\d{2}-\\d{2}",
  // 31. Mai 2012, 16 marca 2021, 3 de mayo de 2022; May 3rd, 2022
  "\\d{1,2}\\.? (?:de )?\\p{L}{3,12}\\.?,? (?:de )?\\d{4}", "\\p{L}{3,12}\\.? \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}"
].join("|") + ")"
const timeOf = "\\d{1,2}[:.]\\d{2}(?: ?(?:uhr|h|am|pm|a\\.m\\.|p\\.m\\.))?"
/** A time alone needs a colon or a unit ("Version 2.10" is no time). */
const timeAlone = "(?:\\d{1,2}:\\d{2}|\\d{1,2}\\.\\d{2} ?(?:uhr|h))(?: ?(?:uhr|h|am|pm|a\\.m\\.|p\\.m\\.))?"
/**
 * A block holding only a date or time (a post's dateline: "Donnerstag, 31. Mai 2012", "12.12.2022, 08:30 Uhr",
 * "3:59 PM"): page furniture, not article text.
 */
const dateline = new RegExp(
  `^(?:\\p{L}{2,13}[,.:]? )?(?:${dateOf}(?:[ ,|–-]+(?:um |à |a las |alle |o )?${timeOf})?|${timeAlone})$`,
  "iu"
)

/** A note to the reader ("Support us", "© 2022 … copyrighted property") is at most a short paragraph. */
const maxNotice = 400

/** A publisher's note to the reader: an appeal, a notice, a prompt (short furniture openings too, at paragraph length). */
const noticeOf = (text: string): boolean => readerNotice.test(text) || furnitureOpening.test(text) || reserved.test(text)

/**
 * "All rights reserved", "copyrighted property" anywhere in a short block: a copyright line; "is not responsible for
 * the opinions": the publisher's disclaimer of contributed content.
 */
const reserved = new RegExp(
  "(?:all rights reserved|copyrighted (?:property|material)|alle rechte vorbehalten|urheberrechtlich geschützt|" +
    "tous droits réservés|todos los derechos reservados|tutti i diritti riservati|prawa zastrzeżone|" +
    "chroniony prawem autorskim|not responsible for (?:the )?(?:opinions|content|views|statements)|" +
    "keine (?:haftung|verantwortung) für (?:den |die )?(?:inhalte?|meinung)|" +
    "no se hacen? responsables? de (?:las |los )?(?:opiniones|contenidos)|n'est pas responsable des (?:opinions|propos))",
  "iu"
)

/** Class words of picture captions and credits. */
const captionWords = /(?:^|[-_\s])(?:caption|credits?|copyright|image|img|photo|picture|figure|media|attachment)(?:$|[-_\s])/iu

const isCaption = (element: Element, s: Stats): boolean => {
  if (element.tagName === "figcaption") return true
  if (s.text > 250 || element.tagName === "p") return false
  const names = `${Array.isArray(element.properties.className) ? element.properties.className.join(" ") : ""} ${
    typeof element.properties.id === "string" ? element.properties.id : ""
  }`
  return captionWords.test(names)
}

/** The images inside a caption block, kept when its text goes. */
const imagesIn = (element: Element): Array<Element> => {
  const out: Array<Element> = []
  for (const child of element.children) {
    if (child.type !== "element") continue
    if (child.tagName === "img" || child.tagName === "picture") out.push(child)
    else out.push(...imagesIn(child))
  }
  return out
}

const labelTags = new Set([
  "h2", "h3", "h4", "h5", "h6", "p", "div", "span", "strong", "b", "header", "li", "dt", "a", "em", "i", "u", "small",
  "font", "section", "aside"
])
/** Tags whose label may open a related section (phrasing such as a link cannot cut what follows). */
const sectionLabelTags = new Set(["h2", "h3", "h4", "h5", "h6", "p", "div", "strong", "b", "header", "span", "dt"])

/** Whether a block (a figure named like a caption) holds the figure's own caption, handled there. */
const holdsFigcaption = (element: Element): boolean =>
  element.children.some((c) => c.type === "element" && (c.tagName === "figcaption" || holdsFigcaption(c)))

/** Whether a block holds a link. */
const hasLink = (node: ElementContent): boolean =>
  node.type === "element" && (node.tagName === "a" || node.children.some(hasLink))

/**
 * What a "Related" label announces: links, linked headlines and short teasers. Prose (a paragraph that is not mostly
 * link) is the article going on after a mid-article "Read also", and ends the announced run.
 */
const isTeaser = (element: Element, s: Stats): boolean => {
  if (s.text === 0) return true
  const density = linkDensity(s)
  if (density >= 0.5) return true
  return hasLink(element) && (s.text < 100 || density >= 0.3)
}

/** A paragraph led by a "Read also:" label whose rest is mostly its link: a teaser of another article. */
const isLedTeaser = (element: Element, s: Stats): boolean => {
  // A lead is text outside the link: a link alone (the commonest short element) is never one.
  if (s.text > 250 || s.link === 0 || s.link === s.text || inlineTags.has(element.tagName)) return false
  const text = textOf(element).replace(/\s+/gu, " ").trim()
  const lead = relatedLead.exec(text)
  if (lead === null) return false
  const rest = s.text - lead[0].replace(/\s/gu, "").length
  return s.link >= rest * 0.6
}

/** Removes leftover chrome under each root in place (the roots themselves are kept). */
export const pruneContent = (roots: ReadonlyArray<Element>, stats: Map<Element, Stats>): void => {
  const visit = (element: Element, inLink: boolean): void => {
    const kept: Array<ElementContent> = []
    // After a "Related articles" label: the links and teasers it announces go, up to the next prose.
    let announced = false
    const flow = stats.get(element)?.inline ?? 0
    for (const child of element.children) {
      if (child.type === "element") {
        const s = stats.get(child)
        if (s !== undefined) {
          if (announced) {
            if (isTeaser(child, s)) continue
            announced = false
          }
          // A span inside a link or a sentence (`<a><span>word</span></a>`, `frischen <span><a>Luft</a></span>`) is
          // that text's markup, not a block of links.
          const inSentence = child.tagName === "span" && (inLink || flow > s.text)
          if (!inSentence && isLeftover(child, s)) continue
          const caption = isCaption(child, s) && (child.tagName === "figcaption" || !holdsFigcaption(child))
          if (caption) {
            // A figure's caption is article text; a picture credit ("Foto: dpa") is not.
            const words = textOf(child).replace(/\s+/gu, " ").trim()
            // Only a figure's own caption is kept: blocks named like captions are as often credits or galleries.
            if (child.tagName !== "figcaption" || words === "" || furniture.test(words) || captionCredit.test(words)) {
              kept.push(...imagesIn(child))
              continue
            }
            cutCredit(child)
          }
          const label = labelTags.has(child.tagName)
          // The short rules read a block's text once; whitespace is collapsed only for the whole-text rules.
          if (s.text <= maxNotice && (label || (s.text <= maxDateline && !inlineTags.has(child.tagName)))) {
            const raw = textOf(child)
            const text = s.text <= 80 ? raw.replace(/\s+/gu, " ").trim() : ""
            if (s.text <= 80 && label && !caption) {
              const related = relatedLabel.test(text)
              if (related && sectionLabelTags.has(child.tagName) && !continuation.test(text)) {
                announced = true
                continue
              }
              if (related || furniture.test(text) || furnitureOpening.test(text)) continue
            }
            if (s.text <= maxDateline && !inlineTags.has(child.tagName) && dateline.test(text)) continue
            if (label && noticeOf(raw.trimStart())) continue
          }
          if (isLedTeaser(child, s)) continue
        }
        visit(child, inLink || child.tagName === "a")
      } else if (announced && child.type === "text" && child.value.trim() !== "") {
        continue
      }
      kept.push(child)
    }
    element.children = kept
  }
  for (const root of roots) visit(root, false)
}

/** The name of a block's kind: its tag and classes (teasers of a list share one). */
const kindOf = (element: Element): string => {
  const className = element.properties.className
  return `${element.tagName}.${Array.isArray(className) ? className.join(" ") : ""}`
}

/** Prose: a paragraph-sized block that is not mostly link text. */
const isProse = (s: Stats): boolean => s.text >= 100 && linkDensity(s) < 0.2

/** A short block pointing elsewhere: a teaser, an advert, a linked headline (a sentence with a link is not one). */
const pointsAway = (element: Element, s: Stats): boolean =>
  s.text < 300 && !proseTags.has(element.tagName) && hasLink(element) && linkDensity(s) >= 0.2

const proseTags = new Set(["p", "li", "ul", "ol", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "dl"])

/**
 * Drops related content that sits in the article's own container: a run of three or more blocks of one kind that each
 * point elsewhere (teasers of other posts), and the linked blocks after the article's last paragraph (a book advert,
 * "more from"). Looks at the children of each root and of wrappers that hold all of a root's text.
 */
export const trimRelated = (roots: ReadonlyArray<Element>, stats: Map<Element, Stats>): void => {
  for (const root of roots) {
    let container = root
    // Look through single wrappers down to the element whose children are the article's blocks.
    for (let depth = 0; depth < 8; depth++) {
      const blocks = container.children.filter((c): c is Element => c.type === "element")
      if (blocks.length !== 1) break
      container = blocks[0]!
    }
    const blocks = container.children.filter((c): c is Element => c.type === "element")
    if (blocks.length < 3) continue
    const drop = new Set<Element>()
    const kinds = new Map<string, Array<Element>>()
    for (const block of blocks) {
      const s = stats.get(block)
      if (s === undefined || !pointsAway(block, s)) continue
      const kind = kindOf(block)
      const list = kinds.get(kind)
      if (list === undefined) kinds.set(kind, [block])
      else list.push(block)
    }
    for (const list of kinds.values()) if (list.length >= 3) for (const block of list) drop.add(block)
    let lastProse = -1
    blocks.forEach((block, i) => {
      const s = stats.get(block)
      if (s !== undefined && isProse(s) && !drop.has(block)) lastProse = i
    })
    if (lastProse >= 0) {
      const headlines: Array<Element> = []
      for (let i = lastProse + 1; i < blocks.length; i++) {
        const s = stats.get(blocks[i]!)
        if (s === undefined) continue
        if (pointsAway(blocks[i]!, s)) drop.add(blocks[i]!)
        else if (s.text < 200 && linkDensity(s) >= 0.9) headlines.push(blocks[i]!)
      }
      // Linked headlines after the article's end are other posts when there are several (one is the article's source).
      if (headlines.length >= 2) for (const block of headlines) drop.add(block)
    }
    // A "Label:" left last announces a section that is gone (related posts, a form): it goes too.
    for (let i = blocks.length - 1; i > lastProse; i--) {
      const block = blocks[i]!
      if (drop.has(block)) continue
      // Blocks left without text (an embedded map or video, a form whose fields went) are looked through.
      if (textOf(block).trim() === "") continue
      const s = stats.get(block)
      if (s === undefined || !isDanglingLabel(block, s)) break
      drop.add(block)
    }
    if (drop.size > 0) container.children = container.children.filter((c) => c.type !== "element" || !drop.has(c))
  }
}

/** A short unlinked line ending in a colon (a heading or a bold line): a label of what follows it. */
const isDanglingLabel = (element: Element, s: Stats): boolean =>
  s.text > 0 && s.text <= 80 && s.link === 0 &&
  (/[:：]\s*$/u.test(textOf(element)) || (headingTags.has(element.tagName) && /[?？]\s*$/u.test(textOf(element))))

const headingTags = new Set(["h2", "h3", "h4", "h5", "h6"])

/** Where a picture credit starts inside a caption: "© …", "Foto: …", "(Photo: …)", a stock agency's name. */
const creditStart =
  /\(?\s*(?:©|\(c\)|\b(?:foto|fotos|photo|photos|bild|bilder|quelle|credit|kuva|zdjęcie|image|source)\s*:|\b(?:shutterstock|istock|getty images|clipdealer|unsplash|adobe stock|imago|picture alliance)\b)/iu

/** Cuts the caption at its credit (the credit and everything after it go; the description stays). */
const cutCredit = (caption: Element): void => {
  let cut = false
  const visit = (element: Element): void => {
    const kept: Array<ElementContent> = []
    for (const child of element.children) {
      if (cut) break
      if (child.type === "text") {
        const match = creditStart.exec(child.value)
        if (match !== null) {
          cut = true
          // A credit written `Name/Agency` loses the name too.
          const before = child.value.slice(0, match.index).replace(/[\p{L}\p{N}._-]+\s*\/\s*$/u, "")
          if (before.trim() !== "") kept.push({ type: "text", value: before })
          break
        }
      } else if (child.type === "element") {
        visit(child)
        if (cut && child.children.length === 0) break
      }
      kept.push(child)
    }
    element.children = kept
  }
  visit(caption)
}

/** Captions that only credit the picture. */
const captionCredit = /^(?:©|\(c\)|copyright\b|(?:foto|photo|bild|image|picture|credit|source|quelle)s?\s*[:©])/iu
