/**
 * pdfjs-dist's legacy build, loaded on the first PDF rather than at start-up. Its bundled core-js replaces builtins that
 * Node 20 already implements (`Array.prototype.push`, `JSON.stringify`, `JSON.parse`, `Function.prototype.toString`)
 * with slower JavaScript versions, process-wide: every array push in the server then pays for it (bench/http measured
 * it in the Effect fiber runtime). The library and its worker module are loaded together, then those builtins are put
 * back; what Node 20 lacks and pdfjs needs (`Promise.withResolvers`, `Uint8Array.prototype.toHex`, ...) stays added.
 */
type Pdfjs = typeof import("pdfjs-dist/legacy/build/pdf.mjs")

const replacedBuiltins: ReadonlyArray<readonly [object, PropertyKey]> = [
  [Array.prototype, "push"],
  [JSON, "stringify"],
  [JSON, "parse"],
  [Function.prototype, "toString"]
]

// A specifier in a variable: the worker module ships no type declarations, and none are needed.
const workerModule = "pdfjs-dist/legacy/build/pdf.worker.mjs"

let loading: Promise<Pdfjs> | undefined

/** The pdfjs module, loaded once with Node's own builtins restored afterwards. */
export const pdfjs = (): Promise<Pdfjs> =>
  loading ??= (async () => {
    const saved = replacedBuiltins.map(([owner, key]) => [owner, key, Object.getOwnPropertyDescriptor(owner, key)!] as const)
    try {
      const library = await import("pdfjs-dist/legacy/build/pdf.mjs")
      // Loaded here, the worker module is used in this thread (pdfjs' "fake worker") instead of being imported, with
      // its own copy of core-js, at the first `getDocument`.
      const worker: unknown = await import(workerModule)
      ;(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker
      return library
    } finally {
      for (const [owner, key, descriptor] of saved) Object.defineProperty(owner, key, descriptor)
    }
  })()
