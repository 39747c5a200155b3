import { useState } from "preact/hooks"
import { api, type SessionView } from "../api"
import { CopyButton, Empty, ErrorBox, Field, Header, Pill, Snippet, useLoad, when } from "../ui"

interface Key {
  readonly id: string
  readonly name: string
  readonly prefix: string
  readonly permissions: ReadonlyArray<string> | null
  readonly expires_at: string | null
  readonly revoked_at: string | null
  readonly last_used_at: string | null
  readonly created_at: string
}

const statusOf = (key: Key) =>
  key.revoked_at !== null ? <Pill text="revoked" tone="bad" /> : key.expires_at !== null && new Date(key.expires_at).getTime() < Date.now()
    ? <Pill text="expired" tone="warn" />
    : <Pill text="active" tone="ok" />

/** API keys: create (secret shown once), list with last use, revoke. */
export const Keys = ({ session }: { session: SessionView }) => {
  const [keys, error, loading, reload] = useLoad(() => api<{ keys: Array<Key> }>("GET", "/v1/console/keys").then((a) => a.keys), [])
  const [created, setCreated] = useState<{ key: Key; secret: string } | null>(null)
  const [formError, setFormError] = useState<unknown>(undefined)
  const [actionError, setActionError] = useState<unknown>(undefined)
  const owner = session.user.role === "owner"

  const create = async (event: Event) => {
    event.preventDefault()
    const formEl = event.target as HTMLFormElement
    const form = new FormData(formEl)
    const chosen = form.getAll("permissions").map(String)
    const expires = String(form.get("expires") ?? "")
    try {
      const answer = await api<{ key: Key; secret: string }>("POST", "/v1/console/keys", {
        body: {
          name: String(form.get("name") ?? ""),
          ...(chosen.length === session.permissions.length ? {} : { permissions: chosen }),
          ...(expires === "" ? {} : { expires_at: new Date(`${expires}T23:59:59`).toISOString() })
        }
      })
      setCreated(answer)
      setFormError(undefined)
      formEl.reset()
      reload()
    } catch (e) {
      setFormError(e)
    }
  }
  const revoke = async (key: Key) => {
    if (!confirm(`Revoke ${key.name}? Requests with it fail at once.`)) return
    try {
      await api("DELETE", `/v1/console/keys/${encodeURIComponent(key.id)}`)
      setActionError(undefined)
      reload()
    } catch (e) {
      setActionError(e)
    }
  }
  return (
    <section>
      <Header title="API keys" />
      {created !== null ? (
        <div class="card secret" id="new-secret" role="status">
          <h2>Key “{created.key.name}” created</h2>
          <p>Copy the secret now: it is shown only once and Sift keeps only its hash.</p>
          <div class="secret-row">
            <code id="secret-value">{created.secret}</code>
            <CopyButton text={created.secret} label="Copy secret" />
          </div>
          <Snippet label="curl" text={`curl -H "Authorization: Bearer ${created.secret}" "${location.origin}/v1/web/scrape/markdown?url=https://example.com"`} />
          <button type="button" class="secondary" onClick={() => setCreated(null)}>Done</button>
        </div>
      ) : null}
      {owner ? (
        <form class="card" onSubmit={create} id="create-key">
          <h2>New key</h2>
          <div class="row">
            <Field label="Name" hint="What uses it, e.g. “billing job”">
              <input name="name" required maxLength={100} />
            </Field>
            <Field label="Expires" hint="Optional; the key stops working after that day">
              <input name="expires" type="date" min={new Date().toISOString().slice(0, 10)} />
            </Field>
          </div>
          <fieldset>
            <legend>Permissions (all by default)</legend>
            <div class="checks">
              {session.permissions.map((p) => (
                <label key={p} class="check">
                  <input type="checkbox" name="permissions" value={p} defaultChecked />
                  <code>{p}</code>
                </label>
              ))}
            </div>
          </fieldset>
          <ErrorBox error={formError} />
          <button type="submit">Create key</button>
        </form>
      ) : <p class="muted">Only owners create and revoke keys.</p>}
      <ErrorBox error={error ?? actionError} />
      {loading && keys === undefined ? <p>Loading…</p> : null}
      {keys !== undefined && keys.length === 0 ? (
        <Empty title="No keys yet">
          <p>Create one above: give it a name, keep every permission unless it only needs some, and copy the secret when it appears.</p>
        </Empty>
      ) : null}
      {keys !== undefined && keys.length > 0 ? (
        <div class="card table-wrap">
          <table id="keys-table">
            <thead>
              <tr>
                <th scope="col">Name</th><th scope="col">Key</th><th scope="col">Permissions</th><th scope="col">Last used</th>
                <th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}<div class="small muted"><code>{key.id}</code></div></td>
                  <td><code>{key.prefix}…</code></td>
                  <td class="small">{key.permissions === null ? "all" : key.permissions.join(", ")}</td>
                  <td>{key.last_used_at === null ? "never" : when(key.last_used_at)}</td>
                  <td>{key.expires_at === null ? "never" : when(key.expires_at)}</td>
                  <td>{statusOf(key)}</td>
                  <td>
                    {owner && key.revoked_at === null
                      ? <button type="button" class="danger" onClick={() => revoke(key)} aria-label={`Revoke ${key.name}`}>Revoke</button>
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
