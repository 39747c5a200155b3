/**
 * `GET /health` and `GET /ready`, answered by the listener itself (before the HTTPS rule, the access log, the request
 * log and any key check): a load balancer polls them without a key, over plain HTTP, from the first moment the port
 * is open. `/health` says the process is alive; `/ready` says whether it can serve, part by part. Any other request
 * that arrives while the service is starting (or stopping) gets 503 with `Retry-After` and the contract's error body,
 * never a socket left open.
 */
import { randomUUID } from "node:crypto"
import type * as http from "node:http"

/** One part of readiness: whether it is fine, and its state in a word or two (never secrets or addresses). */
export interface Check {
  readonly ok: boolean
  readonly state: string
  readonly [detail: string]: unknown
}

/** What `/ready` reports. */
export interface Report {
  readonly ready: boolean
  readonly checks: Readonly<Record<string, Check>>
}

/** Produces the current report; the listener calls it for each `/ready`. */
export type Probe = () => Promise<Report>

/** The probe paths, by the request target's path. */
export type ProbePath = "/health" | "/ready"

/** The probe a request asks for (`GET`/`HEAD` of `/health` or `/ready`, any query), else `undefined`. */
export const probeOf = (method: string | undefined, url: string | undefined): ProbePath | undefined => {
  // A cheap first test: every API request pays it.
  if (url === undefined || (url.charCodeAt(1) !== 104 && url.charCodeAt(1) !== 114)) return undefined // "h", "r"
  if (method !== "GET" && method !== "HEAD") return undefined
  const path = url.split("?", 1)[0]
  return path === "/health" || path === "/ready" ? path : undefined
}

const send = (response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    "cache-control": "no-store",
    ...headers
  })
  response.end(response.req.method === "HEAD" ? undefined : text)
}

/** The `/ready` body of a report: `ready` with 200, else `unavailable` with 503 and the failing parts named. */
export const readyBody = (report: Report) => {
  const failing = Object.entries(report.checks).filter(([, check]) => !check.ok).map(([name]) => name)
  return report.ready
    ? { status: "ready", checks: report.checks }
    : { status: "unavailable", failing, checks: report.checks }
}

/** Answers a probe request; a probe that throws counts as not ready. */
export const answer = (path: ProbePath, probe: Probe, response: http.ServerResponse): void => {
  if (path === "/health") return send(response, 200, { status: "ok" })
  probe().then(
    (report) => send(response, report.ready ? 200 : 503, readyBody(report), report.ready ? {} : { "retry-after": "1" }),
    (error) =>
      send(response, 503, readyBody({ ready: false, checks: { probe: { ok: false, state: `failed: ${String(error)}` } } }), {
        "retry-after": "1"
      })
  )
}

/** The 503 a request gets while the service is not serving (starting, or stopping): contract body, `Retry-After`. */
export const unavailable = (response: http.ServerResponse, why: "starting" | "stopping"): void => {
  const requestId = randomUUID()
  send(response, 503, {
    request_id: requestId,
    error_code: "SERVICE_UNAVAILABLE",
    message: why === "starting"
      ? "The service is starting; retry in a moment (GET /ready says when it is ready)"
      : "The service is shutting down; retry on another instance"
  }, { "retry-after": "1", "x-request-id": requestId, connection: "close" })
}
