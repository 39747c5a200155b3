/**
 * People from public pages (wave2 §13): a company's own team, about and leadership pages (JSON-LD `Person`, h-card
 * microformats read by `microformats-parser`, and team cards: a block whose class names a member or profile, with a
 * heading that reads as a person's name), and personal sites named in `social_urls` (JSON-LD `Person`, h-card,
 * `rel=me`/`rel=author`). Logged-in social networks are never fetched: their URLs only count as clues.
 *
 * The best candidate is the one that agrees with most clues; its score (0–100) is a deterministic weighted sum of
 * the clues it agrees with (see {@link score}).
 *
 * @since 0.1.0
 */
import type { AnyNode, Element } from "domhandler"
import * as DomUtils from "domutils"
import { Context, Effect, Layer } from "effect"
import { parseDocument } from "htmlparser2"
import type { mf2 } from "microformats-parser"
import { createRequire } from "node:module"
import * as Fetcher from "./Fetcher.js"
import { parseJsonLd } from "./internal/page/jsonLd.js"

/** Bounds of one enrichment. */
export const limits = {
  /** Company pages read (the home page included). */
  maxCompanyPages: 6,
  /** Personal sites read from `social_urls`. */
  maxPersonalSites: 3,
  /** Bytes read of one page. */
  maxPageBytes: 2 * 1024 * 1024,
  /** Candidates read from one page. */
  maxPeoplePerPage: 500
} as const

/** What the caller knows of the person. @category models */
export interface Clues {
  readonly company?: { readonly domain?: string | undefined; readonly name?: string | undefined } | undefined
  readonly email?: string | undefined
  readonly name?: { readonly first?: string | undefined; readonly last?: string | undefined } | undefined
  readonly location?: { readonly city?: string | undefined; readonly country?: string | undefined; readonly region?: string | undefined } | undefined
  readonly socialUrls?: ReadonlyArray<string> | undefined
}

/** A person a page states. @category models */
export interface Candidate {
  readonly full: string
  readonly first: string | undefined
  readonly last: string | undefined
  readonly title: string | undefined
  readonly organization: string | undefined
  readonly image: string | undefined
  readonly bio: string | undefined
  readonly emails: ReadonlyArray<string>
  readonly links: ReadonlyArray<string>
  readonly locality: string | undefined
  /** Where it was read. */
  readonly page: string
  /** How it was stated: structured (JSON-LD, h-card) or a team card. */
  readonly kind: "json-ld" | "h-card" | "card"
}

const clean = (text: string | undefined, max = 300): string | undefined => {
  const value = text?.replace(/\s+/g, " ").trim().slice(0, max)
  return value === undefined || value === "" ? undefined : value
}

const absolute = (href: unknown, base: string): string | undefined => {
  if (typeof href !== "string" || href.trim() === "") return undefined
  try {
    const url = new URL(href.trim(), base)
    return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:" ? url.href : undefined
  } catch {
    return undefined
  }
}

const normalize = (text: string): string =>
  text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[^\p{L}\p{N}]+/gu, " ").trim()

const splitName = (full: string): { first: string | undefined; last: string | undefined } => {
  const words = full.replace(/^(dr|mr|mrs|ms|prof)\.?\s+/i, "").split(/\s+/).filter((w) => w !== "")
  return { first: words[0], last: words.length > 1 ? words.at(-1) : undefined }
}

// A person's name as a card's heading states it: 2 to 4 capitalized words, no digits.
const PERSON_NAME = /^[\p{Lu}][\p{L}'’.-]+(\s+[\p{Lu}][\p{L}'’.-]*){1,3}$/u

const stringOf = (value: unknown): string | undefined =>
  typeof value === "string" ? value : Array.isArray(value) ? stringOf(value[0]) : typeof value === "object" && value !== null && "name" in value ? stringOf((value as { name: unknown }).name) : undefined

const urlsOf = (value: unknown, base: string): Array<string> =>
  (Array.isArray(value) ? value : [value]).flatMap((item) => {
    const url = absolute(typeof item === "object" && item !== null && "url" in item ? (item as { url: unknown }).url : item, base)
    return url === undefined ? [] : [url]
  })

const typeIs = (object: Record<string, unknown>, type: string) => {
  const t = object["@type"]
  return t === type || Array.isArray(t) && t.includes(type)
}

