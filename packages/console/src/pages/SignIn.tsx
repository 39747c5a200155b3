import { useState } from "preact/hooks"
import { api, type SessionView } from "../api"
import { ErrorBox, Field } from "../ui"

/** The sign-in page. */
export const SignIn = ({ onSignedIn }: { onSignedIn: (view: SessionView) => void }) => {
  const [error, setError] = useState<unknown>(undefined)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    const form = new FormData(event.target as HTMLFormElement)
    setBusy(true)
    try {
      onSignedIn(await api<SessionView>("POST", "/v1/console/session", { body: { email: form.get("email"), password: form.get("password") } }))
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="center">
      <form class="card narrow" onSubmit={submit} id="sign-in" aria-labelledby="page-title">
        <h1 id="page-title">Sign in to Sift</h1>
        <Field label="Email">
          <input name="email" type="email" autoComplete="username" required autoFocus />
        </Field>
        <Field label="Password">
          <input name="password" type="password" autoComplete="current-password" required />
        </Field>
        <ErrorBox error={error} />
        <button type="submit" disabled={busy}>{busy ? "Signing in…" : "Sign in"}</button>
        <p class="small muted">
          No account yet? The operator makes the first one with <code>npx sift users create you@example.com --org ORG</code>;
          owners add people under Settings.
        </p>
      </form>
    </main>
  )
}

/** Choosing a password with an invitation link (`#/set-password?token=…`). */
export const SetPassword = ({ token }: { token: string }) => {
  const [error, setError] = useState<unknown>(undefined)
  const [done, setDone] = useState<string | null>(null)
  const submit = async (event: Event) => {
    event.preventDefault()
    const form = new FormData(event.target as HTMLFormElement)
    if (form.get("password") !== form.get("again")) return setError(new Error("The two passwords differ"))
    try {
      const answer = await api<{ email: string }>("POST", "/v1/console/password", { body: { token, password: form.get("password") } })
      setDone(answer.email)
    } catch (e) {
      setError(e)
    }
  }
  if (done !== null) {
    return (
      <main class="center">
        <div class="card narrow">
          <h1 id="page-title">Password set</h1>
          <p>You can now sign in as <strong>{done}</strong>.</p>
          <a class="button" href="#/overview">Sign in</a>
        </div>
      </main>
    )
  }
  return (
    <main class="center">
      <form class="card narrow" onSubmit={submit} id="set-password">
        <h1 id="page-title">Choose your password</h1>
        <Field label="New password" hint="8 to 200 characters">
          <input name="password" type="password" autoComplete="new-password" minLength={8} maxLength={200} required />
        </Field>
        <Field label="The same again">
          <input name="again" type="password" autoComplete="new-password" required />
        </Field>
        <ErrorBox error={error} />
        <button type="submit">Set password</button>
      </form>
    </main>
  )
}
