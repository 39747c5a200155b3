import { useEffect, useState } from "preact/hooks"
import { api, call } from "../api"
import { Empty, ErrorBox, Field, Header, Pill, statusTone, useLoad, when } from "../ui"

interface Entry {
  readonly request_id: string
  readonly timestamp: string
  readonly method: string
  readonly path: string
  readonly status_code: number
  readonly error_code: string | null
  readonly latency_ms: number
  readonly credits_used: number
  readonly key_id: string
  readonly tags: ReadonlyArray<string>
  readonly zdr: boolean
}
interface Detail extends Entry {
  readonly user_agent: string | null
  readonly input: unknown
  readonly response: unknown
}

/** Every filter of `GET /v1/logs`. */
const FILTERS = ["from", "to", "path", "key_id", "status_code", "error_code", "errors_only", "tags", "search", "limit"] as const

const toLocalInput = (iso: string | null) => (iso === null || iso === "" ? "" : new Date(iso).toISOString().slice(0, 16))

const Row = ({ entry }: { entry: Entry }) => (
  <tr>
    <td class="nowrap">{when(entry.timestamp)}</td>
    <td><code>{entry.method} {entry.path}</code></td>
    <td><Pill text={String(entry.status_code)} tone={statusTone(entry.status_code)} /> {entry.error_code !== null ? <code class="small">{entry.error_code}</code> : null}</td>
    <td class="num">{entry.latency_ms} ms</td>
    <td class="num">{entry.credits_used}</td>
    <td class="small"><code>{entry.key_id}</code></td>
    <td><a href={`#/logs/${entry.request_id}`} aria-label={`Details of ${entry.request_id}`}>Details</a></td>
  </tr>
)

const Table = ({ entries, id }: { entries: ReadonlyArray<Entry>; id: string }) => (
  <div class="card table-wrap">
    <table id={id}>
      <thead>
        <tr>
          <th scope="col">Time</th><th scope="col">Request</th><th scope="col">Status</th><th scope="col" class="num">Latency</th>
          <th scope="col" class="num">Credits</th><th scope="col">Key</th><th scope="col"><span class="sr-only">Details</span></th>
        </tr>
      </thead>
      <tbody>{entries.map((entry) => <Row key={entry.request_id} entry={entry} />)}</tbody>
    </table>
  </div>
)

const LogDetail = ({ id }: { id: string }) => {
  const [entry, error] = useLoad(() => api<{ data: Detail }>("GET", `/v1/logs/${encodeURIComponent(id)}`).then((a) => a.data), [id])
  return (
    <section>
      <Header title="Request"><a href="#/logs" class="button secondary">Back to logs</a></Header>
      <ErrorBox error={error} />
      {entry !== undefined ? (
        <>
          <div class="card">
            <dl class="facts" id="log-detail">
              <dt>Request id</dt><dd><code>{entry.request_id}</code></dd>
              <dt>When</dt><dd>{when(entry.timestamp)}</dd>
              <dt>Request</dt><dd><code>{entry.method} {entry.path}</code></dd>
              <dt>Status</dt><dd><Pill text={String(entry.status_code)} tone={statusTone(entry.status_code)} /> {entry.error_code ?? ""}</dd>
              <dt>Latency</dt><dd>{entry.latency_ms} ms</dd>
              <dt>Credits</dt><dd>{entry.credits_used}</dd>
              <dt>Key</dt><dd><code>{entry.key_id}</code></dd>
              <dt>User agent</dt><dd>{entry.user_agent ?? "—"}</dd>
              <dt>Tags</dt><dd>{entry.tags.length === 0 ? "—" : entry.tags.join(", ")}</dd>
              <dt>Zero data retention</dt><dd>{entry.zdr ? "yes: no request or response kept" : "no"}</dd>
            </dl>
          </div>
          <div class="split">
            <div class="card"><h2>Request (redacted)</h2><pre class="json" tabIndex={0} aria-label="The request, redacted">{JSON.stringify(entry.input, null, 2)}</pre></div>
            <div class="card"><h2>Response (redacted)</h2><pre class="json" tabIndex={0} aria-label="The response, redacted">{JSON.stringify(entry.response, null, 2)}</pre></div>
          </div>
        </>
      ) : null}
    </section>
  )
}

/** Logs: every filter of `GET /v1/logs`, stable pages, a detail view and a live tail. */
export const Logs = ({ id, query }: { id: string | undefined; query: URLSearchParams }) =>
  id !== undefined ? <LogDetail id={id} /> : <LogList query={query} />