/** JSON-LD `Person` objects of a page, nested ones (an Organization's `employee`, `founder`) included. */
const jsonLdPeople = (sources: ReadonlyArray<string>, page: string): Array<Candidate> => {
  const out: Array<Candidate> = []
  const visit = (value: unknown, depth: number, organization: string | undefined) => {
    if (depth > 6 || out.length >= limits.maxPeoplePerPage) return
    if (Array.isArray(value)) return value.forEach((item) => visit(item, depth + 1, organization))
    if (typeof value !== "object" || value === null) return
    const object = value as Record<string, unknown>
    const org = typeIs(object, "Organization") || typeIs(object, "Corporation") ? stringOf(object["name"]) ?? organization : organization
    if (typeIs(object, "Person")) {
      const full = clean(stringOf(object["name"]) ?? [stringOf(object["givenName"]), stringOf(object["familyName"])].filter(Boolean).join(" "))
      if (full !== undefined) {
        const split = splitName(full)
        const email = stringOf(object["email"])?.replace(/^mailto:/i, "")
        out.push({
          full,
          first: clean(stringOf(object["givenName"])) ?? split.first,
          last: clean(stringOf(object["familyName"])) ?? split.last,
          title: clean(stringOf(object["jobTitle"])),
          organization: clean(stringOf(object["worksFor"])) ?? org,
          image: urlsOf(object["image"], page)[0],
          bio: clean(stringOf(object["description"]), 1_000),
          emails: email === undefined ? [] : [email.toLowerCase()],
          links: [...urlsOf(object["sameAs"], page), ...urlsOf(object["url"], page)],
          locality: clean(stringOf((object["address"] as Record<string, unknown> | undefined)?.["addressLocality"]) ?? stringOf(object["homeLocation"])),
          page,
          kind: "json-ld"
        })
      }
    }
    for (const [key, member] of Object.entries(object)) if (key !== "@context") visit(member, depth + 1, org)
  }
  for (const object of parseJsonLd(sources)) visit(object, 0, undefined)
  return out
}

const first = (props: Record<string, ReadonlyArray<unknown>>, name: string): unknown => props[name]?.[0]

const mfString = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "object" && value !== null
    ? "value" in value && typeof value.value === "string" ? value.value
      : "properties" in value ? mfString(first((value as { properties: Record<string, ReadonlyArray<unknown>> }).properties, "name")) : undefined
    : undefined

// microformats-parser and its polyfills are loaded by the first page read for people, not at start.
let microformats: typeof mf2 | undefined
const parseMicroformats = (): typeof mf2 =>
  (microformats ??= (createRequire(import.meta.url)("microformats-parser") as typeof import("microformats-parser")).mf2)

/** h-card people of a page (nested cards included) and its rel=me links. */
const hCards = (html: string, page: string): { people: Array<Candidate>; relMe: Array<string> } => {
  let parsed: ReturnType<typeof mf2>
  try {
    parsed = parseMicroformats()(html, { baseUrl: page })
  } catch {
    return { people: [], relMe: [] }
  }
  const people: Array<Candidate> = []
  const visit = (items: ReadonlyArray<any>, depth: number) => {
    if (depth > 4) return
    for (const item of items) {
      if (people.length >= limits.maxPeoplePerPage) return
      const props = (item?.properties ?? {}) as Record<string, ReadonlyArray<unknown>>
      if (Array.isArray(item?.type) && item.type.includes("h-card")) {
        const full = clean(mfString(first(props, "name")))
        if (full !== undefined && PERSON_NAME.test(full)) {
          const split = splitName(full)
          people.push({
            full,
            first: clean(mfString(first(props, "given-name"))) ?? split.first,
            last: clean(mfString(first(props, "family-name"))) ?? split.last,
            title: clean(mfString(first(props, "job-title")) ?? mfString(first(props, "role"))),
            organization: clean(mfString(first(props, "org"))),
            image: absolute(mfString(first(props, "photo")), page),
            bio: clean(mfString(first(props, "note")), 1_000),
            emails: (props["email"] ?? []).map((e) => String(mfString(e) ?? "").replace(/^mailto:/i, "").toLowerCase()).filter((e) => e.includes("@")),
            links: (props["url"] ?? []).flatMap((u) => absolute(mfString(u), page) ?? []),
            locality: clean(mfString(first(props, "locality"))),
            page,
            kind: "h-card"
          })
        }
      }
      visit((item?.children ?? []) as ReadonlyArray<any>, depth + 1)
      for (const values of Object.values(props)) visit(values.filter((v) => typeof v === "object" && v !== null && "type" in v), depth + 1)
    }
  }
  visit(parsed.items, 0)
  return { people, relMe: [...(parsed.rels["me"] ?? []), ...(parsed.rels["author"] ?? [])] }
}

