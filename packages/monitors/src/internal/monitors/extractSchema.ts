/**
 * An extract target's `schema`, checked at the edge by ajv: validated against its draft's meta-schema and compiled
 * (unresolvable `$ref`s, bad patterns), so a schema the judge or a model cannot use is a 400 naming the member at fault
 * (`target.schema.properties.price.type`), not a run that fails later. JSON Schema 2020-12 unless `$schema` names
 * 2019-09 or draft-07. References are never fetched; formats are not checked (the schema describes what to extract).
 */
import { Ajv, type ErrorObject } from "ajv"
import { Ajv2019 } from "ajv/dist/2019.js"
import { Ajv2020 } from "ajv/dist/2020.js"

/** A schema's JSON may be at most this long: compiling generates code in proportion to it. */
export const MAX_SCHEMA_CHARS = 32_768

type Validator = Pick<Ajv, "validateSchema" | "compile" | "removeSchema" | "errors" | "refs">

// Shared instances must not keep what one caller's schema registers: `addUsedSchema: false` keeps its top-level `$id`
// out of the instance, and what compiling still records (nested `$id`s, the cache entry) is removed after each check.
const options = { strict: false, validateFormats: false, allErrors: false, logger: false, addUsedSchema: false } as const
// One instance per draft, made on first use (compiling a meta-schema costs tens of milliseconds).
const instances = new Map<string, Validator>()
const instanceFor = (draft: "2020-12" | "2019-09" | "draft-07"): Validator => {
  let instance = instances.get(draft)
  if (instance === undefined) {
    instance = draft === "2020-12" ? new Ajv2020(options) : draft === "2019-09" ? new Ajv2019(options) : new Ajv(options)
    instances.set(draft, instance)
  }
  return instance
}

const draftOf = (declared: unknown): "2020-12" | "2019-09" | "draft-07" | undefined => {
  if (declared === undefined) return "2020-12"
  if (typeof declared !== "string") return undefined
  if (declared.includes("2020-12")) return "2020-12"
  if (declared.includes("2019-09")) return "2019-09"
  if (declared.includes("draft-07")) return "draft-07"
  return undefined
}

/** A JSON pointer below the schema as a field path: `/properties/price/type` → `.properties.price.type`. */
const pathOf = (pointer: string): string =>
  pointer.split("/").slice(1).map((segment) => {
    const name = segment.replace(/~1/g, "/").replace(/~0/g, "~")
    return /^\d+$/.test(name) ? `[${name}]` : `.${name}`
  }).join("")

const describe = (error: ErrorObject): string => {
  const allowed = (error.params as { allowedValues?: ReadonlyArray<unknown> }).allowedValues
  return `${error.message ?? "is invalid"}${allowed === undefined ? "" : ` (${allowed.map(String).join(", ")})`}`
}

/** Why `schema` is not a usable JSON Schema, as the field at fault and what is wrong; undefined when it is usable. */
export const schemaError = (schema: Readonly<Record<string, unknown>>): { readonly path: string; readonly detail: string } | undefined => {
  let length: number
  try {
    length = JSON.stringify(schema).length
  } catch {
    return { path: "", detail: "must be plain JSON" }
  }
  if (length > MAX_SCHEMA_CHARS) return { path: "", detail: `must be at most ${MAX_SCHEMA_CHARS} characters of JSON, got ${length}` }
  const draft = draftOf(schema["$schema"])
  if (draft === undefined) return { path: ".$schema", detail: "must name JSON Schema 2020-12, 2019-09 or draft-07 (or be left out for 2020-12)" }
  const ajv = instanceFor(draft)
  if (ajv.validateSchema(schema) !== true) {
    const first = ajv.errors?.[0]
    return first === undefined ? { path: "", detail: "is not a valid JSON Schema" } : { path: pathOf(first.instancePath), detail: describe(first) }
  }
  const known = new Set(Object.keys(ajv.refs))
  // A shallow copy, so that removing it after compiling cannot remove a schema the instance holds under the same $id
  // (a caller's schema may claim a meta-schema's id).
  const copy: Record<string, unknown> = { ...schema }
  try {
    ajv.compile(copy)
    return undefined
  } catch (error) {
    return { path: "", detail: `cannot be compiled: ${(error as Error).message}` }
  } finally {
    delete copy["$id"]
    ajv.removeSchema(copy)
    for (const ref of Object.keys(ajv.refs)) if (!known.has(ref)) delete ajv.refs[ref]
  }
}
