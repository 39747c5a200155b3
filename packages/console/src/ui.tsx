// Small building blocks shared by the pages.
import type { ComponentChildren } from "preact"
import { useEffect, useState } from "preact/hooks"
import { ApiError } from "./api"

/** An error as the API gave it: message, code and request id (to quote when asking for help). */
export const ErrorBox = ({ error }: { error: unknown }) => {
  if (error === undefined || error === null) return null
  const e = error instanceof ApiError ? error : new ApiError(0, "ERROR", String((error as Error)?.message ?? error), null)
  return (
    <div class="error" role="alert">
      <strong>{e.message}</strong>
      <div class="muted small">
        <code>{e.code}</code>
        {e.requestId !== null ? <> · request_id <code>{e.requestId}</code></> : null}
      </div>
    </div>
  )
}

/** An empty state that says what to do next. */
export const Empty = ({ title, children }: { title: string; children?: ComponentChildren }) => (
  <div class="empty">
    <h3>{title}</h3>
    {children}
  </div>
)

/** A button that copies text, saying so once done. */
export const CopyButton = ({ text, label = "Copy" }: { text: string; label?: string }) => {
  const [done, setDone] = useState(false)
  return (
    <button
      type="button"
      class="secondary"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text)
        } catch {
          // Clipboard refused (insecure origin): select-and-copy still works on the shown text.
        }
        setDone(true)
        setTimeout(() => setDone(false), 1500)
      }}
    >
      {done ? "Copied" : label}
    </button>
  )
}

/** Text to copy, shown in a code block with a copy button. */
export const Snippet = ({ text, label }: { text: string; label: string }) => (
  <div class="snippet">
    <div class="snippet-head">
      <span class="small muted">{label}</span>
      <CopyButton text={text} label={`Copy ${label}`} />
    </div>
    <pre tabIndex={0} aria-label={label}>
      <code>{text}</code>
    </pre>
  </div>
)

/** Loads something when `deps` change: `[value, error, loading, reload]`. */
export const useLoad = <T,>(load: () => Promise<T>, deps: ReadonlyArray<unknown>): [T | undefined, unknown, boolean, () => void] => {
  const [value, setValue] = useState<T | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const [loading, setLoading] = useState(true)
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let live = true
    setLoading(true)
    load().then(
      (v) => {
        if (!live) return
        setValue(v)
        setError(undefined)
        setLoading(false)
      },
      (e) => {
        if (!live) return
        setError(e)
        setLoading(false)
      }
    )
    return () => {
      live = false
    }
  }, [...deps, tick])
  return [value, error, loading, () => setTick((t) => t + 1)]
}

/** A date and time in the person's locale, or a dash. */
export const when = (iso: string | null | undefined) => (iso === null || iso === undefined ? "—" : new Date(iso).toLocaleString())

/** A labelled form field. */
export const Field = ({ label, hint, children }: { label: string; hint?: string; children: ComponentChildren }) => (
  <label class="field">
    <span>{label}</span>
    {children}
    {hint !== undefined ? <small class="muted">{hint}</small> : null}
  </label>
)

/** A status as a coloured pill. */
export const Pill = ({ text, tone }: { text: string; tone?: "ok" | "warn" | "bad" | "neutral" }) => <span class={`pill ${tone ?? "neutral"}`}>{text}</span>

/** The tone of an HTTP status. */
export const statusTone = (status: number) => (status >= 500 ? "bad" : status >= 400 ? "warn" : "ok")

/** A page's title block. */
export const Header = ({ title, children }: { title: string; children?: ComponentChildren }) => (
  <div class="page-head">
    <h1 tabIndex={-1} id="page-title">{title}</h1>
    <div class="actions">{children}</div>
  </div>
)
