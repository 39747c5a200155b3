/**
 * What class names, ids, roles and short texts say about a block: chrome (navigation, comments, ads...) or content.
 * Class and id values are split into words (`post-comments`, `relatedPosts`, `nav_main` → post/comments, related/posts,
 * nav/main) so a word matches exactly, rather than as a substring of an unrelated word (`header` inside `subheader`).
 */
import type { Element } from "hast"

/** Words that mark chrome even when a content word sits beside them (`sidebar-content`, `post-comments`). */
const strongChrome = new Set([
  "nav", "navbar", "navi", "navigation", "menu", "menubar", "submenu", "megamenu", "breadcrumb", "breadcrumbs",
  "crumbs", "footer", "sidebar", "comment", "comments", "commentlist", "respond", "disqus",
  // Comment sections named in the page's language (plural only: a German "Kommentar" is an opinion piece).
  "kommentare", "commentaires", "comentarios", "commenti", "komentarze", "reacties", "kommentarer",
  "cookie", "cookies", "consent", "gdpr", "cmp", "related", "relatedposts", "recommended", "recommendations",
  "share", "sharing", "shares", "sharebar", "sharedaddy", "social", "socials", "sns", "newsletter", "subscribe",
  "subscription", "signup", "popup", "modal", "overlay", "ad", "ads", "adv", "advert", "adverts", "advertisement",
  "advertising", "adsense", "adslot", "adunit", "dfp", "sponsor", "sponsored", "promo", "promotion", "outbrain",
  "taboola", "pagination", "pager", "skip", "skiplink", "sronly", "screenreader", "visuallyhidden",
  "offscreen", "mostread", "mostpopular", "tagcloud",
  "taglist", "dateline", "postmeta", "entrymeta",
  "toolbar", "masthead", "topbar", "bottombar",
  "signin", "searchform", "backtotop", "totop",
  "subnav", "sitemap", "copyright", "disclaimer", "authorbox", "authorbio", "aboutauthor", "bio",
  // Embedded posts of social networks: another author's text, shown as a card.
  "twittertweet", "instagrammedia", "fbpost", "wpembeddedcontent", "tiktokembed"
])
/** Words of an article's byline: article text when short, an author box when long (chrome decides by length). */
const bylineWords = new Set(["byline", "author", "authors", "writer", "saboxplugin" /* WordPress's Simple Author Box */])
/** Words that mark chrome only when no content word is present (`site-header` yes, `entry-header` no). */
const weakChrome = new Set([
  "tags", "tag", "category", "categories", "date", "hidden", "hide", "meta", "metadata",
  "keywords", "banner", "search", "follow", "reply", "replies", "shop", "cart", "login", "published", "posted",
  "rating", "ratings", "jump", "donate", "feedback", "teaser", "teasers", "popular", "trending", "avatar",
  "timestamp", "pubdate", "header", "head", "side", "aside", "secondary", "complementary",
  "languages", "community", "partner", "partners", "tools", "toolbox", "noprint", "widget", "widgets"
])
/** Words that mark the main content. */
const contentWords = new Set([
  "article", "articlebody", "articletext", "articlecontent", "content", "contents", "entry", "entrycontent",
  "post", "postcontent", "postbody", "posttext", "story", "storybody", "storycontent", "main", "maincontent", "body",
  "text", "blog", "blogpost", "hentry", "prose", "richtext", "markdown", "page", "pagecontent", "single", "detail",
  "details", "news", "newsarticle", "artikel", "inhalt", "contenido", "contenu", "testo", "articulo", "texto", "field",
  "itemfulltext", "fulltext", "copy", "bodytext", "wysiwyg", "editorial", "read", "reader", "section", "column"
])

const splitWords = (value: string): Array<string> =>
  value
    .replace(/([a-z])([A-Z])/gu, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/u)
    .filter((w) => w.length > 0)

/**
 * How a block's attributes classify it: `weak` chrome names (`site-header`) need the text to agree; a `byline` is kept
 * when short (the article's author line) and is chrome when long (an author box).
 */
