import { describe, expect, it } from "@effect/vitest"
import { Html } from "@sift/core"
import { findPage } from "../../src/Screenshot/Http.js"

const home = Html.parse(`<html><body><nav>
<a href="/">Home</a><a href="/produkt">Produkt</a><a href="/preise">Preise</a>
<a href="https://blog.example.com/">Our blog</a><a href="/de/karriere/">Jobs bei uns</a>
<a href="mailto:hi@example.com">Contact us by mail</a><a href="/kontakt">Schreiben Sie uns</a>
<a href="/account">Sign in</a>
</nav><footer><a href="/legal/datenschutz">Datenschutz</a><a href="/legal/agb">AGB</a></footer></body></html>`)

describe("GET /web/screenshot page=", () => {
  it("finds each page type from the home page's links, by path first, then by text, in several languages", () => {
    const found = (page: string) => findPage(home, "https://example.com/", page)
    expect(found("pricing")).toBe("https://example.com/preise")
    expect(found("blog")).toBe("https://blog.example.com/")
    expect(found("careers")).toBe("https://example.com/de/karriere/")
    // The mailto link's text says contact, but only http(s) pages can be captured: the path match wins.
    expect(found("contact")).toBe("https://example.com/kontakt")
    expect(found("login")).toBe("https://example.com/account")
    expect(found("privacy")).toBe("https://example.com/legal/datenschutz")
    expect(found("terms")).toBe("https://example.com/legal/agb")
    expect(found("signup")).toBeUndefined()
  })
})
