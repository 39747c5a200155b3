/**
 * Anchors read as brand facts: profiles on known networks (`socials`), the site's own blog, careers, contact, pricing,
 * privacy and terms pages (`links`), and `mailto:`/`tel:` addresses.
 */
import type { Anchor } from "./page.js"

/** The networks of the SDK's `socials[].type`. */
export type SocialType =
  | "x" | "facebook" | "instagram" | "linkedin" | "youtube" | "pinterest" | "tiktok" | "dribbble" | "github" | "behance"
  | "snapchat" | "whatsapp" | "telegram" | "line" | "discord" | "twitch" | "vimeo" | "imdb" | "tumblr" | "flickr" | "giphy"
  | "medium" | "spotify" | "soundcloud" | "tripadvisor" | "yelp" | "producthunt" | "reddit" | "crunchbase" | "appstore"
  | "playstore"

// Host (without www.) → network; a path test where one host serves several things (apps.apple.com, play.google.com).
const NETWORKS: ReadonlyArray<readonly [RegExp, SocialType, RegExp?]> = [
  [/^(twitter|x)\.com$/, "x"], [/^(facebook|fb)\.com$/, "facebook"], [/^instagram\.com$/, "instagram"],
  [/^([a-z]{2}\.)?linkedin\.com$/, "linkedin", /^\/(company|school|showcase|in)\//], [/^(youtube\.com|youtu\.be)$/, "youtube"],
  [/^([a-z]{2}\.)?pinterest\.[a-z.]+$/, "pinterest"], [/^tiktok\.com$/, "tiktok"], [/^dribbble\.com$/, "dribbble"],
  [/^github\.com$/, "github"], [/^behance\.net$/, "behance"], [/^snapchat\.com$/, "snapchat"],
  [/^(wa\.me|whatsapp\.com)$/, "whatsapp"], [/^(t\.me|telegram\.me)$/, "telegram"], [/^line\.me$/, "line"],
  [/^(discord\.gg|discord\.com)$/, "discord"], [/^twitch\.tv$/, "twitch"], [/^vimeo\.com$/, "vimeo"], [/^imdb\.com$/, "imdb"],
  [/^([a-z0-9-]+\.)?tumblr\.com$/, "tumblr"], [/^flickr\.com$/, "flickr"], [/^giphy\.com$/, "giphy"],
  [/^([a-z0-9-]+\.)?medium\.com$/, "medium"], [/^open\.spotify\.com$/, "spotify"], [/^soundcloud\.com$/, "soundcloud"],
  [/^tripadvisor\.[a-z.]+$/, "tripadvisor"], [/^yelp\.[a-z.]+$/, "yelp"], [/^producthunt\.com$/, "producthunt"],
  [/^reddit\.com$/, "reddit"], [/^crunchbase\.com$/, "crunchbase"], [/^(apps|itunes)\.apple\.com$/, "appstore"],
  [/^play\.google\.com$/, "playstore", /^\/store\/apps/]
]

/** The network a profile URL is on, if it is one (a share link or the network's home page is not a profile). */
export const socialOf = (href: string): SocialType | undefined => {
  let url: URL
  try {
    url = new URL(href)
  } catch {
    return undefined
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined
  const host = url.hostname.toLowerCase().replace(/^(www|m|mobile)\./, "")
  if (url.pathname.replace(/\/+$/, "") === "" && !/^[a-z0-9-]+\.(tumblr|medium)\.com$/.test(host)) return undefined
  if (/\/(share|sharer|intent|dialog)(\.php)?\b/i.test(url.pathname) || url.searchParams.has("share")) return undefined
  for (const [pattern, type, path] of NETWORKS) {
    if (pattern.test(host)) return path === undefined || path.test(url.pathname) ? type : undefined
  }
  return undefined
}

/** The site's own pages the SDK names. */
export type LinkKind = "blog" | "careers" | "contact" | "pricing" | "privacy" | "terms"

const KINDS: ReadonlyArray<readonly [LinkKind, RegExp, RegExp]> = [
  // kind, path test, label test
  ["pricing", /^\/(pricing|plans|prices)(\/|$|\.)/i, /^(pricing|plans|plans (&|and) pricing|prices)$/i],
  ["careers", /^\/(careers?|jobs|join(-us)?|work-with-us)(\/|$|\.)/i, /^(careers?|jobs|join us|we're hiring|work with us)$/i],
  ["contact", /^\/(contact(-us)?|kontakt|contacto)(\/|$|\.)/i, /^(contact( us)?|get in touch)$/i],
  ["blog", /^\/(blog|news|journal|articles|insights)(\/|$|\.)/i, /^(blog|news|journal)$/i],
  ["privacy", /^\/(legal\/)?(privacy|privacy-policy|datenschutz)(\/|$|\.)/i, /^privacy( policy| notice)?$/i],
  ["terms", /^\/(legal\/)?(terms|tos|terms-of-service|terms-of-use|terms-and-conditions|conditions)(\/|$|\.)/i, /^terms( of (service|use))?|terms (&|and) conditions$/i]
]

const siteOf = (host: string) => host.toLowerCase().replace(/^www\./, "")

/** Reads the anchors: socials (first per network), the named pages (first per kind, same site), email and phone. */
export const readAnchors = (anchors: ReadonlyArray<Anchor>, base: string) => {
  const socials = new Map<SocialType, string>()
  const links = new Map<LinkKind, string>()
  let email: string | undefined
  let phone: string | undefined
  const site = siteOf(new URL(base).hostname)
  for (const anchor of anchors) {
    const href = anchor.href
    if (/^mailto:/i.test(href)) {
      const address = decodeURIComponent(href.slice(7).split("?")[0]!).trim()
      if (email === undefined && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(address)) email = address
      continue
    }
    if (/^tel:/i.test(href)) {
      phone ??= decodeURIComponent(href.slice(4)).trim() || undefined
      continue
    }
    let url: URL
    try {
      url = new URL(href, base)
    } catch {
      continue
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") continue
    if (siteOf(url.hostname) !== site) {
      const social = socialOf(url.href)
      if (social !== undefined && !socials.has(social)) socials.set(social, url.href)
      continue
    }
    for (const [kind, path, label] of KINDS) {
      if (links.has(kind)) continue
      if (path.test(url.pathname) || label.test(anchor.text.trim())) {
        url.hash = ""
        links.set(kind, url.href)
        break
      }
    }
  }
  return { socials, links, email, phone }
}
