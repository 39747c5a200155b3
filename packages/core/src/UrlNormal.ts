/**
 * URL normalisation and dedupe for site maps: one spelling per page, whatever mix of fragments, default ports, host
 * case, tracking parameters, `www.` and `http`/`https` variants the site's sitemaps, feeds and links use.
 *
 * `normalize` returns the URL to show (only what cannot change the page is removed); `dedupeKey` is coarser: it also
 * ignores the scheme and a leading `www.`, because sites list both spellings of one page and peers' maps either return
 * both or drop one host altogether.
 *
 * @since 0.1.0
 */

/** Query parameters that only track the visitor; removed by {@link normalize}. Matched lower-case. */
export const trackingParameters: ReadonlySet<string> = new Set([
  "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "fbclid", "msclkid", "yclid", "twclid", "ttclid", "li_fat_id",
  "igshid", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "hsctatracking", "mkt_tok", "oly_anon_id",
  "oly_enc_id", "vero_id", "vero_conv", "wickedid", "ref_src", "ref_url", "s_kwcid", "srsltid", "_kx", "spm"
])

// Matches a query that might hold a tracking parameter name (a superset: the exact test is `isTracking`).
const mayTrack = new RegExp(`[?&](?:utm_|${[...trackingParameters].join("|")})`, "i")

const isTracking = (name: string): boolean => {
  const lower = name.toLowerCase()
  return lower.startsWith("utm_") || trackingParameters.has(lower)
}

/**
 * The URL in normal form as a `URL`, or `undefined` when it is not an absolute (or `base`-relative) http(s) URL: host
 * lower-case and IDNA-encoded, default port, credentials and fragment dropped, dot segments resolved, tracking
 * parameters removed (the other parameters keep their order), an empty `?` dropped.
 */
export const parse = (raw: string, base?: string | URL): URL | undefined => {
  let url: URL
  try {
    url = new URL(raw.trim(), base)
  } catch {
    return undefined
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  if (url.hostname === "") return undefined
  // Setters re-serialise the URL: only touch what is there (most sitemap URLs need nothing).
  if (url.hash !== "") url.hash = ""
  if (url.username !== "" || url.password !== "") {
    url.username = ""
    url.password = ""
  }
  // URLSearchParams is costly; most queries carry no tracking parameter, which one regular expression tells.
  if (url.search !== "" && mayTrack.test(url.search)) {
    const params = url.searchParams
    let tracked = false
    for (const name of params.keys()) {
      if (isTracking(name)) {
        tracked = true
        break
      }
    }
    if (tracked) {
      for (const name of [...params.keys()]) if (isTracking(name)) params.delete(name)
    }
  }
  return url
}

/** The URL in normal form as text (see {@link parse}); `undefined` when it is not an http(s) URL. */
export const normalize = (raw: string, base?: string | URL): string | undefined => {
  const href = parse(raw, base)?.href
  // `new URL` keeps a lone trailing `?`.
  return href !== undefined && href.endsWith("?") ? href.slice(0, -1) : href
}

/** The host without one leading `www.`: the site a host belongs to. */
export const siteHost = (host: string): string => {
  const lower = host.toLowerCase().replace(/\.$/, "")
  return lower.startsWith("www.") ? lower.slice(4) : lower
}

/** The key two spellings of one page share: no scheme, no leading `www.`. Takes a {@link normalize}d URL. */
export const dedupeKey = (normalized: string): string => {
  const schemeEnd = normalized.indexOf("//") + 2
  const rest = normalized.slice(schemeEnd)
  return rest.startsWith("www.") ? rest.slice(4) : rest
}

/**
 * The domain a request names, as a bare lower-case host: accepts `example.com`, `www.example.com`,
 * `https://example.com/path` or `example.com:8080`; `undefined` when it is not a host name.
 */
export const domainOf = (input: string): string | undefined => {
  const text = input.trim()
  if (text === "") return undefined
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`)
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
    const host = url.hostname.replace(/\.$/, "")
    return host.includes(".") || host === "localhost" ? host : undefined
  } catch {
    return undefined
  }
}

/**
 * Whether `url` belongs to the site of `domain`: same host, or its `www.` twin (either way round), or, with
 * `includeSubdomains`, any host under it.
 */
export const inScope = (url: string | URL, domain: string, includeSubdomains: boolean): boolean => {
  let host: string
  try {
    host = siteHost(typeof url === "string" ? new URL(url).hostname : url.hostname)
  } catch {
    return false
  }
  const site = siteHost(domain)
  return host === site || (includeSubdomains && host.endsWith(`.${site}`))
}

/** Normalised URLs without duplicates (by {@link dedupeKey}), in first-seen order; unusable entries dropped. */
export const dedupe = (urls: Iterable<string>): Array<string> => {
  const seen = new Set<string>()
  const out: Array<string> = []
  for (const raw of urls) {
    const url = normalize(raw)
    if (url === undefined) continue
    const key = dedupeKey(url)
    if (seen.has(key)) continue
    seen.add(key)
    out.push(url)
  }
  return out
}
