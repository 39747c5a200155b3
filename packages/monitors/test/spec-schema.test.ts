/**
 * An extract target's JSON Schema is compiled at the edge (ajv): a mistake anywhere in it, not only at the top, is a
 * 400 naming the member at fault; references are never fetched; one caller's schema leaves nothing behind for the next.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as MonitorSpec from "../src/MonitorSpec.js"
import { MAX_SCHEMA_CHARS } from "../src/internal/monitors/extractSchema.js"

const create = (schema: unknown) =>
  MonitorSpec.decodeCreate({ name: "Prices", target: { type: "extract", url: "https://shop.example/", instructions: "prices", schema } })

const refusal = (schema: unknown) =>
  Effect.map(Effect.either(create(schema)), (result) =>
    Either.isLeft(result) ? { errorCode: result.left.errorCode, field: result.left.field, detail: result.left.detail } : "accepted")

describe("extract target schemas", () => {
  it.effect("accepts nested schemas of 2020-12, 2019-09 and draft-07", () =>
    Effect.gen(function*() {
      const nested = {
        type: "object",
        properties: {
          price: { type: "number", minimum: 0 },
          variants: { type: "array", items: { type: "object", properties: { size: { type: "string" } }, required: ["size"] } }
        },
        $defs: { money: { type: "number" } }
      }
      expect(yield* refusal(nested)).toBe("accepted")
      expect(yield* refusal({ ...nested, $schema: "https://json-schema.org/draft/2019-09/schema" })).toBe("accepted")
      expect(yield* refusal({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", definitions: { a: { type: "string" } } })).toBe("accepted")
      const created = yield* create(nested)
      expect(created.target).toMatchObject({ type: "extract", schema: nested })
    }))

  it.effect("names the member at fault, however deep", () =>
    Effect.gen(function*() {
      expect(yield* refusal({ type: "object", properties: { price: { type: "numbr" } } })).toEqual({
        errorCode: "INPUT_VALIDATION_ERROR",
        field: "target.schema.properties.price.type",
        detail: expect.stringContaining("must be equal to one of the allowed values (array, boolean, integer, null, number, object, string)")
      })
      expect(yield* refusal({ type: "object", properties: { variants: { type: "array", items: { type: "object", required: "size" } } } }))
        .toMatchObject({ field: "target.schema.properties.variants.items.required", detail: "must be array" })
      expect(yield* refusal({ type: "object", properties: { tags: { type: "array", items: [{ type: "string" }, { minLength: -1 }] } } }))
        .toMatchObject({ field: "target.schema.properties.tags.items" })
      expect(yield* refusal({ $schema: "http://json-schema.org/draft-03/schema#" })).toMatchObject({ field: "target.schema.$schema" })
    }))

  it.effect("refuses references it would have to fetch, bad patterns and oversized schemas", () =>
    Effect.gen(function*() {
      expect(yield* refusal({ type: "object", properties: { a: { $ref: "https://schemas.example/a.json" } } }))
        .toMatchObject({ field: "target.schema", detail: expect.stringContaining("can't resolve reference https://schemas.example/a.json") })
      expect(yield* refusal({ type: "string", pattern: "(unclosed" })).toMatchObject({ field: "target.schema", detail: expect.stringContaining("cannot be compiled") })
      const big = { type: "object", properties: Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`field_${i}`, { type: "string" }])) }
      expect(yield* refusal(big)).toMatchObject({ field: "target.schema", detail: expect.stringContaining(`at most ${MAX_SCHEMA_CHARS} characters`) })
    }))

  it.effect("one caller's $ids leave nothing behind: the same ids again, and a meta-schema's id, change nothing", () =>
    Effect.gen(function*() {
      const withIds = { $id: "https://shop.example/product", type: "object", properties: { price: { $id: "https://shop.example/price", type: "number" } } }
      expect(yield* refusal(withIds)).toBe("accepted")
      expect(yield* refusal({ ...withIds, properties: { price: { $id: "https://shop.example/price", type: "string" } } })).toBe("accepted")
      expect(yield* refusal({ $id: "https://json-schema.org/draft/2020-12/schema", type: "object" })).toBe("accepted")
      // The meta-schema is still there for the next caller.
      expect(yield* refusal({ type: "object", properties: { price: { type: "numbr" } } })).toMatchObject({ field: "target.schema.properties.price.type" })
      expect(yield* refusal({ type: "object" })).toBe("accepted")
    }))

  it.effect("an update's new target is checked the same way", () =>
    Effect.gen(function*() {
      const current = { target: { type: "extract" as const, url: "https://shop.example/", instructions: "prices" }, changeDetection: { type: "semantic" as const } }
      const result = yield* Effect.either(MonitorSpec.decodeUpdate({ target: { ...current.target, schema: { required: [1] } } }, current))
      expect(Either.isLeft(result) && result.left.field).toBe("target.schema.required[0]")
    }))
})
