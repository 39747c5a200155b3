/**
 * `POST /v1/people/enrich` through the official SDK (`client.people.enrich`). Fixture "domains" (`*.test`, one local
 * server through host rules): a company site whose home page links its team page (cards with name, role, photo,
 * LinkedIn and email links) and its about page (a JSON-LD Organization with its founder as a `Person`), and the
 * founder's personal site (an h-card with a locality, and a `rel=me` link).
 */
import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Hosts, startSites } from "../../../core/test/discovery/support/sites.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const founder = {
  "@context": "https://schema.org",
  "@type": "Organization",
  name: "Acme Robotics",
  url: "http://acme.test/",
  founder: {
    "@type": "Person",
    name: "Maria Garcia",
    jobTitle: "Chief Executive Officer",
    image: "http://acme.test/img/maria.jpg",
    description: "Maria founded Acme Robotics in 2014 after a decade building welding lines for car makers.",
    sameAs: ["https://www.linkedin.com/in/mariagarcia", "http://maria.test/"]
  }
}

const hosts: Hosts = {
  "acme.test": {
    "/": FixtureSite.html(`<!doctype html><html><head><title>Acme Robotics | Industrial robots</title><meta property="og:site_name" content="Acme Robotics"></head><body><nav><a href="/products">Products</a><a href="/company/team">Our team</a><a href="/about">About us</a></nav><h1>Robots that weld</h1></body></html>`),
    "/company/team": FixtureSite.html(`<!doctype html><html><head><title>Team | Acme Robotics</title></head><body><h1>Our team</h1><ul class="team-grid">
      <li class="team-member"><img src="/img/jane.jpg" alt="Jane Doe"><h3>Jane Doe</h3><p class="role">Chief Technology Officer</p><p>Jane leads the engineers who design Acme's welding arms, after ten years of robotics research in Zurich.</p><a href="https://www.linkedin.com/in/janedoe">LinkedIn</a><a href="mailto:jane.doe@acme.test">Email</a></li>
      <li class="team-member"><img src="/img/raj.jpg" alt=""><h3>Raj Patel</h3><p class="role">Head of Sales</p><a href="https://www.linkedin.com/in/rajpatel">LinkedIn</a></li>
    </ul></body></html>`),
    "/about": FixtureSite.html(`<!doctype html><html><head><title>About | Acme Robotics</title><script type="application/ld+json">${JSON.stringify(founder)}</script></head><body><h1>About Acme Robotics</h1><p>Founded in 2014.</p></body></html>`)
  },
  "maria.test": {
    "/": FixtureSite.html(`<!doctype html><html><head><title>Maria Garcia</title></head><body><div class="h-card"><img class="u-photo" src="/me.jpg" alt=""><a class="p-name u-url" href="http://maria.test/">Maria Garcia</a><p class="p-note">Engineer, founder, occasional marathon runner.</p><span class="p-locality">Lisbon</span></div><a rel="me" href="https://github.com/mgarcia">GitHub</a></body></html>`)
  }
}

type Enriched = Awaited<ReturnType<ContextDev["people"]["enrich"]>> & { key_metadata: { credits_consumed: number } }

const apiError = async (promise: Promise<unknown>) => {
  try {
    await promise
  } catch (error) {
    const e = error as { status?: number; error?: { error_code?: string; message?: string } }
    return { status: e.status, code: e.error?.error_code, message: e.error?.message ?? "" }
  }
  throw new Error("expected the call to fail")
}

let site: FixtureSite.Site
let service: TestService.TestService

beforeAll(async () => {
  site = await startSites(hosts)
  service = await TestService.start({ hostRules: `MAP *.test 127.0.0.1:${site.port}` })
}, 120_000)
afterAll(async () => {
  await service?.close()
  await site?.close()
})

const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId))).then((b) => b.remaining)
const clientOf = (secret: string) => new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0, timeout: 60_000 })

