import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import * as Actions from "../../src/Actions.js"

describe("Actions grammar", () => {
  const valid: ReadonlyArray<readonly [string, Actions.Instruction]> = [
    [`click "Load more"`, { verb: "click", target: { by: "text", text: "Load more" } }],
    [`click Load more`, { verb: "click", target: { by: "text", text: "Load more" } }],
    [`click #more`, { verb: "click", target: { by: "css", selector: "#more" } }],
    [`click css button.primary`, { verb: "click", target: { by: "css", selector: "button.primary" } }],
    [`click role button "Save"`, { verb: "click", target: { by: "role", role: "button", name: "Save" } }],
    [`hover text 'Menu'`, { verb: "hover", target: { by: "text", text: "Menu" } }],
    [`type "rust" into "#q"`, { verb: "type", text: "rust", target: { by: "text", text: "#q" } }],
    [`type "rust" into #q`, { verb: "type", text: "rust", target: { by: "css", selector: "#q" } }],
    [`type "a \\"b\\"" into label "Search"`, { verb: "type", text: `a "b"`, target: { by: "label", text: "Search" } }],
    [`select "Large" in label "Size"`, { verb: "select", option: "Large", target: { by: "label", text: "Size" } }],
    [`select "2" from select[name=qty]`, { verb: "select", option: "2", target: { by: "css", selector: "select[name=qty]" } }],
    [`press Enter`, { verb: "press", key: "Enter" }],
    [`PRESS Control+A`, { verb: "press", key: "Control+A" }]
  ]
  for (const [text, expected] of valid) {
    it(`parses ${text}`, () => expect(Actions.parse(text)).toEqual(Either.right(expected)))
  }
  const invalid: ReadonlyArray<readonly [string, RegExp]> = [
    ["jump over the fence", /unknown verb "jump"/],
    ["click", /target is missing/],
    ["press", /one key/],
    ["type rust into #q", /quoted text/],
    [`type "rust" #q`, /into <target>/],
    ["click role", /role needs/]
  ]
  for (const [text, message] of invalid) {
    it(`refuses ${text}`, () => {
      const parsed = Actions.parse(text)
      expect(Either.isLeft(parsed)).toBe(true)
      expect(Either.getLeft(parsed).pipe((o) => o._tag === "Some" ? o.value : "")).toMatch(message)
    })
  }
})
