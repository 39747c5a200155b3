// The console: a hash-routed single-page app (`#/keys`, `#/logs/<id>`), so the server serves one page at `/`.
import { render } from "preact"
import { useEffect, useState } from "preact/hooks"
import { api, ApiError, setCsrf, type SessionView, whenSignedOut } from "./api"
import { Batches } from "./pages/Batches"
import { Deliveries } from "./pages/Deliveries"
import { Keys } from "./pages/Keys"
import { Logs } from "./pages/Logs"
import { Monitors } from "./pages/Monitors"
import { Overview } from "./pages/Overview"
import { Playground } from "./pages/Playground"
import { Settings } from "./pages/Settings"
import { SetPassword, SignIn } from "./pages/SignIn"
import "./styles.css"

const PAGES = [
  { path: "overview", label: "Overview" },
  { path: "keys", label: "API keys" },
  { path: "logs", label: "Logs" },
  { path: "monitors", label: "Monitors" },
  { path: "deliveries", label: "Deliveries" },
  { path: "batches", label: "Batches" },
  { path: "playground", label: "Playground" },
  { path: "settings", label: "Settings" }
] as const

/** The route: the hash without `#/`, split on `/`, and its query. */
const readRoute = () => {
  const hash = location.hash.replace(/^#\/?/, "")
  const [path, query] = hash.split("?") as [string, string | undefined]
  return { parts: path.split("/").filter((p) => p !== "").map(decodeURIComponent), query: new URLSearchParams(query ?? "") }
}

const THEME_KEY = "sift-theme"
const applyTheme = (theme: string) => {
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme
  else delete document.documentElement.dataset.theme
}

const App = () => {
  const [route, setRoute] = useState(readRoute)
  const [session, setSession] = useState<SessionView | null | undefined>(undefined)
  const [theme, setTheme] = useState(() => localStorage.getItem(THEME_KEY) ?? "system")
  const [menuOpen, setMenuOpen] = useState(false)

  useEffect(() => {
    const changed = () => {
      setRoute(readRoute())
      setMenuOpen(false)
      // Focus moves to the new page's title, so keyboard and screen-reader users land on it.
      requestAnimationFrame(() => document.getElementById("page-title")?.focus())
    }
    addEventListener("hashchange", changed)
    whenSignedOut(() => setSession(null))
    api<SessionView>("GET", "/v1/console/session").then(
      (view) => {
        setCsrf(view.csrf)
        setSession(view)
      },
      (error) => setSession(error instanceof ApiError && error.status === 401 ? null : null)
    )
    return () => removeEventListener("hashchange", changed)
  }, [])
  useEffect(() => {
    applyTheme(theme)
    localStorage.setItem(THEME_KEY, theme)
  }, [theme])

  if (route.parts[0] === "set-password") return <SetPassword token={route.query.get("token") ?? ""} />
  if (session === undefined) return <main class="center"><p aria-live="polite">Loading…</p></main>
  if (session === null) {
    return (
      <SignIn
        onSignedIn={(view) => {
          setCsrf(view.csrf)
          setSession(view)
          if (route.parts.length === 0) location.hash = "#/overview"
        }}
      />
    )
  }
  const page = route.parts[0] ?? "overview"
  const signOut = async () => {
    try {
      await api("DELETE", "/v1/console/session")
    } finally {
      setSession(null)
    }
  }
  const reloadSession = () => api<SessionView>("GET", "/v1/console/session").then(setSession, () => undefined)
  return (
    <div class="shell">
      {/* Moves focus, not the hash: the hash is the route (`#main` would be a page that does not exist). */}
      <a
        class="skip"
        href="#main"
        onClick={(event) => {
          event.preventDefault()
          ;(document.getElementById("page-title") ?? document.getElementById("main"))?.focus()
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <button type="button" class="menu secondary" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <a class="brand" href="#/overview">Sift</a>
        <span class="muted small org" title={session.org.id}>{session.org.name}</span>
        <span class="spacer" />
        <label class="small theme">
          <span class="sr-only">Theme</span>
          <select value={theme} onChange={(e) => setTheme((e.target as HTMLSelectElement).value)}>
            <option value="system">System theme</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
        <span class="small muted who">{session.user.email}</span>
        <button type="button" class="secondary" onClick={signOut}>Sign out</button>
      </header>
      <nav id="nav" class={menuOpen ? "open" : ""} aria-label="Console">
        <ul>
          {PAGES.map((p) => (
            <li key={p.path}>
              <a href={`#/${p.path}`} aria-current={page === p.path ? "page" : undefined}>{p.label}</a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {page === "overview" ? <Overview session={session} /> : null}
        {page === "keys" ? <Keys session={session} /> : null}
        {page === "logs" ? <Logs id={route.parts[1]} query={route.query} /> : null}
        {page === "monitors" ? <Monitors id={route.parts[1]} /> : null}
        {page === "deliveries" ? <Deliveries query={route.query} /> : null}
        {page === "batches" ? <Batches /> : null}
        {page === "playground" ? <Playground /> : null}
        {page === "settings" ? <Settings session={session} onChanged={reloadSession} /> : null}
        {!PAGES.some((p) => p.path === page) ? <p>No page here. <a href="#/overview">Go to the overview</a>.</p> : null}
      </main>
    </div>
  )
}

render(<App />, document.getElementById("app")!)
