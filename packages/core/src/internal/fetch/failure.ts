/**
 * Turning what undici, `net`, `dns` and `tls` throw into the Fetcher's `WebsiteError` reasons. Errors arrive wrapped
 * (`cause` chains, `AggregateError` from Happy Eyeballs), so the search walks them all for the first known code.
 */
import { WebsiteError } from "../../Errors.js"
import { AddressRefused } from "./connector.js"
import { BodyTooLarge } from "./body.js"

const notFound = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_NODATA", "EAI_FAIL", "ENODATA", "ESERVFAIL"])
const timeouts = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"])

/** Every error in `error`'s cause chain and aggregate members, outermost first. */
const chain = (error: unknown): Array<unknown> => {
  const seen: Array<unknown> = []
  const visit = (e: unknown) => {
    if (e === undefined || e === null || seen.includes(e) || seen.length > 16) return
    seen.push(e)
    if (e instanceof AggregateError) e.errors.forEach(visit)
    if (e instanceof Error) visit(e.cause)
  }
  visit(error)
  return seen
}

const codeOf = (e: unknown): string | undefined =>
  typeof e === "object" && e !== null && typeof (e as { code?: unknown }).code === "string"
    ? (e as { code: string }).code
    : undefined

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** The `WebsiteError` for a failure while fetching `url`; `proxied` says the socket led to a proxy, not the site. */
export const toWebsiteError = (error: unknown, url: string, proxied: boolean): WebsiteError => {
  const errors = chain(error)
  const found = errors.find((e) => e instanceof WebsiteError)
  if (found instanceof WebsiteError) return found
  const refused = errors.find((e) => e instanceof AddressRefused)
  if (refused instanceof AddressRefused) return new WebsiteError({ reason: "PrivateAddress", url, detail: refused.message })
  const tooLarge = errors.find((e) => e instanceof BodyTooLarge)
  if (tooLarge instanceof BodyTooLarge) {
    return new WebsiteError({ reason: "TooLarge", url, detail: `stopped reading after ${tooLarge.maxBytes} bytes` })
  }
  const codes = errors.map(codeOf).filter((c): c is string => c !== undefined)
  const detail = messageOf(errors.find((e) => codeOf(e) !== undefined) ?? error)
  if (codes.some((c) => notFound.has(c))) return new WebsiteError({ reason: "NotFound", url, detail })
  if (codes.some((c) => timeouts.has(c))) {
    return new WebsiteError({ reason: proxied && codes.includes("UND_ERR_CONNECT_TIMEOUT") ? "Proxy" : "Timeout", url, detail })
  }
  // Through a proxy, a failed socket is the proxy's failure; an unreachable site comes back as the proxy's 502.
  if (proxied) return new WebsiteError({ reason: "Proxy", url, detail })
  return new WebsiteError({ reason: "Unreachable", url, detail })
}
