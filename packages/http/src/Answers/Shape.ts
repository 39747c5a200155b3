/**
 * `json_format` of `POST /web/answers` (wave2 §7): an example object with placeholder values whose keys and value
 * types the answer keeps. Its bounds (8 levels, 500 values, 16,000 characters) are checked here, and it is turned
 * into the JSON Schema the model's answer is validated against: every key required, no others, each value of the
 * example's type or null ("unknown values may be null"), an empty array any items, a non-empty one items like its first.
 *
 * @since 0.1.0
 */

/** The SDK's bounds of `json_format`. */
export const limits = { depth: 8, values: 500, characters: 16_000 } as const

/** The default shape: `{"result": ""}`. */
export const defaultFormat: Record<string, unknown> = { result: "" }

/** What is wrong with a `json_format`, or `undefined` when it is within its bounds. */
export const problemOf = (format: unknown): string | undefined => {
  if (typeof format !== "object" || format === null || Array.isArray(format)) return "must be a JSON object"
  if (JSON.stringify(format).length > limits.characters) return `must be at most ${limits.characters} characters as JSON`
  let values = 0
  // Iterative walk: a hostile body nested thousands deep is refused at depth 9, never recursed into.
  const stack: Array<{ value: unknown; depth: number }> = [{ value: format, depth: 1 }]
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!
    if (typeof value !== "object" || value === null) {
      values++
      if (values > limits.values) return `must hold at most ${limits.values} values`
      continue
    }
    if (depth > limits.depth) return `must be at most ${limits.depth} levels deep`
    const children = Array.isArray(value) ? value : Object.values(value)
    if (children.length === 0) values++
    for (const child of children) stack.push({ value: child, depth: depth + 1 })
  }
  return values > limits.values ? `must hold at most ${limits.values} values` : undefined
}

/** The JSON Schema of answers shaped like `example` (an already bounded `json_format`). */
export const schemaOf = (example: unknown): Record<string, unknown> => {
  if (example === null) return {}
  if (Array.isArray(example)) {
    return example.length === 0 ? { type: ["array", "null"] } : { type: ["array", "null"], items: schemaOf(example[0]) }
  }
  switch (typeof example) {
    case "string":
      return { type: ["string", "null"] }
    case "number":
      return { type: ["number", "null"] }
    case "boolean":
      return { type: ["boolean", "null"] }
    case "object": {
      const entries = Object.entries(example as Record<string, unknown>)
      return {
        type: ["object", "null"],
        properties: Object.fromEntries(entries.map(([key, value]) => [key, schemaOf(value)])),
        required: entries.map(([key]) => key),
        additionalProperties: false
      }
    }
    default:
      return {}
  }
}

/** The root schema: as {@link schemaOf}, but the answer itself must be an object. */
export const rootSchemaOf = (format: Record<string, unknown>): Record<string, unknown> => ({ ...schemaOf(format), type: "object" })