describe("POST /people/enrich through the official SDK", () => {
  it("finds a team member by company domain and name: role, photo, LinkedIn; score 70; 20 credits", async () => {
    const { orgId, secret } = await service.key({ credits: 1_000 })
    const client = clientOf(secret)
    const before = await balance(orgId)
    const enriched = await client.people.enrich({ company: { domain: "acme.test" }, name: { first: "Jane", last: "Doe" } }) as Enriched
    expect(enriched.match.status).toBe("candidate")
    // name 40 + found on the company's site 25 + a stated role 5
    expect(enriched.match.score).toBe(70)
    const person = enriched.match.person!
    expect(person.name).toEqual({ full: "Jane Doe", first: "Jane", last: "Doe" })
    expect(person.current_role).toEqual({ organization: { name: "Acme Robotics", domain: "acme.test" }, title: "Chief Technology Officer", is_current: true })
    expect(person.current_role_status).toBe("present")
    expect(person.avatar_url).toBe("http://acme.test/img/jane.jpg")
    expect(person.social_urls).toEqual(["https://www.linkedin.com/in/janedoe"])
    expect(person.email).toBe("jane.doe@acme.test")
    expect(person.bio).toContain("welding arms")
    expect(person.education).toEqual([])
    expect(person.experience).toEqual([person.current_role])
    expect(enriched.key_metadata.credits_consumed).toBe(20)
    expect(await balance(orgId)).toBe(before - 20)
  }, 60_000)

  it("finds a person by company email alone (the address on the card): score 50", async () => {
    const { secret } = await service.key({ credits: 1_000 })
    const enriched = await clientOf(secret).people.enrich({ email: "jane.doe@acme.test" })
    expect(enriched.match.status).toBe("candidate")
    // found on the company's site 25 + the email on the card 20 + a stated role 5
    expect(enriched.match.score).toBe(50)
    expect(enriched.match.person?.name?.full).toBe("Jane Doe")
    // A pattern of the name (raj.patel@) agrees too, for less.
    const raj = await clientOf(secret).people.enrich({ email: "raj.patel@acme.test" })
    expect(raj.match).toMatchObject({ status: "candidate", score: 45, person: { current_role: { title: "Head of Sales" } } })
  }, 60_000)

  it("merges the company's JSON-LD founder with her personal site's h-card and rel=me: score 90", async () => {
    const { secret } = await service.key({ credits: 1_000 })
    const enriched = await clientOf(secret).people.enrich({
      company: { domain: "acme.test" },
      name: { first: "maria", last: "GARCIA" },
      social_urls: ["http://maria.test/"],
      location: { city: "Lisbon" }
    })
    // name 40 + company site 25 + the personal site among her sameAs 15 + role 5 + city 5
    expect(enriched.match.score).toBe(90)
    const person = enriched.match.person!
    expect(person.current_role?.title).toBe("Chief Executive Officer")
    expect(person.avatar_url).toBe("http://acme.test/img/maria.jpg")
    expect(person.website_urls).toEqual(["http://maria.test/"])
    expect(person.social_urls).toEqual(["https://www.linkedin.com/in/mariagarcia", "https://github.com/mgarcia"])
    expect(person.location).toMatchObject({ city: "Lisbon" })
  }, 60_000)

  it("answers not_found for a name no page states, free (200)", async () => {
    const { orgId, secret } = await service.key({ credits: 1_000 })
    const before = await balance(orgId)
    const enriched = await clientOf(secret).people.enrich({ company: { domain: "acme.test" }, name: { first: "Nobody", last: "Here" } }) as Enriched
    expect(enriched.match).toEqual({ status: "not_found", score: null, person: null })
    expect(enriched.key_metadata.credits_consumed).toBe(0)
    expect(await balance(orgId)).toBe(before)
  }, 60_000)

  it("refuses free and disposable emails (422), the free plan (403) and no clue (400), uncharged", async () => {
    const { orgId, secret } = await service.key({ credits: 1_000 })
    const client = clientOf(secret)
    const before = await balance(orgId)
    expect(await apiError(client.people.enrich({ email: "x@gmail.com" }))).toMatchObject({ status: 422, code: "FREE_EMAIL_DETECTED" })
    expect(await apiError(client.people.enrich({ email: "x@mailinator.com" }))).toMatchObject({ status: 422, code: "DISPOSABLE_EMAIL_DETECTED" })
    expect(await apiError(client.people.enrich({ company: { domain: "acme.test" } }))).toMatchObject({ status: 400, code: "INPUT_VALIDATION_ERROR" })
    expect(await balance(orgId)).toBe(before)
    const free = await service.key({ plan: "free", credits: 1_000 })
    const freeBefore = await balance(free.orgId)
    expect(await apiError(clientOf(free.secret).people.enrich({ company: { domain: "acme.test" }, name: { first: "Jane", last: "Doe" } })))
      .toMatchObject({ status: 403, code: "PAID_PLAN_REQUIRED" })
    expect(await balance(free.orgId)).toBe(freeBefore)
  }, 60_000)
})
