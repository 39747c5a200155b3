/**
 * V8's own `JSON.stringify`, whatever the global one has become. pdfjs-dist's legacy build (loaded by core's PDF
 * converter) installs core-js's `JSON.stringify` for `JSON.rawJSON` support: a replacer call per value and a second
 * pass over every character in JavaScript, several times slower on every response body. A fresh V8 context still
 * has the built-in; its errors are re-thrown as this realm's `TypeError` so callers see the usual class.
 */
import { runInNewContext } from "node:vm"

// Always the fresh context's: core-js also disguises its functions' source text as "[native code]".
const builtIn = runInNewContext("JSON.stringify") as (value: unknown) => string | undefined

/** Serializes a JSON value with the built-in serializer. */
export const stringify = (value: unknown): string => {
  try {
    return builtIn(value) as string
  } catch (error) {
    throw new TypeError(error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
      ? String((error as { message: unknown }).message)
      : String(error))
  }
}
