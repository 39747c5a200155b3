import { useState } from "preact/hooks"
import { api } from "../api"
import { CopyButton, Empty, ErrorBox, Field, Header, Pill, useLoad, when } from "../ui"

interface Monitor {
  readonly id: string
  readonly name: string
  readonly status: "active" | "paused" | "failed"
  readonly target: { readonly type: string; readonly url: string; readonly instructions?: string }
  readonly schedule: { readonly type: string; readonly frequency: number; readonly unit: string }
  readonly webhook: { readonly url: string; readonly events: ReadonlyArray<string>; readonly secret?: string } | null
  readonly last_run_at: string | null
  readonly last_change_at: string | null
  readonly next_run_at: string | null
  readonly last_error: { readonly message?: string; readonly error_code?: string } | null
  readonly tags: ReadonlyArray<string>
  /** What the next run is compared against (`GET /v1/monitors/{id}` only); its shape follows the target's type. */
  readonly baseline?: unknown
}
interface Run {
  readonly id: string
  readonly run_type: string
  readonly trigger?: string
  readonly status: string
  readonly change_detected: boolean | null
  readonly change_id: string | null
  readonly credits_charged: number
  readonly queued_at: string | null
  readonly completed_at: string | null
  readonly error: { readonly message?: string } | null
  readonly skip_reason: string | null
}
interface Change {
  readonly id: string
  readonly detected_at: string
  readonly summary?: string
  readonly diff?: string
  readonly before_text_excerpt?: string
  readonly after_text_excerpt?: string
  readonly added_urls?: ReadonlyArray<string>
  readonly removed_urls?: ReadonlyArray<string>
  readonly [key: string]: unknown
}
interface Page<T> {
  readonly data: ReadonlyArray<T>
  readonly has_more: boolean
  readonly next_cursor: string | null
}

const tone = (status: string) => (status === "active" || status === "completed" ? "ok" : status === "paused" || status === "skipped" || status === "queued" || status === "running" ? "warn" : "bad")

/** A monitor's baseline: a page's text, a sitemap's URLs, or the data extracted (as JSON). */
const Baseline = ({ baseline }: { baseline: unknown }) => {
  if (baseline === null || baseline === undefined) return <p class="muted">None yet: the first run records it.</p>
  const value = baseline as { readonly text?: unknown; readonly urls?: unknown; readonly url_count?: unknown; readonly data?: unknown }
  if (typeof value.text === "string") return <pre class="output" tabIndex={0} aria-label="The baseline text">{value.text}</pre>
  if (Array.isArray(value.urls)) {
    return (
      <>
        <p class="small muted">{String(value.url_count ?? value.urls.length)} URLs</p>
        <pre class="output" tabIndex={0} aria-label="The baseline URLs">{value.urls.join("\n")}</pre>
      </>
    )
  }
  return <pre class="json" tabIndex={0} aria-label="The baseline data">{JSON.stringify(value.data ?? value, null, 2)}</pre>
}

/** A unified diff as lines coloured by what happened to them. */
export const Diff = ({ diff }: { diff: string }) => (
  <pre class="diff" tabIndex={0} aria-label="Changes, lines starting with + were added and - removed">
    {diff.split("\n").map((line, i) => {
      const kind = line.startsWith("+++") || line.startsWith("---") ? "meta" : line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "same"
      return <span key={i} class={`line ${kind}`}>{line}{"\n"}</span>
    })}
  </pre>
)

