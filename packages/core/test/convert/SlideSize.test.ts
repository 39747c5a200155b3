/**
 * A slide's blocks are gathered without spreading them into one call's arguments: a text box of 150,000 paragraphs
 * (about 6 MiB of XML, well under the pptx cap) converts whole instead of overflowing the call stack.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import JSZip from "jszip"
import * as ParseDocument from "../../src/ParseDocument.js"
import * as Office from "./support/officeFixtures.js"

const PARAGRAPHS = 150_000

const manyParagraphs = async (): Promise<Uint8Array> => {
  const zip = await JSZip.loadAsync(await Office.pptx())
  const part = "ppt/slides/slide4.xml"
  const paragraphs = Array.from({ length: PARAGRAPHS }, (_, i) => `<a:p><a:r><a:t>line ${i + 1}</a:t></a:r></a:p>`).join("")
  const box = `<p:sp><p:nvSpPr><p:cNvPr id="90" name="Long"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr/>` +
    `<p:txBody><a:bodyPr/>${paragraphs}</p:txBody></p:sp>`
  const xml = await zip.file(part)!.async("string")
  zip.file(part, xml.replace("</p:spTree>", `${box}</p:spTree>`))
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE" })
}

describe("slides of many blocks", () => {
  it.live("a text box of 150,000 paragraphs converts whole", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(manyParagraphs)
      const parsed = yield* ParseDocument.parse({ bytes, filename: "long.pptx" })
      expect(parsed.markdown).toContain("harbour.example")
      expect(parsed.markdown).toContain("\n\nline 1\n\n")
      expect(parsed.markdown).toContain(`\n\nline ${PARAGRAPHS}\n`)
    }), 120_000)
})
