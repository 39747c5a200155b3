/**
 * The path and query of a request target, as `new URL(target, "http://sift.local")` gives them, without building a URL
 * for the plain origin-form targets API clients send (a URL costs more than the rest of routing). Anything unusual
 * (dot segments, `//`, backslashes, percent-escapes or characters a URL would escape) goes through `URL`.
 */
const PLAIN_PATH = /^\/(?![/.])(?:[A-Za-z0-9\-_~!$&'()*+,;=:@]|\/(?![/.])|\.(?!\.?(?:\/|$)))*$/
const PLAIN_QUERY = /^[!$%&()*+,\-./0-9:;=?@A-Z[\]^_`a-z{|}~]*$/

/** A request target's path and query (`search` is `""` or starts with `?`). */
export interface Target {
  readonly path: string
  readonly search: string
}

/** Parses a request target (see the module comment); never fails. */
export const parse = (target: string): Target => {
  const hash = target.indexOf("#")
  const bare = hash < 0 ? target : target.slice(0, hash)
  const question = bare.indexOf("?")
  const path = question < 0 ? bare : bare.slice(0, question)
  const query = question < 0 ? "" : bare.slice(question + 1)
  if (PLAIN_PATH.test(path) && PLAIN_QUERY.test(query)) return { path, search: query === "" ? "" : `?${query}` }
  try {
    const url = new URL(target, "http://sift.local")
    return { path: url.pathname, search: url.search }
  } catch {
    // Not a target a URL can hold (e.g. `//[`): routed as given, to a 404, rather than failing the request.
    return { path, search: "" }
  }
}
