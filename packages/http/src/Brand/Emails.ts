/**
 * Mail domains that name no company: free providers (`email-providers` 2.26.0, ISC: about 8,700 domains of webmail
 * and ISP mail) and disposable ones (`disposable-email-domains` 1.0.62, MIT: about 120,000 throwaway domains). The
 * disposable list is asked first: many throwaway services are also mail providers.
 *
 * @since 0.1.0
 */
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

let free: ReadonlySet<string> | undefined
let disposable: ReadonlySet<string> | undefined

// Loaded on first use (about 3 MB of JSON): a service that never looks up an email never pays for them.
const freeDomains = () => free ??= new Set(require("email-providers/all.json") as ReadonlyArray<string>)
const disposableDomains = () => disposable ??= new Set(require("disposable-email-domains") as ReadonlyArray<string>)

/** What an email's domain is. */
export type MailDomainKind = "disposable" | "free" | "company"

/** Whether a mail domain (lower case) is disposable, a free provider's, or (as far as the lists know) a company's. */
export const kindOf = (domain: string): MailDomainKind => {
  const host = domain.toLowerCase().replace(/\.$/, "")
  // A subdomain of a listed domain (mail.mailinator.com) is the listed one's.
  const parents = host.split(".").map((_, i, labels) => labels.slice(i).join(".")).filter((d) => d.includes("."))
  if (parents.some((d) => disposableDomains().has(d))) return "disposable"
  if (parents.some((d) => freeDomains().has(d))) return "free"
  return "company"
}

/** The domain part of an address, lower case, or undefined when it is not an address. */
export const domainOfEmail = (email: string): string | undefined => {
  const match = /^[^@\s]{1,64}@([a-z0-9.-]{1,253}\.[a-z][a-z0-9-]{1,62})$/i.exec(email.trim())
  return match === null ? undefined : match[1]!.toLowerCase()
}
