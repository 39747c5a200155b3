import { api, ApiError } from "../api"
import { Empty, ErrorBox, Header, Pill, useLoad, when } from "../ui"

interface Batch {
  readonly id: string
  readonly status: string
  readonly created_at?: string
  readonly [key: string]: unknown
}

/** Batches: the list when the batch API is served; until then, what they will be. */
export const Batches = () => {
  const [batches, error] = useLoad(() => api<{ data: Array<Batch> }>("GET", "/v1/batch/list").then((a) => a.data), [])
  const missing = error instanceof ApiError && error.status === 404
  return (
    <section>
      <Header title="Batches" />
      {missing ? (
        <Empty title="Batches are not served by this version yet">
          <p>Batch scrapes and crawls (many URLs in one request, results to download) will be listed here with their progress once this server serves <code>/v1/batch</code>.</p>
        </Empty>
      ) : <ErrorBox error={error} />}
      {batches !== undefined && batches.length === 0 ? <Empty title="No batches yet"><p>Submit one with <code>POST /v1/batch</code>; its progress shows here.</p></Empty> : null}
      {batches !== undefined && batches.length > 0 ? (
        <div class="card table-wrap">
          <table>
            <thead><tr><th scope="col">Batch</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
            <tbody>{batches.map((b) => <tr key={b.id}><td><code>{b.id}</code></td><td><Pill text={b.status} /></td><td>{when(b.created_at)}</td></tr>)}</tbody>
          </table>
        </div>
      ) : null}
    </section>
  )
}
