import { useEffect, useState } from "preact/hooks"
import { api, ApiError } from "../api"
import { CopyButton, Empty, ErrorBox, Field, Header, Pill, useLoad, when } from "../ui"

interface Batch {
  readonly id: string
  readonly mode: "scrape" | "crawl"
  readonly format: string
  readonly status: "queued" | "running" | "cancelling" | "completed" | "cancelled" | "failed"
  readonly input: { readonly reserved: number; readonly reserved_is_ceiling: boolean }
  readonly progress: { readonly succeeded: number; readonly failed: number; readonly pending: number }
  readonly credits: { readonly reserved: number; readonly refunded: number; readonly net: number }
  readonly page_errors: ReadonlyArray<{ readonly code: string; readonly count: number }>
  readonly results: { readonly expires_at: string | null; readonly files: ReadonlyArray<{ readonly url: string; readonly items: number; readonly bytes: number }> } | null
  readonly tags: ReadonlyArray<string>
  readonly timing: { readonly created_at: string | null; readonly completed_at: string | null }
}

const ACTIVE = new Set(["queued", "running", "cancelling"])
const tone = (status: string) => (status === "completed" ? "ok" : status === "failed" ? "bad" : status === "cancelled" ? "neutral" : "warn")

/** Progress as a bar and numbers. */
const Progress = ({ batch }: { batch: Batch }) => {
  const done = batch.progress.succeeded + batch.progress.failed
  const total = done + batch.progress.pending
  return (
    <div class="progress-cell">
      <progress max={Math.max(total, 1)} value={done} aria-label={`${done} of ${total} pages read`} />
      <span class="small">{batch.progress.succeeded} ok · {batch.progress.failed} failed · {batch.progress.pending} pending</span>
    </div>
  )
}

