/**
 * Server-rendered HTML for the web pages (the agent claim page): one layout, escaping, the CSRF hidden field, and the
 * session cookie. The pages work without JavaScript.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

/** The session cookie's name. */
export const SESSION_COOKIE = "sift_session"

/** Escapes text for HTML content and attribute values. */
export const escape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** The hidden CSRF field every form carries. */
export const csrfField = (token: string) => `<input type="hidden" name="csrf" value="${escape(token)}">`

/** The page layout around `body` (HTML already escaped by the caller). */
export const layout = (title: string, body: string) =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Sift</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
form{margin:1.5rem 0;padding:1rem;border:1px solid #ddd;border-radius:8px}label{display:block;margin:.5rem 0}
input[type=text],input[type=email],input[type=password]{width:100%;padding:.4rem;font-size:1rem;box-sizing:border-box}
.error{color:#b00020}.note{color:#555}</style></head>
<body><h1>${escape(title)}</h1>
${body}
</body></html>`

/** An HTML response; pages are never cached and never framed. */
export const page = (title: string, body: string, options: { readonly status?: number; readonly cookie?: string | undefined } = {}) =>
  HttpServerResponse.text(layout(title, body), {
    status: options.status ?? 200,
    contentType: "text/html; charset=utf-8",
    headers: {
      "cache-control": "no-store",
      "x-frame-options": "DENY",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      ...(options.cookie === undefined ? {} : { "set-cookie": options.cookie })
    }
  })

/** A 303 redirect after a form post. */
export const seeOther = (location: string, cookie?: string) =>
  HttpServerResponse.empty({
    status: 303,
    headers: { location, "cache-control": "no-store", ...(cookie === undefined ? {} : { "set-cookie": cookie }) }
  })

/** The `Set-Cookie` value of a session secret (Secure when the public origin is https). */
export const sessionCookie = (secret: string, origin: string) =>
  `${SESSION_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age=86400${origin.startsWith("https:") ? "; Secure" : ""}`

/** The session secret the browser sent, if any. */
export const sessionSecret = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const value = request.cookies[SESSION_COOKIE]
  return value === undefined || value === "" ? undefined : value
}
