/**
 * Honest failures: a bot wall, CAPTCHA or challenge page, a login wall or a soft 404 is not the page that was asked
 * for. Detected pages fail with `WEBSITE_BLOCKED` (walls and challenges) or `WEBSITE_ACCESS_ERROR` (soft 404s), so
 * they are never returned as a successful scrape and never charged. Signatures are specific (vendor markers, titles
 * of interstitials, a page that is little more than a password form) so ordinary pages that mention logins or
 * cookies pass.
 *
 * @since 0.1.0
 */
import { WebsiteError } from "./Errors.js"

/** What a page is, when it is not content. @category models */
export type Verdict =
  | { readonly kind: "challenge" | "captcha" | "botWall" | "loginWall"; readonly detail: string }
  | { readonly kind: "soft404"; readonly detail: string }

interface Signature {
  readonly kind: "challenge" | "captcha" | "botWall"
  readonly test: RegExp
  /** Lower-case words of which every match of `test` contains one: a page with none of them is not scanned with it. */
  readonly hints: ReadonlyArray<string>
  readonly detail: string
}

const signatures: ReadonlyArray<Signature> = [
  {
    kind: "challenge",
    test: /<title>\s*Just a moment\.\.\.\s*<\/title>|cf-browser-verification|challenges\.cloudflare\.com\/cdn-cgi\/challenge-platform|\/cdn-cgi\/challenge-platform\/|id=["']challenge-form["']|cf_chl_opt/i,
    hints: ["just a moment...", "cf-browser-verification", "challenge-platform", "challenge-form", "cf_chl_opt"],
    detail: "a Cloudflare challenge page"
  },
  {
    kind: "botWall",
    test: /<title>\s*Attention Required! \| Cloudflare\s*<\/title>|cf-error-details[\s\S]*Sorry, you have been blocked/i,
    hints: ["attention required! | cloudflare", "cf-error-details"],
    detail: "a Cloudflare block page"
  },
  { kind: "captcha", test: /captcha-delivery\.com|geo\.captcha-delivery|ct\.captcha-delivery|datadome/i, hints: ["captcha-delivery", "datadome"], detail: "a DataDome CAPTCHA" },
  { kind: "captcha", test: /id=["']px-captcha["']|perimeterx|_pxhd|px-cdn\.net/i, hints: ["px-captcha", "perimeterx", "_pxhd", "px-cdn.net"], detail: "a PerimeterX (HUMAN) challenge" },
  { kind: "botWall", test: /<title>\s*Access Denied\s*<\/title>[\s\S]*(Reference #|errors\.edgesuite\.net)/i, hints: ["access denied"], detail: "an Akamai access-denied page" },
  { kind: "challenge", test: /_Incapsula_Resource|incapsula incident id/i, hints: ["incapsula"], detail: "an Imperva (Incapsula) challenge" },
  { kind: "challenge", test: /<title>\s*(DDoS-Guard|Checking your browser[^<]*)\s*<\/title>/i, hints: ["ddos-guard", "checking your browser"], detail: "a browser-check interstitial" },
  { kind: "captcha", test: /awswaf|aws-waf-token|<title>\s*Human Verification\s*<\/title>/i, hints: ["awswaf", "aws-waf-token", "human verification"], detail: "an AWS WAF CAPTCHA" }
]

/** Widgets that make a small page a CAPTCHA wall (on a large page they are just a form's protection). */
const captchaWidget = /class=["'][^"']*\b(g-recaptcha|h-captcha|cf-turnstile)\b|www\.google\.com\/recaptcha\/api2\/anchor|hcaptcha\.com\/captcha/i
const captchaHints = ["g-recaptcha", "h-captcha", "cf-turnstile", "recaptcha/api2/anchor", "hcaptcha.com/captcha"]

/**
 * Every hint in one case-insensitive scan: most pages hold none, and are passed after it instead of a dozen regular
 * expressions and a strip of their markup (about 1.2 ms of a 100 KB page, a tenth of a batch page's work). A
 * lookahead, so a hint starting inside another is found too; the hints are ASCII, so what `/i` matches lower-cases to
 * the hint.
 */
const hintPattern = new RegExp(
  `(?=(${[...signatures.flatMap((signature) => signature.hints), ...captchaHints, "password"].map((hint) => hint.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|")}))`,
  "gi"
)

const visibleText = (html: string) =>
  (/<body\b[^>]*>([\s\S]*)/i.exec(html)?.[1] ?? html)
    .replace(/<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;|\s+/g, " ")
    .trim()

const titleOf = (html: string) => /<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.trim() ?? ""

const SOFT_404_TITLE = /^(404\b|page not found|not found|error 404|this page (could not|can't|cannot) be found|page (does not|doesn't) exist)/i

/** Classifies a page; undefined when it looks like content. */
export const inspect = (page: { readonly url: string; readonly status: number; readonly html: string }): Verdict | undefined => {
  const head = page.html.slice(0, 200_000)
  const present = new Set<string>()
  for (const match of head.matchAll(hintPattern)) present.add(match[1]!.toLowerCase())
  const has = (hints: ReadonlyArray<string>) => hints.some((hint) => present.has(hint))
  for (const signature of signatures) {
    if (has(signature.hints) && signature.test.test(head)) return { kind: signature.kind, detail: signature.detail }
  }
  // The visible text and its words, read only for a page that may be a wall.
  let text: string | undefined
  let counted: number | undefined
  const textOf = () => text ??= visibleText(head)
  const words = () => counted ??= textOf().split(" ").filter((w) => w.length > 0).length
  if (has(captchaHints) && captchaWidget.test(head) && words() < 150) return { kind: "captcha", detail: "a CAPTCHA wall" }
  const title = titleOf(head)
  if (present.has("password") && /<input\b[^>]*type=["']?password/i.test(head) && words() < 120) {
    const path = (() => {
      try {
        return new URL(page.url).pathname
      } catch {
        return ""
      }
    })()
    if (/\b(log ?in|sign ?in|anmelden|connexion)\b/i.test(title + " " + textOf()) || /\/(login|signin|sign-in|auth)\b/i.test(path)) {
      return { kind: "loginWall", detail: "a login wall (the page is a sign-in form)" }
    }
  }
  if (page.status === 200 && SOFT_404_TITLE.test(title) && words() < 200) {
    return { kind: "soft404", detail: `a soft 404 (status 200, titled "${title.slice(0, 80)}")` }
  }
  return undefined
}

/** The error for a verdict. */
export const toError = (url: string, verdict: Verdict): WebsiteError =>
  verdict.kind === "soft404"
    ? new WebsiteError({ reason: "HttpStatus", url, status: 404, detail: verdict.detail })
    : new WebsiteError({ reason: "Blocked", url, detail: verdict.detail })