/** The form of a monitor, new or edited. */
const MonitorForm = ({ monitor, onSaved }: { monitor?: Monitor; onSaved: (m: Monitor) => void }) => {
  const [error, setError] = useState<unknown>(undefined)
  const submit = async (event: Event) => {
    event.preventDefault()
    const form = new FormData(event.target as HTMLFormElement)
    const webhookUrl = String(form.get("webhook") ?? "").trim()
    const instructions = String(form.get("instructions") ?? "").trim()
    const type = String(form.get("type"))
    const body = {
      name: String(form.get("name")),
      target: { type, url: String(form.get("url")), ...(instructions === "" ? {} : { instructions }) },
      schedule: { type: "interval", frequency: Number(form.get("frequency")), unit: String(form.get("unit")) },
      webhook: webhookUrl === "" ? (monitor === undefined ? undefined : null) : { url: webhookUrl, events: ["change.detected", "run.completed"] }
    }
    try {
      const saved = monitor === undefined
        ? await api<Monitor>("POST", "/v1/monitors", { body })
        : await api<Monitor>("PATCH", `/v1/monitors/${monitor.id}`, { body })
      setError(undefined)
      onSaved(saved)
    } catch (e) {
      setError(e)
    }
  }
  return (
    <form class="card" onSubmit={submit} id="monitor-form">
      <h2>{monitor === undefined ? "New monitor" : "Edit monitor"}</h2>
      <div class="row">
        <Field label="Name"><input name="name" required maxLength={200} defaultValue={monitor?.name ?? ""} /></Field>
        <Field label="What to watch">
          <select name="type">
            {[["page", "A page's text"], ["sitemap", "A sitemap's URLs"], ["extract", "Data from a few pages"]].map(([value, label]) => (
              <option key={value} value={value} selected={(monitor?.target.type ?? "page") === value}>{label}</option>
            ))}
          </select>
        </Field>
      </div>
      <Field label="URL" hint="The page or sitemap, http:// or https://">
        <input name="url" type="url" required defaultValue={monitor?.target.url ?? ""} placeholder="https://example.com/pricing" />
      </Field>
      <Field label="Instructions" hint="Optional for pages (what matters, e.g. “price changes”); required for data">
        <input name="instructions" defaultValue={monitor?.target.instructions ?? ""} />
      </Field>
      <div class="row">
        <Field label="Every"><input name="frequency" type="number" min={1} required defaultValue={String(monitor?.schedule.frequency ?? 1)} /></Field>
        <Field label="Unit">
          <select name="unit">
            {[["minutes", "minutes (10 at least)"], ["hours", "hours"], ["days", "days"]].map(([value, label]) => (
              <option key={value} value={value} selected={(monitor?.schedule.unit ?? "days") === value}>{label}</option>
            ))}
          </select>
        </Field>
      </div>
      <Field label="Webhook URL" hint="Optional: Sift POSTs signed change.detected and run.completed events here">
        <input name="webhook" type="url" defaultValue={monitor?.webhook?.url ?? ""} placeholder="https://hooks.example.com/sift" />
      </Field>
      <ErrorBox error={error} />
      <button type="submit">{monitor === undefined ? "Create monitor" : "Save"}</button>
    </form>
  )
}

const ChangeView = ({ id }: { id: string }) => {
  const [change, error] = useLoad(() => api<Change>("GET", `/v1/monitors/changes/${id}`), [id])
  if (error !== undefined) return <ErrorBox error={error} />
  if (change === undefined) return <p>Loading…</p>
  return (
    <div class="change" id={`change-${id}`}>
      {typeof change.summary === "string" ? <p>{change.summary}</p> : null}
      {typeof change.diff === "string" ? <Diff diff={change.diff} /> : null}
      {change.added_urls !== undefined && change.added_urls.length > 0 ? <><h4>Added URLs</h4><ul>{change.added_urls.map((u) => <li key={u}><code>{u}</code></li>)}</ul></> : null}
      {change.removed_urls !== undefined && change.removed_urls.length > 0 ? <><h4>Removed URLs</h4><ul>{change.removed_urls.map((u) => <li key={u}><code>{u}</code></li>)}</ul></> : null}
      {change.diff === undefined && change.added_urls === undefined ? <pre class="json" tabIndex={0} aria-label="The change">{JSON.stringify(change, null, 2)}</pre> : null}
    </div>
  )
}

