import { describe, expect, it } from "@effect/vitest"
import * as Batch from "../src/index.js"

describe("@sift/batch exports", () => {
  it("exposes exactly the public modules and the migrations", () => {
    expect(Object.keys(Batch).sort()).toEqual(["BatchCredits", "BatchErrors", "BatchRunner", "BatchSpec", "Batches", "migrations"])
    expect(Object.keys(Batch.migrations)).toEqual(["0001_batches", "0002_file_origin"])
  })
})