/** Batches: submit a list of URLs, follow their progress live, cancel, download the results, delete. */
export const Batches = () => {
  const [batches, error, , reload] = useLoad(() => api<{ data: Array<Batch> }>("GET", "/v1/batch/list", { query: { limit: 50 } }).then((a) => a.data), [])
  const [formError, setFormError] = useState<unknown>(undefined)
  const [actionError, setActionError] = useState<unknown>(undefined)
  // A webhook batch's signing secret, shown once (the submit answer is the only place it is given).
  const [secret, setSecret] = useState<{ batch: string; secret: string } | null>(null)
  const missing = error instanceof ApiError && error.status === 404
  const active = batches?.some((b) => ACTIVE.has(b.status)) ?? false
  // Live progress: polled every 2 seconds while a batch is active.
  useEffect(() => {
    if (!active) return
    const timer = setInterval(reload, 2000)
    return () => clearInterval(timer)
  }, [active])

  const submit = async (event: Event) => {
    event.preventDefault()
    const formEl = event.target as HTMLFormElement
    const form = new FormData(formEl)
    const urls = String(form.get("urls") ?? "").split(/\s+/).filter((u) => u !== "").map((url) => ({ url }))
    const webhook = String(form.get("webhook") ?? "").trim()
    try {
      const made = await api<{ id: string; webhook_secret?: string }>("POST", "/v1/batch/submit", {
        body: { input: { mode: "scrape", data: { format: String(form.get("format")), urls } }, ...(webhook === "" ? {} : { webhook: { url: webhook, retry: {} } }) },
        headers: { "idempotency-key": crypto.randomUUID() }
      })
      setSecret(made.webhook_secret === undefined ? null : { batch: made.id, secret: made.webhook_secret })
      setFormError(undefined)
      formEl.reset()
      reload()
    } catch (e) {
      setFormError(e)
    }
  }
  const act = async (work: () => Promise<unknown>) => {
    try {
      await work()
      setActionError(undefined)
      reload()
    } catch (e) {
      setActionError(e)
    }
  }
  if (missing) {
    return (
      <section>
        <Header title="Batches" />
        <Empty title="Batches are not served by this version yet">
          <p>Batch scrapes and crawls (many URLs in one request, results to download) are listed here once this server serves <code>/v1/batch</code>.</p>
        </Empty>
      </section>
    )
  }
  return (
    <section>
      <Header title="Batches" />
      <form class="card" onSubmit={submit} id="batch-form">
        <h2>New batch</h2>
        <Field label="URLs" hint="One per line, up to 25,000; one credit each is held and the unused ones refunded when the batch ends">
          <textarea name="urls" rows={4} required placeholder={"https://example.com/a\nhttps://example.com/b"} />
        </Field>
        <Field label="Webhook URL" hint="Optional: the event of the batch's end is POSTed here, signed, with retries; see Deliveries">
          <input name="webhook" type="url" placeholder="https://hooks.example.com/sift" />
        </Field>
        <div class="row end">
          <Field label="Format">
            <select name="format">
              <option value="markdown" selected>Markdown</option>
              <option value="html">HTML</option>
            </select>
          </Field>
          <button type="submit">Submit batch</button>
        </div>
        <ErrorBox error={formError} />
        <p class="small muted">Whole-site crawls and other options: <code>POST /v1/batch/submit</code> or <code>sift batch submit</code> (docs/batch.md).</p>
      </form>
      {secret !== null ? (
        <div class="card notice" id="batch-webhook-secret" role="status">
          <p>Batch <code>{secret.batch}</code>'s webhook signing secret, shown only now (verify <code>X-Service-Signature</code> with it):</p>
          <p><code>{secret.secret}</code> <CopyButton text={secret.secret} label="Copy secret" /></p>
        </div>
      ) : null}
      <ErrorBox error={error ?? actionError} />
      {batches !== undefined && batches.length === 0 ? <Empty title="No batches yet"><p>Submit a list of URLs above; its progress shows here as pages are read, and its results can be downloaded as NDJSON when it ends.</p></Empty> : null}
      {batches !== undefined && batches.length > 0 ? (
        <div class="card table-wrap">
          <table id="batches-table">
            <thead><tr><th scope="col">Batch</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col" class="num">Credits</th><th scope="col">Created</th><th scope="col">Results</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {batches.map((b) => (
                <tr key={b.id}>
                  <td><code class="small">{b.id}</code><div class="small muted">{b.mode} · {b.format}{b.tags.length > 0 ? ` · ${b.tags.join(", ")}` : ""}</div></td>
                  <td><Pill text={b.status} tone={tone(b.status)} /></td>
                  <td><Progress batch={b} />{b.page_errors.length > 0 ? <div class="small muted">{b.page_errors.map((e) => `${e.code} ×${e.count}`).join(", ")}</div> : null}</td>
                  <td class="num">{b.credits.net}<div class="small muted">{b.credits.reserved} held</div></td>
                  <td>{when(b.timing.created_at)}</td>
                  <td>
                    {b.results === null ? "—" : b.results.files.map((f, i) => (
                      <div key={f.url}><a href={f.url} download>part {i + 1}</a> <span class="small muted">({f.items} records)</span></div>
                    ))}
                  </td>
                  <td>
                    <a class="small" href={`#/deliveries?batch_id=${encodeURIComponent(b.id)}`} aria-label={`Webhook deliveries of ${b.id}`}>Deliveries</a>{" "}
                    {ACTIVE.has(b.status) && b.status !== "cancelling"
                      ? <button type="button" class="danger" onClick={() => act(() => api("POST", `/v1/batch/${b.id}/cancel`))} aria-label={`Cancel ${b.id}`}>Cancel</button>
                      : null}
                    {!ACTIVE.has(b.status)
                      ? <button type="button" class="secondary" onClick={() => confirm("Delete this batch and its results?") && act(() => api("DELETE", `/v1/batch/${b.id}`))} aria-label={`Delete ${b.id}`}>Delete</button>
                      : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  )
}