const MonitorDetail = ({ id }: { id: string }) => {
  const [monitor, error, , reload] = useLoad(() => api<Monitor>("GET", `/v1/monitors/${id}`), [id])
  const [runs, runsError, , reloadRuns] = useLoad(() => api<Page<Run>>("GET", `/v1/monitors/${id}/runs`, { query: { limit: 20 } }), [id])
  const [changes, changesError, , reloadChanges] = useLoad(() => api<Page<Change>>("GET", `/v1/monitors/${id}/changes`, { query: { limit: 20 } }), [id])
  const [open, setOpen] = useState<string | null>(null)
  const [editing, setEditing] = useState(false)
  const [secret, setSecret] = useState<string | null>(null)
  const [actionError, setActionError] = useState<unknown>(undefined)
  const [notice, setNotice] = useState<string | null>(null)
  const act = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work()
      setActionError(undefined)
      setNotice(done)
      reload()
      reloadRuns()
      reloadChanges()
    } catch (e) {
      setActionError(e)
    }
  }
  if (error !== undefined) return <section><Header title="Monitor"><a class="button secondary" href="#/monitors">All monitors</a></Header><ErrorBox error={error} /></section>
  if (monitor === undefined) return <p>Loading…</p>
  return (
    <section>
      <Header title={monitor.name}>
        <a class="button secondary" href="#/monitors">All monitors</a>
        <button type="button" onClick={() => act(() => api("POST", `/v1/monitors/${id}/run`), "Run queued")}>Run now</button>
        {monitor.status === "paused"
          ? <button type="button" class="secondary" onClick={() => act(() => api("PATCH", `/v1/monitors/${id}`, { body: { status: "active" } }), "Resumed")}>Resume</button>
          : <button type="button" class="secondary" onClick={() => act(() => api("PATCH", `/v1/monitors/${id}`, { body: { status: "paused" } }), "Paused")}>Pause</button>}
        <button type="button" class="secondary" onClick={() => setEditing(!editing)} aria-expanded={editing}>Edit</button>
        {monitor.webhook !== null
          ? <button type="button" class="secondary" onClick={() => act(async () => setSecret((await api<Monitor>("POST", `/v1/monitors/${id}/webhook/rotate-secret`)).webhook?.secret ?? null), "Secret rotated")}>Rotate secret</button>
          : null}
        <button type="button" class="danger" onClick={() => confirm(`Delete ${monitor.name}?`) && act(async () => {
          await api("DELETE", `/v1/monitors/${id}`)
          location.hash = "#/monitors"
        }, "Deleted")}>Delete</button>
      </Header>
      {notice !== null ? <p role="status" class="notice">{notice}</p> : null}
      <ErrorBox error={actionError} />
      {secret !== null ? (
        <div class="card secret" role="status">
          <p>The new webhook secret signs every later delivery. Copy it into your receiver now:</p>
          <div class="secret-row"><code>{secret}</code><CopyButton text={secret} label="Copy secret" /></div>
        </div>
      ) : null}
      {editing ? <MonitorForm monitor={monitor} onSaved={() => {
        setEditing(false)
        reload()
      }} /> : null}
      <div class="card">
        <dl class="facts" id="monitor-facts">
          <dt>Status</dt><dd><Pill text={monitor.status} tone={tone(monitor.status)} />{monitor.last_error?.message !== undefined ? <span class="small"> {monitor.last_error.message}</span> : null}</dd>
          <dt>Watches</dt><dd>{monitor.target.type} <a href={monitor.target.url} rel="noreferrer" target="_blank">{monitor.target.url}</a></dd>
          <dt>Schedule</dt><dd>every {monitor.schedule.frequency} {monitor.schedule.unit}</dd>
          <dt>Next run</dt><dd>{when(monitor.next_run_at)}</dd>
          <dt>Last run</dt><dd>{when(monitor.last_run_at)}</dd>
          <dt>Last change</dt><dd>{when(monitor.last_change_at)}</dd>
          <dt>Webhook</dt><dd>{monitor.webhook === null ? "none" : <><code>{monitor.webhook.url}</code> · <a href={`#/deliveries?monitor_id=${id}`}>deliveries</a></>}</dd>
        </dl>
      </div>
      <details class="card" id="monitor-baseline">
        <summary><h2 class="inline">Baseline</h2> <span class="small muted">what the next run is compared against; reset when the target changes</span></summary>
        <Baseline baseline={monitor.baseline} />
      </details>
      <h2>Changes</h2>
      <ErrorBox error={changesError} />
      {changes !== undefined && changes.data.length === 0 ? <p class="muted">No change yet. The first run records the baseline; later runs compare against it. Use “Run now” after the page changes.</p> : null}
      {changes !== undefined && changes.data.length > 0 ? (
        <ul class="list" id="changes">
          {changes.data.map((change) => (
            <li key={change.id} class="card">
              <button type="button" class="link" aria-expanded={open === change.id} onClick={() => setOpen(open === change.id ? null : change.id)}>
                Change detected {when(change.detected_at)}
              </button>
              {typeof change.summary === "string" ? <span class="small muted"> {change.summary}</span> : null}
              {open === change.id ? <ChangeView id={change.id} /> : null}
            </li>
          ))}
        </ul>
      ) : null}
      <h2>Runs</h2>
      <ErrorBox error={runsError} />
      {runs !== undefined ? (
        <div class="card table-wrap">
          <table id="runs-table">
            <thead><tr><th scope="col">Queued</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Change</th><th scope="col" class="num">Credits</th><th scope="col">Completed</th></tr></thead>
            <tbody>
              {runs.data.map((run) => (
                <tr key={run.id}>
                  <td>{when(run.queued_at)}</td>
                  <td>{run.run_type}{run.trigger === "manual" ? " (manual)" : ""}</td>
                  <td><Pill text={run.status} tone={tone(run.status)} /> {run.error?.message ?? run.skip_reason ?? ""}</td>
                  <td>{run.change_id !== null ? <button type="button" class="link" onClick={() => setOpen(run.change_id)}>yes</button> : run.status === "completed" ? "no" : "—"}</td>
                  <td class="num">{run.credits_charged}</td>
                  <td>{when(run.completed_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  )
}

const MonitorList = () => {
  const [monitors, error, loading, reload] = useLoad(() => api<Page<Monitor>>("GET", "/v1/monitors", { query: { limit: 100 } }), [])
  const [creating, setCreating] = useState(false)
  const none = monitors !== undefined && monitors.data.length === 0
  return (
    <section>
      <Header title="Monitors">
        {!none ? <button type="button" onClick={() => setCreating(!creating)} aria-expanded={creating}>New monitor</button> : null}
      </Header>
      <ErrorBox error={error} />
      {loading && monitors === undefined ? <p>Loading…</p> : null}
      {none ? (
        <Empty title="No monitors yet">
          <p>A monitor reads a page (or a sitemap) on a schedule, tells you what changed as a diff, and can POST a signed webhook. Start with one page:</p>
        </Empty>
      ) : null}
      {creating || none ? <MonitorForm onSaved={(m) => {
        setCreating(false)
        reload()
        location.hash = `#/monitors/${m.id}`
      }} /> : null}
      {monitors !== undefined && monitors.data.length > 0 ? (
        <div class="card table-wrap">
          <table id="monitors-table">
            <thead><tr><th scope="col">Name</th><th scope="col">Watches</th><th scope="col">Status</th><th scope="col">Schedule</th><th scope="col">Last change</th><th scope="col">Next run</th></tr></thead>
            <tbody>
              {monitors.data.map((m) => (
                <tr key={m.id}>
                  <td><a href={`#/monitors/${m.id}`}>{m.name}</a></td>
                  <td class="small">{m.target.type} <code>{m.target.url}</code></td>
                  <td><Pill text={m.status} tone={tone(m.status)} /></td>
                  <td>every {m.schedule.frequency} {m.schedule.unit}</td>
                  <td>{when(m.last_change_at)}</td>
                  <td>{when(m.next_run_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  )
}

/** Monitors: list, create and edit, detail with runs and changes (as a diff), pause/resume, run now, rotate secret. */
export const Monitors = ({ id }: { id: string | undefined }) => (id === undefined ? <MonitorList /> : <MonitorDetail id={id} />)
