/**
 * The geometry the PDF layout works on. Coordinates are PDF points with y growing downwards from the top of the page,
 * so sorting by `y` is reading order; text from pdfjs and words from OCR both become `Run`s.
 */

/** A piece of text with the link it belongs to, if any. */
export interface Span {
  readonly text: string
  readonly href?: string | undefined
}

/** A positioned piece of text: one `showText` from pdfjs, or one OCR word. `y` is the baseline. */
export interface Run {
  readonly x: number
  readonly y: number
  readonly width: number
  /** Font size in points (the glyph height). */
  readonly size: number
  readonly spans: ReadonlyArray<Span>
}

/** Runs of one line that sit close together: a phrase, or one cell of a table row. */
export interface Segment {
  readonly x0: number
  readonly x1: number
  readonly size: number
  readonly spans: ReadonlyArray<Span>
}

/** Runs sharing a baseline, left to right, split into segments at wide gaps. */
export interface Line {
  readonly y: number
  readonly x0: number
  readonly x1: number
  /** The dominant font size of the line. */
  readonly size: number
  readonly segments: ReadonlyArray<Segment>
}

/** The text of spans, concatenated. */
export const spansText = (spans: ReadonlyArray<Span>): string => spans.map((span) => span.text).join("")

/** The text of a line's segments, joined with single spaces. */
export const lineText = (line: Line): string => line.segments.map((segment) => spansText(segment.spans)).join(" ")

/** Appends spans, merging neighbours with the same link. */
export const appendSpans = (into: Array<Span>, spans: ReadonlyArray<Span>): void => {
  for (const span of spans) {
    const last = into[into.length - 1]
    if (last !== undefined && last.href === span.href) into[into.length - 1] = { text: last.text + span.text, href: span.href }
    else if (span.text !== "") into.push(span)
  }
}
