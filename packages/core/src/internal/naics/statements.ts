/**
 * Turns company evidence into weighted statements, the way an analyst reads a site: the title, the meta
 * description and the first heading say what the company is; sentences where the company describes itself ("X is a
 * ...", "we ...") come next; navigation and the rest of the text count least. Words naming customers ("software for
 * restaurants", "supplies to hospitals") are marked so they count less than words naming the activity.
 */
import type { CompanyEvidence } from "../../CompanyEvidence.js"
import { words } from "./text.js"

/** A piece of evidence with its weight; `customer[i]` is true when word i names a customer, not the activity. */
export interface Statement {
  readonly words: ReadonlyArray<string>
  readonly customer: ReadonlyArray<boolean>
  readonly weight: number
}

/** Words that introduce the customers or the market of an activity. */
const customerOpeners = new Set(["for", "to", "serving", "serve", "used", "trusted", "helping", "help", "across"])
/**
 * Words that end a customer phrase and return to the activity; a verb of being too, so a name with "to" or "for" in it
 * ("Attic to Footing is a certified home inspector") does not make what follows it a customer.
 */
const customerClosers = new Set(["with", "we", "our", "from", "that", "in", "by", "since", "is", "ar"])

/** Words that introduce where a maker's goods are sold ("sold in 300 grocery stores", "find us at"): its outlets. */
const outletVerbs = new Set(["sold", "avail", "carri", "stock", "find"])
const outletPrepositions = new Set(["in", "at", "by", "us"])

/**
 * Words naming the makers a shop buys from ("cheeses from small farmstead cheesemakers", "drafts from regional
 * breweries"): suppliers, not the activity.
 */
const supplierNouns = /^(?:\w*mak|maker|produc|producer|farm|grower|roaster|brewer|supplier|distiller|winemak|artisan|breweri|wineri|distilleri|roasteri|creameri|dairi|mill)$/

const identity = /\b(we are|we're|is an?|is the|are an?|we (?:make|build|grow|raise|brew|distill|roast|manufacture|produce|provide|offer|operate|deliver|design|develop|publish|sell|distribute|farm|run|own|hold|treat|serve))\b/i

const statement = (text: string, weight: number, name?: readonly [string, string]): Statement => {
  const w = words(text)
  const customer: Array<boolean> = []
  let inCustomer = false
  w.forEach((word, i) => {
    if (customerOpeners.has(word)) inCustomer = true
    else if (customerClosers.has(word)) inCustomer = false
    // The brand word of the company's name ("Urban" Sprout, "Harbor" Counseling) names no activity.
    customer.push(inCustomer || (name !== undefined && word === name[0] && w[i + 1] === name[1]))
  })
  // "sold in 300 grocery stores": the stores are the goods' outlets, counted as little as a customer's.
  w.forEach((word, i) => {
    if (!outletVerbs.has(word) || !outletPrepositions.has(w[i + 1] ?? "")) return
    for (let k = i + 1; k < w.length && (k <= i + 2 || !customerClosers.has(w[k]!)); k++) customer[k] = true
  })
  // "from (up to three words) makers": the words count as little as a customer's.
  w.forEach((word, i) => {
    if (word !== "from") return
    for (let j = i + 1; j <= i + 4 && j < w.length; j++) {
      if (supplierNouns.test(w[j]!)) {
        for (let k = i + 1; k <= j; k++) customer[k] = true
        break
      }
    }
  })
  return { words: w, customer, weight }
}

/**
 * The first two words of the company's name (the title's first part, when the domain starts with it) if its first
 * word is a brand: one the site never uses outside the name. "Silver" of Silver Spur Mining is not a brand when the
 * site speaks of silver; "Urban" of Urban Sprout is when it never speaks of anything urban.
 */
const brandOf = (evidence: CompanyEvidence): readonly [string, string] | undefined => {
  const home = evidence.pages[0]
  if (home?.title === undefined) return undefined
  const name = words(home.title.split(/\s[|\u2013\u2014:\u00b7-]\s|\s*\|\s*/)[0] ?? "")
  const first = home.title.toLowerCase().match(/[a-z0-9]+/)?.[0]
  const label = evidence.domain.replace(/^www\./, "").split(".")[0]!.replace(/[^a-z0-9]/g, "")
  if (name.length < 2 || first === undefined || first.length < 3 || !label.startsWith(first)) return undefined
  const [brand, next] = [name[0]!, name[1]!]
  for (const page of evidence.pages) {
    for (const text of [page.description ?? "", ...page.headings.map((h) => h.text), page.text.slice(0, 5000)]) {
      const w = words(text)
      for (let i = 0; i < w.length; i++) if (w[i] === brand && w[i + 1] !== next) return undefined
    }
  }
  return [brand, next]
}

const sentences = (text: string): Array<string> =>
  text.split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter((s) => s.length > 2)

/** An about page: where a company says what it is. */
export const isAboutPage = (url: string): boolean => /about|who-we-are|our-story/i.test(new URL(url).pathname)

/**
 * The weighted statements of all pages; the homepage counts fully, other pages a little less, except the about page
 * when `aboutWeight` says so (the classifier reads it closely when the homepage alone is ambiguous).
 */
export const statementsOf = (evidence: CompanyEvidence, aboutWeight = 0.8): Array<Statement> => {
  const out: Array<Statement> = []
  const name = brandOf(evidence)
  const said = (text: string, weight: number) => out.push(statement(text, weight, name))
  evidence.pages.forEach((page, index) => {
    const page0 = index === 0 ? 1 : isAboutPage(page.url) ? aboutWeight : 0.8
    if (page.title !== undefined && index === 0) said(page.title, 3)
    if (page.description !== undefined) said(page.description, 3 * page0)
    for (const d of page.jsonLdDescriptions) said(d, 2.5 * page0)
    for (const h of page.headings) said(h.text, (h.level === 1 ? 2.5 : 1.5) * page0)
    if (index === 0) for (const label of page.nav) said(label, 0.8)
    // What is priced is what the customer buys: it says what the company does as plainly as its description.
    for (const offer of (page.offers ?? []).slice(0, 30)) said(offer, 2 * page0)
    for (const s of sentences(page.text).slice(0, 200)) said(s, (identity.test(s) ? 2 : 1) * page0)
  })
  return out
}
