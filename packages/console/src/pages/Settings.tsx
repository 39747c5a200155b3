import { useState } from "preact/hooks"
import { api, type SessionView } from "../api"
import { ErrorBox, Field, Header, Pill, useLoad, when } from "../ui"

interface Member {
  readonly id: string
  readonly email: string
  readonly role: string
  readonly verified: boolean
  readonly created_at: string
}

/** Settings: the organization's plan, credits, ZDR, and its members. */
export const Settings = ({ session, onChanged }: { session: SessionView; onChanged: () => void }) => {
  const [members, error, , reload] = useLoad(() => api<{ members: Array<Member> }>("GET", "/v1/console/members").then((a) => a.members), [])
  const [formError, setFormError] = useState<unknown>(undefined)
  const [notice, setNotice] = useState<string | null>(null)
  const org = session.org
  const owner = session.user.role === "owner"
  const invite = async (event: Event) => {
    event.preventDefault()
    const formEl = event.target as HTMLFormElement
    const form = new FormData(formEl)
    try {
      const answer = await api<{ member: Member }>("POST", "/v1/console/members", { body: { email: form.get("email"), role: form.get("role") } })
      setNotice(`${answer.member.email} was emailed a link to choose a password.`)
      setFormError(undefined)
      formEl.reset()
      reload()
      onChanged()
    } catch (e) {
      setFormError(e)
    }
  }
  return (
    <section>
      <Header title="Settings" />
      <div class="card">
        <h2>Organization</h2>
        <dl class="facts" id="org-facts">
          <dt>Name</dt><dd>{org.name}</dd>
          <dt>Id</dt><dd><code>{org.id}</code></dd>
          <dt>Plan</dt><dd>{org.plan}</dd>
          <dt>Credits</dt><dd>{org.credits_remaining.toLocaleString()} left of {org.credits_per_cycle.toLocaleString()} per cycle</dd>
          <dt>Cycle</dt><dd>{when(org.cycle_start)} to {org.cycle_end === null ? "no end" : when(org.cycle_end)}</dd>
          <dt>Rate limit</dt><dd>{org.requests_per_minute} requests per minute per key</dd>
          <dt>Zero data retention</dt><dd>{org.zdr ? <Pill text="allowed" tone="ok" /> : <Pill text="not enabled" />}</dd>
        </dl>
        <p class="small muted">The operator changes plans, credits and ZDR with <code>npx sift orgs update {org.id} --plan … --zdr on</code>.</p>
      </div>
      <div class="card">
        <h2>Members</h2>
        <ErrorBox error={error} />
        {members !== undefined ? (
          <div class="table-wrap">
            <table id="members-table">
              <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Password set</th><th scope="col">Added</th></tr></thead>
              <tbody>
                {members.map((m) => (
                  <tr key={m.id}>
                    <td>{m.email}{m.id === session.user.id ? " (you)" : ""}</td>
                    <td>{m.role}</td>
                    <td>{m.verified ? "yes" : "invited"}</td>
                    <td>{when(m.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        {owner ? (
          <form onSubmit={invite} id="invite-form" class="row end">
            <Field label="Add a person (email)"><input name="email" type="email" required /></Field>
            <Field label="Role">
              <select name="role">
                <option value="member" selected>member: uses the console</option>
                <option value="owner">owner: also keys and members</option>
              </select>
            </Field>
            <button type="submit">Send invitation</button>
          </form>
        ) : null}
        {notice !== null ? <p role="status" class="notice">{notice}</p> : null}
        <ErrorBox error={formError} />
      </div>
    </section>
  )
}