const CARD_CLASS = /\b(team|member|person|people|staff|profile|leader|leadership|founder|employee|bio|speaker)\b/i
const TITLE_CLASS = /\b(title|role|position|job|designation)\b/i

const classOf = (node: Element) => node.attribs["class"] ?? ""
const textOf = (node: AnyNode) => DomUtils.textContent(node).replace(/\s+/g, " ").trim()

/** Team cards: blocks whose class names a member or profile, holding a heading that reads as a person's name. */
const teamCards = (html: string, page: string): Array<Candidate> => {
  const document = parseDocument(html.slice(0, limits.maxPageBytes))
  const cards = DomUtils.findAll((node) => CARD_CLASS.test(classOf(node)) && ["li", "div", "article", "section", "figure"].includes(node.name), document.children)
  const out: Array<Candidate> = []
  const seen = new Set<string>()
  for (const card of cards) {
    if (out.length >= limits.maxPeoplePerPage) break
    const heading = DomUtils.findOne((node) => /^h[2-6]$/.test(node.name) || /\bname\b/i.test(classOf(node)) || node.name === "strong", card.children)
    const full = heading === null ? undefined : clean(textOf(heading), 80)
    if (full === undefined || !PERSON_NAME.test(full) || seen.has(full)) continue
    // A card holding several names is a list of cards, not one person's.
    const names = DomUtils.findAll((node) => /^h[2-6]$/.test(node.name), card.children).filter((h) => PERSON_NAME.test(textOf(h)))
    if (names.length > 1) continue
    seen.add(full)
    const titled = DomUtils.findOne((node) => TITLE_CLASS.test(classOf(node)), card.children)
    const paragraph = DomUtils.findOne((node) => node.name === "p" && node !== heading && textOf(node) !== full, card.children)
    const title = clean(titled === null ? paragraph === null || textOf(paragraph).length > 80 ? undefined : textOf(paragraph) : textOf(titled), 120)
    const bioNode = DomUtils.findAll((node) => node.name === "p" && textOf(node).length > 80, card.children)[0]
    const img = DomUtils.findOne((node) => node.name === "img", card.children)
    const anchors = DomUtils.findAll((node) => node.name === "a", card.children).map((a) => absolute(a.attribs["href"], page)).filter((u): u is string => u !== undefined)
    const split = splitName(full)
    out.push({
      full,
      first: split.first,
      last: split.last,
      title,
      organization: undefined,
      image: absolute(img?.attribs["src"], page),
      bio: bioNode === undefined ? undefined : clean(textOf(bioNode), 1_000),
      emails: anchors.filter((u) => u.startsWith("mailto:")).map((u) => decodeURIComponent(u.slice(7)).split("?")[0]!.toLowerCase()),
      links: anchors.filter((u) => !u.startsWith("mailto:")),
      locality: undefined,
      page,
      kind: "card"
    })
  }
  return out
}

/** Every person a page states (structured data first), and its rel=me/rel=author links. */
export const peopleOf = (html: string, page: string): { people: Array<Candidate>; relMe: Array<string> } => {
  const text = html.slice(0, limits.maxPageBytes)
  const document = parseDocument(text)
  const scripts = DomUtils.findAll((node) => node.name === "script" && (node.attribs["type"] ?? "").trim().toLowerCase() === "application/ld+json", document.children)
    .map((node) => DomUtils.textContent(node))
  const cards = hCards(text, page)
  return { people: [...jsonLdPeople(scripts, page), ...cards.people, ...teamCards(text, page)], relMe: cards.relMe }
}

const TEAM_PATH = /\/(team|our-team|about|about-us|leadership|people|management|founders|company|who-we-are)\/?$/i
const TEAM_TEXT = /\b(team|about|leadership|people|management|founders|who we are)\b/i

/** Links of a home page to team, about and leadership pages (same host). */
export const teamPages = (html: string, home: string): Array<string> => {
  const document = parseDocument(html.slice(0, limits.maxPageBytes))
  const host = new URL(home).host
  const out = new Set<string>()
  for (const anchor of DomUtils.findAll((node) => node.name === "a", document.children)) {
    const url = absolute(anchor.attribs["href"], home)
    if (url === undefined || url.startsWith("mailto:")) continue
    const parsed = new URL(url)
    if (parsed.host !== host) continue
    if (TEAM_PATH.test(parsed.pathname) || TEAM_TEXT.test(textOf(anchor)) && parsed.pathname !== "/") out.add(`${parsed.origin}${parsed.pathname}`)
  }
  return [...out]
}

