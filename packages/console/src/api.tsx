// The console's one way to the service: same-origin fetches with the session cookie; mutations carry the CSRF token.

/** An answer of the API that is not a success: its message, `error_code` and `request_id` are shown to the person. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly requestId: string | null) {
    super(message)
  }
}

let csrf = ""
/** Remembers the session's CSRF token (from the session answer). */
export const setCsrf = (token: string) => {
  csrf = token
}

/** Called when the session is gone (401), so the app shows the sign-in page. */
let onSignedOut: () => void = () => {}
export const whenSignedOut = (handler: () => void) => {
  onSignedOut = handler
}

export interface Answer<T> {
  readonly body: T
  readonly headers: Headers
}

type Query = Record<string, string | number | boolean | undefined | null>

const withQuery = (path: string, query?: Query) => {
  if (query === undefined) return path
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== "") params.set(name, String(value))
  const text = params.toString()
  return text === "" ? path : `${path}?${text}`
}

/** Calls the API; resolves to the JSON body and headers, or rejects with an `ApiError`. */
export const call = async <T,>(method: string, path: string, options: { body?: unknown; query?: Query; headers?: Record<string, string> } = {}): Promise<Answer<T>> => {
  // The session's CSRF token on every request: the API asks for it on reads too (a GET can cost credits).
  const headers: Record<string, string> = { accept: "application/json", ...options.headers }
  if (csrf !== "") headers["x-csrf-token"] = csrf
  if (method !== "GET" && method !== "HEAD") headers["content-type"] = "application/json"
  let response: Response
  try {
    response = await fetch(withQuery(path, options.query), {
      method,
      headers,
      credentials: "same-origin",
      body: options.body === undefined ? (method === "GET" || method === "HEAD" ? undefined : "{}") : JSON.stringify(options.body)
    })
  } catch (error) {
    throw new ApiError(0, "NETWORK_ERROR", `The service could not be reached (${(error as Error).message})`, null)
  }
  const text = await response.text()
  let body: any = null
  try {
    body = text === "" ? null : JSON.parse(text)
  } catch {
    body = null
  }
  if (!response.ok) {
    const requestId = body?.request_id ?? response.headers.get("x-request-id")
    const error = new ApiError(response.status, body?.error_code ?? `HTTP_${response.status}`, body?.message ?? response.statusText, requestId)
    if (response.status === 401 && path !== "/v1/console/session") onSignedOut()
    throw error
  }
  return { body: body as T, headers: response.headers }
}

/** `call`, the body only. */
export const api = async <T,>(method: string, path: string, options?: { body?: unknown; query?: Query; headers?: Record<string, string> }): Promise<T> =>
  (await call<T>(method, path, options)).body

export interface Org {
  readonly id: string
  readonly name: string
  readonly plan: string
  readonly zdr: boolean
  readonly credits_remaining: number
  readonly credits_per_cycle: number
  readonly cycle_start: string
  readonly cycle_end: string | null
  readonly requests_per_minute: number
}

export interface SessionView {
  readonly user: { readonly id: string; readonly email: string; readonly role: "owner" | "member" }
  readonly org: Org
  readonly csrf: string
  readonly permissions: ReadonlyArray<string>
}
