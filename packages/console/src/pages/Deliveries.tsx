import { useState } from "preact/hooks"
import { api } from "../api"
import { Empty, ErrorBox, Header, Pill, useLoad, when } from "../ui"

interface Delivery {
  readonly id: string
  /** What it reports on: a monitor (and its run) or a batch. */
  readonly source: { readonly type: "monitor"; readonly monitor_id: string } | { readonly type: "batch"; readonly batch_id: string }
  readonly event_id: string
  readonly event_type: string
  readonly url: string
  readonly status: string
  readonly attempts: number
  readonly last_status: number | null
  readonly last_message: string | null
  readonly created_at: string
}
interface Attempt {
  readonly attempt: number
  readonly started_at: string
  readonly completed_at: string | null
  readonly http_status: number | null
  readonly error: string | null
  readonly trigger: string
  readonly url: string
}

const tone = (status: string) => (status === "delivered" ? "ok" : status === "failed" || status === "cancelled" ? "bad" : "warn")

const Attempts = ({ id, version }: { id: string; version: number }) => {
  const [attempts, error] = useLoad(() => api<{ data: Array<Attempt> }>("GET", `/v1/webhooks/deliveries/${id}/attempts`).then((a) => a.data), [id, version])
  if (error !== undefined) return <ErrorBox error={error} />
  if (attempts === undefined) return <p>Loading…</p>
  return (
    <table class="attempts" id={`attempts-${id}`}>
      <thead><tr><th scope="col">#</th><th scope="col">Trigger</th><th scope="col">Started</th><th scope="col">Response</th><th scope="col">Error</th></tr></thead>
      <tbody>
        {attempts.map((a) => (
          <tr key={a.attempt}>
            <td>{a.attempt}</td>
            <td>{a.trigger}</td>
            <td>{when(a.started_at)}</td>
            <td>{a.http_status ?? "—"}</td>
            <td class="small">{a.error ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** Webhook deliveries: list (of monitors or of batches, or of one of them), attempts, replay. */
export const Deliveries = ({ query }: { query: URLSearchParams }) => {
  const monitorId = query.get("monitor_id") ?? undefined
  const batchId = query.get("batch_id") ?? undefined
  const type = batchId !== undefined || query.get("type") === "batch" ? "batch" : "monitor"
  const [deliveries, error, loading, reload] = useLoad(
    () =>
      api<{ data: Array<Delivery> }>("POST", "/v1/webhooks/deliveries", {
        body: {
          type,
          limit: 100,
          ...(type === "monitor" && monitorId !== undefined ? { monitor_id: monitorId } : {}),
          ...(batchId !== undefined ? { batch_id: batchId } : {})
        }
      }).then((a) => a.data),
    [type, monitorId, batchId]
  )
  const [open, setOpen] = useState<string | null>(null)
  const [version, setVersion] = useState(0)
  const [actionError, setActionError] = useState<unknown>(undefined)
  const [notice, setNotice] = useState<string | null>(null)
  const replay = async (delivery: Delivery) => {
    try {
      const answer = await api<{ attempt: number }>("POST", `/v1/webhooks/deliveries/${delivery.id}/retry`, {
        body: delivery.status === "delivered" ? { force: true } : {},
        headers: { "idempotency-key": crypto.randomUUID() }
      })
      setActionError(undefined)
      setNotice(`Replay queued as attempt ${answer.attempt}`)
      setOpen(delivery.id)
      setTimeout(() => {
        setVersion((v) => v + 1)
        reload()
      }, 1500)
    } catch (e) {
      setActionError(e)
    }
  }
  return (
    <section>
      <Header title="Deliveries">
        <div role="group" aria-label="Whose deliveries" class="segmented">
          <a class={type === "monitor" && monitorId === undefined ? "button" : "button secondary"} href="#/deliveries" aria-current={type === "monitor" && monitorId === undefined ? "page" : undefined}>Monitors</a>
          <a class={type === "batch" && batchId === undefined ? "button" : "button secondary"} href="#/deliveries?type=batch" aria-current={type === "batch" && batchId === undefined ? "page" : undefined}>Batches</a>
        </div>
      </Header>
      {type === "monitor" && monitorId !== undefined ? <p class="muted">Deliveries of monitor <a href={`#/monitors/${monitorId}`}><code>{monitorId}</code></a>.</p> : null}
      {batchId !== undefined ? <p class="muted">Deliveries of batch <a href="#/batches"><code>{batchId}</code></a>.</p> : null}
      {notice !== null ? <p role="status" class="notice">{notice}</p> : null}
      <ErrorBox error={error ?? actionError} />
      {loading && deliveries === undefined ? <p>Loading…</p> : null}
      {deliveries !== undefined && deliveries.length === 0 ? (
        <Empty title="No webhook deliveries yet">
          {type === "batch"
            ? <p>Submit a batch with a webhook URL (under <a href="#/batches">Batches</a>); the event of its end is delivered, signed, and listed here with every attempt. A finished delivery can be replayed for 7 days.</p>
            : <p>Give a monitor a webhook URL (under <a href="#/monitors">Monitors</a>); each change and run it reports is delivered, signed, and listed here with every attempt. A finished delivery can be replayed for 7 days.</p>}
        </Empty>
      ) : null}
      {deliveries !== undefined && deliveries.length > 0 ? (
        <ul class="list" id="deliveries">
          {deliveries.map((d) => (
            <li key={d.id} class="card">
              <div class="delivery">
                <button type="button" class="link" aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? null : d.id)}>
                  {d.event_type} · {when(d.created_at)}
                </button>
                <Pill text={d.status} tone={tone(d.status)} />
                <span class="small muted">{d.attempts} attempt{d.attempts === 1 ? "" : "s"}{d.last_status !== null ? `, last answer ${d.last_status}` : ""}</span>
                <code class="small">{d.url}</code>
                {d.source.type === "batch"
                  ? <a class="small" href={`#/deliveries?batch_id=${encodeURIComponent(d.source.batch_id)}`}>batch <code>{d.source.batch_id}</code></a>
                  : <a class="small" href={`#/deliveries?monitor_id=${encodeURIComponent(d.source.monitor_id)}`}>monitor <code>{d.source.monitor_id}</code></a>}
                <button type="button" class="secondary" onClick={() => replay(d)} aria-label={`Replay delivery ${d.id}`}>Replay</button>
              </div>
              {open === d.id ? <Attempts id={d.id} version={version} /> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  )
}