const LogList = ({ query }: { query: URLSearchParams }) => {
  const filters: Record<string, string> = {}
  for (const name of FILTERS) {
    const value = query.get(name)
    if (value !== null && value !== "") filters[name] = value
  }
  const [page, setPage] = useState(1)
  const [snapshot, setSnapshot] = useState<string | null>(null)
  const key = JSON.stringify(filters)
  useEffect(() => {
    setPage(1)
    setSnapshot(null)
  }, [key])
  const [listed, error, loading] = useLoad(async () => {
    const answer = await call<{ data: Array<Entry>; has_more: boolean }>("GET", "/v1/logs", {
      query: { ...filters, page, ...(page > 1 && snapshot !== null ? { snapshot } : {}) }
    })
    if (page === 1) setSnapshot(answer.headers.get("x-service-logs-snapshot"))
    return answer.body
  }, [key, page])
  // The live tail: the moment it was asked for (its `since`, fixed at the click so that a request made once the page
  // says it is waiting is never older than it), and whether its stream is open yet.
  const [tailSince, setTailSince] = useState<string | null>(null)
  const [tailState, setTailState] = useState<"connecting" | "open" | "stopped">("connecting")
  const [tailed, setTailed] = useState<Array<Entry>>([])
  const live = tailSince !== null
  useEffect(() => {
    if (tailSince === null) return
    setTailed([])
    setTailState("connecting")
    // A reconnect (EventSource's own) resumes after the last snapshot it was sent (`Last-Event-ID`).
    const source = new EventSource(`/v1/console/logs/tail?since=${encodeURIComponent(tailSince)}`)
    source.addEventListener("open", () => setTailState("open"))
    // Closed for good when the answer was not a stream (a signed-out session); else it is reconnecting.
    source.addEventListener("error", () => setTailState(source.readyState === EventSource.CLOSED ? "stopped" : "connecting"))
    source.addEventListener("entry", (event) => {
      const entry = JSON.parse((event as MessageEvent).data) as Entry
      setTailed((before) => before.some((e) => e.request_id === entry.request_id) ? before : [entry, ...before].slice(0, 200))
    })
    return () => source.close()
  }, [tailSince])

  const apply = (event: Event) => {
    event.preventDefault()
    const form = new FormData(event.target as HTMLFormElement)
    const params = new URLSearchParams()
    for (const name of FILTERS) {
      let value = String(form.get(name) ?? "")
      if ((name === "from" || name === "to") && value !== "") value = new Date(`${value}Z`).toISOString()
      if (name === "errors_only") value = form.get(name) === null ? "" : "true"
      if (value !== "") params.set(name, value)
    }
    location.hash = `#/logs?${params.toString()}`
  }
  const hasFilters = Object.keys(filters).length > 0
  return (
    <section>
      <Header title="Logs">
        <label class="check">
          <input
            type="checkbox"
            checked={live}
            onChange={(e) => setTailSince((e.target as HTMLInputElement).checked ? new Date().toISOString() : null)}
            id="live-tail"
          />
          Live tail
        </label>
      </Header>
      <form class="card filters" onSubmit={apply} id="log-filters">
        <Field label="From (UTC)"><input type="datetime-local" name="from" defaultValue={toLocalInput(filters.from ?? null)} /></Field>
        <Field label="To (UTC)"><input type="datetime-local" name="to" defaultValue={toLocalInput(filters.to ?? null)} /></Field>
        <Field label="Path"><input name="path" placeholder="/web/scrape" defaultValue={filters.path ?? ""} /></Field>
        <Field label="Key id"><input name="key_id" defaultValue={filters.key_id ?? ""} /></Field>
        <Field label="Status"><input name="status_code" inputMode="numeric" pattern="[1-5][0-9][0-9]" defaultValue={filters.status_code ?? ""} /></Field>
        <Field label="Error code"><input name="error_code" placeholder="RATE_LIMITED" defaultValue={filters.error_code ?? ""} /></Field>
        <Field label="Tags"><input name="tags" placeholder="a,b" defaultValue={filters.tags ?? ""} /></Field>
        <Field label="Search"><input name="search" type="search" defaultValue={filters.search ?? ""} /></Field>
        <Field label="Per page">
          <select name="limit">
            {["10", "25", "50", "100"].map((n) => <option key={n} value={n} selected={(filters.limit ?? "25") === n}>{n}</option>)}
          </select>
        </Field>
        <label class="check"><input type="checkbox" name="errors_only" defaultChecked={filters.errors_only === "true"} /> Errors only</label>
        <div class="actions">
          <button type="submit">Filter</button>
          {hasFilters ? <a class="button secondary" href="#/logs">Clear</a> : null}
        </div>
      </form>
      {live ? (
        <div>
          <h2>Live <span class="small muted" aria-live="polite">({tailed.length} new)</span></h2>
          <p class={tailState === "stopped" ? "error" : "muted"} id="tail-status" role="status">
            {tailState === "stopped"
              ? "The live tail stopped: sign in again, then turn it off and on."
              : tailState === "connecting"
              ? "Connecting to the live tail…"
              : tailed.length === 0
              ? "Waiting for requests… each one appears here as it is logged."
              : "Each new request appears at the top as it is logged."}
          </p>
          {tailed.length > 0 ? <Table entries={tailed} id="tail-table" /> : null}
        </div>
      ) : null}
      <ErrorBox error={error} />
      {loading && listed === undefined ? <p>Loading…</p> : null}
      {listed !== undefined && listed.data.length === 0 ? (
        <Empty title={hasFilters ? "No entries match these filters" : "No requests in the last 24 hours"}>
          <p>{hasFilters ? "Widen the time range or clear a filter." : "Call the API with one of your keys; every request, failed ones included, is listed here."}</p>
        </Empty>
      ) : null}
      {listed !== undefined && listed.data.length > 0 ? (
        <>
          <Table entries={listed.data} id="logs-table" />
          <div class="pager">
            <button type="button" class="secondary" disabled={page === 1} onClick={() => setPage(page - 1)}>Newer</button>
            <span class="small muted">Page {page}</span>
            <button type="button" class="secondary" disabled={!listed.has_more} onClick={() => setPage(page + 1)}>Older</button>
          </div>
        </>
      ) : null}
    </section>
  )
}
