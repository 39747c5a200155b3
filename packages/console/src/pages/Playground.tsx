import { useState } from "preact/hooks"
import { api } from "../api"
import { ErrorBox, Field, Header, Snippet } from "../ui"

interface Output<T> {
  readonly requested: boolean
  readonly data: T | null
}
interface Scraped {
  readonly url: string
  readonly markdown: Output<string>
  readonly html: Output<string>
  readonly screenshot: Output<string>
  readonly metadata: Record<string, unknown>
  readonly cache_metadata?: { readonly status: string; readonly age_ms: number }
  readonly request_id: string
  readonly key_metadata?: { readonly credits_consumed: number; readonly credits_remaining: number }
}

const FORMATS = ["markdown", "html", "screenshot"] as const

/** The body of `POST /v1/web/scrape` the form describes. */
const bodyOf = (form: FormData) => {
  const formats: Record<string, boolean> = {}
  for (const f of FORMATS) if (form.get(f) !== null) formats[f] = true
  const maxAge = String(form.get("maxAgeMs") ?? "")
  return {
    url: String(form.get("url") ?? ""),
    formats,
    ...(form.get("mainContentOnly") !== null ? { sharedParams: { mainContentOnly: true } } : {}),
    ...(maxAge !== "" ? { maxAgeMs: Number(maxAge) } : {}),
    ...(form.get("zdr") !== null ? { zdr: "enabled" } : {})
  }
}

/** Playground: a URL and the options of `POST /v1/web/scrape`, its outputs side by side, and the same call as code. */
export const Playground = () => {
  const [result, setResult] = useState<Scraped | null>(null)
  const [error, setError] = useState<unknown>(undefined)
  const [busy, setBusy] = useState(false)
  const [body, setBody] = useState<ReturnType<typeof bodyOf>>({ url: "https://example.com", formats: { markdown: true } })
  const run = async (event: Event) => {
    event.preventDefault()
    const next = bodyOf(new FormData(event.target as HTMLFormElement))
    setBody(next)
    setBusy(true)
    setError(undefined)
    try {
      setResult(await api<Scraped>("POST", "/v1/web/scrape", { body: next }))
    } catch (e) {
      setError(e)
      setResult(null)
    } finally {
      setBusy(false)
    }
  }
  const json = JSON.stringify(body)
  const curl = `curl -X POST "${location.origin}/v1/web/scrape" \\\n  -H "Authorization: Bearer $SIFT_API_KEY" -H "Content-Type: application/json" \\\n  -d '${json.replace(/'/g, "'\\''")}'`
  const sdk = `import ContextDev from "context.dev"\n\nconst client = new ContextDev({ apiKey: process.env.SIFT_API_KEY, baseURL: "${location.origin}/v1" })\nconst result = await client.post("/web/scrape", { body: ${JSON.stringify(body, null, 2).replace(/\n/g, "\n  ")} })`
  return (
    <section>
      <Header title="Playground" />
      <form class="card" onSubmit={run} id="playground-form">
        <Field label="URL"><input name="url" type="url" required defaultValue={body.url} /></Field>
        <fieldset>
          <legend>Outputs (one credit for any mix)</legend>
          <div class="checks">
            {FORMATS.map((f) => <label key={f} class="check"><input type="checkbox" name={f} defaultChecked={f === "markdown"} /> {f}</label>)}
            <span class="small muted">metadata always comes with them</span>
          </div>
        </fieldset>
        <div class="row">
          <label class="check"><input type="checkbox" name="mainContentOnly" /> Main content only</label>
          <label class="check"><input type="checkbox" name="zdr" /> Zero data retention</label>
          <Field label="Oldest cached copy accepted (ms)" hint="Empty: one day; 0 fetches fresh">
            <input name="maxAgeMs" type="number" min={0} max={2592000000} />
          </Field>
        </div>
        <ErrorBox error={error} />
        <button type="submit" disabled={busy}>{busy ? "Scraping…" : "Scrape"}</button>
        <span class="small muted"> Runs with your session and is charged to the organization like any request.</span>
      </form>
      {result !== null ? (
        <div id="playground-result">
          <p class="small muted">
            <code>{result.url}</code> · cache {result.cache_metadata?.status ?? "—"} · {result.key_metadata?.credits_consumed ?? 0} credit(s) · request_id <code>{result.request_id}</code>
          </p>
          <div class="split">
            {result.markdown.requested ? <div class="card"><h2>Markdown</h2><pre class="output" id="out-markdown" tabIndex={0} aria-label="Markdown">{result.markdown.data}</pre></div> : null}
            {result.html.requested ? <div class="card"><h2>HTML</h2><pre class="output" tabIndex={0} aria-label="HTML">{result.html.data}</pre></div> : null}
            {result.screenshot.requested && result.screenshot.data !== null ? <div class="card"><h2>Screenshot</h2><img src={result.screenshot.data} alt={`Screenshot of ${result.url}`} class="shot" /></div> : null}
            <div class="card"><h2>Metadata</h2><pre class="json" tabIndex={0} aria-label="Metadata">{JSON.stringify(result.metadata, null, 2)}</pre></div>
          </div>
        </div>
      ) : null}
      <div class="split">
        <Snippet label="curl" text={curl} />
        <Snippet label="SDK" text={sdk} />
      </div>
    </section>
  )
}
