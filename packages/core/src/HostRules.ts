/**
 * Host mapping in Chromium's `--host-resolver-rules` syntax (`SIFT_HOST_RESOLVER_RULES`, decisions §0): comma-separated
 * `MAP <host pattern> <replacement>` and `EXCLUDE <host pattern>` rules, `*` and `?` wildcards, first match wins. The
 * replacement is an IP (`127.0.0.1`, `[::1]`), optionally with a port, a host name, or `~NOTFOUND`. A mapped request
 * connects to the replacement while its URL, `Host` header and TLS server name keep the original host. The Fetcher
 * and the browser apply the same string.
 *
 * @since 0.1.0
 */
import { Data, Either } from "effect"
import { isIP } from "node:net"

/** One parsed rule. @category models */
export type HostRule =
  | { readonly _tag: "Map"; readonly pattern: string; readonly host: string; readonly port: number | undefined }
  | { readonly _tag: "MapNotFound"; readonly pattern: string }
  | { readonly _tag: "Exclude"; readonly pattern: string }

/** An ordered rule list; the first rule whose pattern matches a host decides. @category models */
export interface HostRules {
  readonly rules: ReadonlyArray<HostRule>
  /** The rules as given, for handing to Chromium unchanged. */
  readonly source: string
}

/** Where a host should connect: a replacement host (IP or name) and port, or nowhere (`~NOTFOUND`). @category models */
export type Resolution =
  | { readonly _tag: "Connect"; readonly host: string; readonly port: number | undefined }
  | { readonly _tag: "NotFound" }

/** A rule string that does not follow the syntax; `message` quotes the offending rule. @category errors */
export class HostRulesSyntaxError extends Data.TaggedError("HostRulesSyntaxError")<{
  readonly rule: string
  readonly detail: string
}> {
  override get message(): string {
    return `Invalid host resolver rule "${this.rule}": ${this.detail}`
  }
}

/** The empty rule list: every host resolves normally. */
export const empty: HostRules = { rules: [], source: "" }

const hostPattern = /^[a-z0-9*?._-]+$/i
const hostName = /^[a-z0-9]([a-z0-9_-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9_-]*[a-z0-9])?)*\.?$/i

const parsePort = (text: string): number | undefined => {
  if (!/^\d{1,5}$/.test(text)) return undefined
  const port = Number(text)
  return port >= 1 && port <= 65535 ? port : undefined
}

/** Parses a replacement: `1.2.3.4`, `1.2.3.4:8080`, `[::1]:8080`, `::1`, `host.name`, `host.name:8080`. */
const parseReplacement = (text: string): { host: string; port: number | undefined } | string => {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text)
  if (bracketed !== null) {
    if (isIP(bracketed[1]!) !== 6) return `"${bracketed[1]}" is not an IPv6 address`
    if (bracketed[2] === undefined) return { host: bracketed[1]!, port: undefined }
    const port = parsePort(bracketed[2])
    return port === undefined ? `"${bracketed[2]}" is not a port` : { host: bracketed[1]!, port }
  }
  if (isIP(text) === 6) return { host: text, port: undefined }
  const colon = text.lastIndexOf(":")
  const host = colon < 0 ? text : text.slice(0, colon)
  const port = colon < 0 ? undefined : parsePort(text.slice(colon + 1))
  if (colon >= 0 && port === undefined) return `"${text.slice(colon + 1)}" is not a port`
  if (isIP(host) !== 4 && !hostName.test(host)) return `"${host}" is not an IP address or host name`
  return { host: host.toLowerCase(), port }
}

const parseRule = (text: string): Either.Either<HostRule, HostRulesSyntaxError> => {
  const fail = (detail: string) => Either.left(new HostRulesSyntaxError({ rule: text, detail }))
  const words = text.split(/\s+/)
  const verb = words[0]!.toUpperCase()
  const pattern = words[1]?.toLowerCase()
  if (verb !== "MAP" && verb !== "EXCLUDE") return fail(`expected MAP or EXCLUDE, got "${words[0]}"`)
  if (pattern === undefined) return fail("missing host pattern")
  if (!hostPattern.test(pattern)) return fail(`"${pattern}" is not a host pattern`)
  if (verb === "EXCLUDE") {
    return words.length === 2 ? Either.right({ _tag: "Exclude", pattern }) : fail("EXCLUDE takes one host pattern")
  }
  if (words.length !== 3) return fail("MAP takes a host pattern and a replacement")
  if (words[2] === "~NOTFOUND") return Either.right({ _tag: "MapNotFound", pattern })
  const replacement = parseReplacement(words[2]!)
  return typeof replacement === "string" ? fail(replacement) : Either.right({ _tag: "Map", pattern, ...replacement })
}

/** Parses a rule string (`MAP *.test 127.0.0.1:8080, EXCLUDE api.test`); an empty string gives {@link empty}. */
export const parse = (source: string): Either.Either<HostRules, HostRulesSyntaxError> => {
  const rules: Array<HostRule> = []
  for (const part of source.split(",")) {
    const text = part.trim()
    if (text === "") continue
    const rule = parseRule(text)
    if (Either.isLeft(rule)) return Either.left(rule.left)
    rules.push(rule.right)
  }
  return Either.right({ rules, source: source.trim() })
}

const patternCache = new Map<string, RegExp>()

const patternRegExp = (pattern: string): RegExp => {
  let re = patternCache.get(pattern)
  if (re === undefined) {
    const body = pattern.replace(/[.+^${}()|[\]\\-]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")
    re = new RegExp(`^${body}$`, "i")
    if (patternCache.size < 1024) patternCache.set(pattern, re)
  }
  return re
}

/** Whether a host matches a rule pattern (`*` any run of characters, `?` one character, case-insensitive). */
export const matches = (pattern: string, host: string): boolean => patternRegExp(pattern).test(host)

/** Where `host` should connect under `rules`, or undefined when it resolves normally (no rule, or `EXCLUDE`). */
export const resolve = (rules: HostRules, host: string): Resolution | undefined => {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase()
  for (const rule of rules.rules) {
    if (!matches(rule.pattern, bare)) continue
    switch (rule._tag) {
      case "Exclude":
        return undefined
      case "MapNotFound":
        return { _tag: "NotFound" }
      case "Map":
        return { _tag: "Connect", host: rule.host, port: rule.port }
    }
  }
  return undefined
}