export type Hint = "chrome" | "weak" | "byline" | "content" | "neutral"

/** Words that turn a class into a statement about its contents (`has-ads`, `no-sidebar`), not its identity. */
const modifierWords = new Set([
  "has", "with", "no", "without", "enable", "enabled", "is", "show", "hide", "not",
  // A layout names the grid that places a sidebar or a header beside the content (`c-fixed-sidebar-layout`).
  "layout"
])

const attributeWords = (element: Element): Array<string> => {
  const props = element.properties
  const words: Array<string> = []
  const className = props.className
  const add = (value: string) => {
    const split = splitWords(value)
    if (split.some((w) => modifierWords.has(w))) return
    words.push(...split)
    if (split.length > 1) words.push(split.join(""))
  }
  if (Array.isArray(className)) for (const c of className) add(String(c))
  if (typeof props.id === "string") add(props.id)
  return words
}

/** Words naming an article's lead paragraph (standfirst, teaser text, summary) that sits above its body. */
const leadWords = new Set([
  "lead", "leader", "leading", "intro", "introduction", "standfirst", "excerpt", "abstract", "summary", "subtitle",
  "subheadline", "subhead", "chapo", "chapeau", "dek", "description", "entradilla", "sumario", "bajada", "sommario",
  "occhiello", "catenaccio", "vorspann", "anriss", "lede"
])

/** A quick test on the raw names: only names holding one of the lead words as a substring are split into words. */
const leadHint =
  /lead|lede|intro|standfirst|excerpt|abstract|summary|subtitle|subhead|chapo|chapeau|dek|description|entradilla|sumario|bajada|sommario|occhiello|catenaccio|vorspann|anriss/iu
const leadCache = new WeakMap<Element, boolean>()

/** Whether an element's class or id names it as the article's lead paragraph. */
export const isLead = (element: Element): boolean => {
  const { className, id } = element.properties
  const named = (typeof id === "string" && leadHint.test(id)) ||
    (Array.isArray(className) && className.some((c) => leadHint.test(String(c))))
  if (!named) return false
  let lead = leadCache.get(element)
  if (lead === undefined) {
    lead = attributeWords(element).some((w) => leadWords.has(w))
    leadCache.set(element, lead)
  }
  return lead
}

const classify = (words: ReadonlyArray<string>): Hint => {
  let content = false
  let weak = false
  let byline = false
  for (const w of words) {
    if (strongChrome.has(w)) return "chrome"
    if (bylineWords.has(w)) byline = true
    else if (contentWords.has(w)) content = true
    else if (weakChrome.has(w)) weak = true
  }
  return byline ? "byline" : content ? "content" : weak ? "weak" : "neutral"
}

const cache = new WeakMap<Element, Hint>()

/** Classifies an element by its class and id words. */
export const attributeHint = (element: Element): Hint => {
  let hint = cache.get(element)
  if (hint === undefined) {
    hint = classify(attributeWords(element))
    cache.set(element, hint)
  }
  return hint
}

const chromeRoles = new Set([
  "navigation", "contentinfo", "complementary", "search", "menu", "menubar", "dialog", "alertdialog",
  "toolbar", "tablist", "form"
])

/** ARIA roles that mark page chrome. */
export const isChromeRole = (element: Element): boolean => {
  const role = element.properties.role
  return typeof role === "string" && chromeRoles.has(role.toLowerCase())
}

/** Elements that mark the main content by HTML semantics or schema.org microdata. */
export const isLandmark = (element: Element): boolean => {
  if (element.tagName === "main" || element.tagName === "article") return true
  const role = element.properties.role
  if (typeof role === "string" && role.toLowerCase() === "main") return true
  const itemprop = element.properties.itemProp
  const props = Array.isArray(itemprop) ? itemprop.map(String) : typeof itemprop === "string" ? [itemprop] : []
  return props.some((p) => p === "articleBody" || p === "text" || p === "reviewBody")
}