// Networks whose profiles need a session: their URLs are clues only, never fetched.
const LOGGED_IN = /(^|\.)(linkedin\.com|facebook\.com|x\.com|twitter\.com|instagram\.com|threads\.net|tiktok\.com)$/i

/** Whether a URL is a social network profile (never fetched). */
export const isSocial = (url: string): boolean => {
  try {
    return LOGGED_IN.test(new URL(url).hostname)
  } catch {
    return false
  }
}

/** A URL as clues compare it: no scheme, `www.`, query, fragment or trailing slash; lower case. */
export const urlKey = (url: string): string =>
  url.toLowerCase().replace(/^https?:\/\//, "").replace(/^www\./, "").replace(/[?#].*$/, "").replace(/\/+$/, "")

/** The local parts an address of this person could have at their company. */
const localParts = (first: string, last: string): Array<string> => {
  const f = normalize(first).replace(/ /g, "")
  const l = normalize(last).replace(/ /g, "")
  return [`${f}.${l}`, `${f}${l}`, `${f}_${l}`, `${f}-${l}`, `${f[0]}${l}`, `${f[0]}.${l}`, f, `${l}.${f}`, `${l}${f[0]}`]
}

/** How a candidate agrees with the clues: the score and what agreed. */
export interface Agreement {
  readonly score: number
  readonly name: boolean
  readonly email: boolean
  readonly social: boolean
}

/**
 * The deterministic 0–100 score: first and last name both agree 40 (one of them, when only one is given, 25); found
 * on the company's own site 25; the email stated on the candidate's card 20, or its local part a pattern of the
 * candidate's name 15; a given social URL among the candidate's links 15; a stated role 5; the given city agreeing 5.
 */
export const score = (candidate: Candidate, clues: Clues, onCompanySite: boolean): Agreement => {
  let total = 0
  const givenFirst = clues.name?.first === undefined ? undefined : normalize(clues.name.first)
  const givenLast = clues.name?.last === undefined ? undefined : normalize(clues.name.last)
  const first = normalize(candidate.first ?? "")
  const last = normalize(candidate.last ?? "")
  let name = false
  if (givenFirst !== undefined && givenLast !== undefined) {
    name = givenFirst === first && givenLast === last || normalize(candidate.full) === `${givenFirst} ${givenLast}`
    if (name) total += 40
  } else if (givenFirst !== undefined || givenLast !== undefined) {
    name = givenFirst !== undefined ? givenFirst === first : givenLast === last
    if (name) total += 25
  }
  if (onCompanySite) total += 25
  let email = false
  if (clues.email !== undefined) {
    const address = clues.email.trim().toLowerCase()
    if (candidate.emails.includes(address)) {
      email = true
      total += 20
    } else if (first !== "" && last !== "" && localParts(first, last).includes(address.split("@")[0]!)) {
      email = true
      total += 15
    }
  }
  const keys = new Set(candidate.links.map(urlKey))
  const social = (clues.socialUrls ?? []).some((url) => keys.has(urlKey(url)))
  if (social) total += 15
  if (candidate.title !== undefined) total += 5
  if (clues.location?.city !== undefined && candidate.locality !== undefined && normalize(candidate.locality).includes(normalize(clues.location.city))) total += 5
  return { score: Math.min(100, total), name, email, social }
}

/** The person found: the best candidate, merged with what other pages state about the same name. */
export interface Found {
  readonly candidate: Candidate
  readonly score: number
  /** Personal sites read (the person's own), and the company page the person was found on. */
  readonly websites: ReadonlyArray<string>
  readonly socials: ReadonlyArray<string>
  readonly onCompanySite: boolean
  readonly companyDomain: string | undefined
  readonly companyName: string | undefined
}

/** A person's pages could not be read at all. @category errors */
export class PeopleError extends Error {
  readonly _tag = "PeopleError"
}

/** Finds people on company and personal sites. @category services */
export class PeopleSource extends Context.Tag("@sift/core/PeopleSource")<PeopleSource, {
  /** The best candidate for the clues, or undefined when no page states a person who agrees with them. */
  readonly enrich: (clues: Clues, companyDomain: string | undefined) => Effect.Effect<Found | undefined>
}>() {}

const decode = (body: Uint8Array) => new TextDecoder("utf-8", { fatal: false }).decode(body)

/** `PeopleSource` over the Fetcher. @category layers */
export const layer: Layer.Layer<PeopleSource, never, Fetcher.Fetcher> = Layer.effect(PeopleSource, Effect.map(Fetcher.Fetcher, (fetcher) => {
  const get = (url: string) =>
    fetcher.fetch({ url, maxBytes: limits.maxPageBytes, headers: { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5" } }).pipe(
      Effect.filterOrFail((r) => r.status < 400 && (r.contentType === undefined || r.contentType.includes("html")), () => new PeopleError(url)),
      Effect.map((r) => ({ url: r.url, html: decode(r.body) })),
      Effect.option
    )
  const home = (domain: string) => Effect.flatMap(get(`https://${domain}/`), (page) => page._tag === "Some" ? Effect.succeed(page) : get(`http://${domain}/`))

  return PeopleSource.of({
    enrich: (clues, companyDomain) =>
      Effect.gen(function*() {
        const pool: Array<{ candidate: Candidate; company: boolean }> = []
        let companyName = clues.company?.name
        if (companyDomain !== undefined) {
          const front = yield* home(companyDomain)
          if (front._tag === "Some") {
            const origin = new URL(front.value.url).origin
            const pages = new Set([...teamPages(front.value.html, front.value.url), ...["/team", "/about", "/leadership", "/people"].map((p) => `${origin}${p}`)])
            const read = yield* Effect.forEach([...pages].slice(0, limits.maxCompanyPages - 1), get, { concurrency: 3 })
            for (const page of [front, ...read]) {
              if (page._tag === "None") continue
              for (const candidate of peopleOf(page.value.html, page.value.url).people) pool.push({ candidate, company: true })
            }
            companyName ??= /<meta[^>]+property=["']og:site_name["'][^>]+content=["']([^"']+)["']/i.exec(front.value.html)?.[1]
          }
        }
        const personal = (clues.socialUrls ?? []).filter((url) => !isSocial(url)).slice(0, limits.maxPersonalSites)
        const personalSites: Array<string> = []
        const relMe: Array<string> = []
        for (const url of personal) {
          const page = yield* get(url)
          if (page._tag === "None") continue
          personalSites.push(page.value.url)
          const found = peopleOf(page.value.html, page.value.url)
          relMe.push(...found.relMe)
          // A personal site's own person links to the site itself.
          for (const candidate of found.people) pool.push({ candidate: { ...candidate, links: [...candidate.links, url, ...found.relMe] }, company: false })
        }
        const scored = pool.map(({ candidate, company }) => ({ candidate, company, agreement: score(candidate, clues, company) }))
          // A candidate must agree on who the person is (name, email or a profile); the company alone says nothing.
          .filter(({ agreement }) => agreement.name || agreement.email || agreement.social)
        if (scored.length === 0) return undefined
        scored.sort((a, b) => b.agreement.score - a.agreement.score || rank(a.candidate) - rank(b.candidate))
        const best = scored[0]!
        const same = scored.filter((s) => normalize(s.candidate.full) === normalize(best.candidate.full)).map((s) => s.candidate)
        const merged: Candidate = {
          ...best.candidate,
          title: best.candidate.title ?? same.find((c) => c.title !== undefined)?.title,
          image: best.candidate.image ?? same.find((c) => c.image !== undefined)?.image,
          bio: best.candidate.bio ?? same.find((c) => c.bio !== undefined)?.bio,
          organization: best.candidate.organization ?? same.find((c) => c.organization !== undefined)?.organization,
          locality: best.candidate.locality ?? same.find((c) => c.locality !== undefined)?.locality,
          emails: [...new Set(same.flatMap((c) => c.emails))],
          links: [...new Set(same.flatMap((c) => c.links))]
        }
        const onCompanySite = same.some((c) => scored.find((s) => s.candidate === c)?.company === true)
        const agreement = score(merged, clues, onCompanySite)
        const links = [...new Set([...merged.links, ...relMe])].filter((url) => !url.startsWith("mailto:"))
        return {
          candidate: merged,
          score: agreement.score,
          websites: [...new Set(personalSites)],
          socials: links.filter((url) => isSocial(url) || /(^|\.)github\.com$/i.test(new URL(url).hostname)),
          onCompanySite,
          companyDomain,
          companyName: merged.organization ?? companyName
        } satisfies Found
      })
  })
}))

// Structured statements before team cards, for candidates of equal score.
const rank = (candidate: Candidate) => candidate.kind === "json-ld" ? 0 : candidate.kind === "h-card" ? 1 : 2
