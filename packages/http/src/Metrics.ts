/**
 * Prometheus metrics of one `sift serve` process (prom-client), served at `/metrics` by the listener when
 * `SIFT_METRICS=true` or `SIFT_METRICS_TOKEN` is set (then only with `Authorization: Bearer <token>`). Off by
 * default: nothing here runs per request unless metrics are on. What is counted on the hot path is a few counter
 * increments per answer; queue depths, the browser pool and the cache are read when Prometheus scrapes.
 *
 * @since 0.1.0
 */
import { Context, Effect, Exit, Option, Redacted } from "effect"
import { timingSafeEqual } from "node:crypto"
import type * as http from "node:http"
import * as Prom from "prom-client"

/** Labels of the request metrics: the route (ids replaced by `:id`; unknown paths one label) and the status. */
const ID_SEGMENT = /^(?=.*\d)[A-Za-z0-9_-]{8,}$|^[0-9a-f]{8}-[0-9a-f]{4}-/i

/** A route label of bounded cardinality: API paths with their ids as `:id`, anything else by its first segment. */
export const routeOf = (url: string | undefined, status: number): string => {
  if (url === undefined) return "other"
  const path = url.split("?", 1)[0]!
  if (status === 404 && path.startsWith("/v1/")) return "/v1/(unmatched)"
  if (!path.startsWith("/v1/")) {
    const first = path.split("/", 2)[1] ?? ""
    return /^(mcp|oauth2|agent|\.well-known|files|health|ready|metrics)$/.test(first) ? `/${first}` : "other"
  }
  const segments = path.split("/")
  if (segments.length > 6) return "/v1/(unmatched)"
  return segments.map((segment) => ID_SEGMENT.test(segment) ? ":id" : segment).join("/")
}

/** What the scrape reads from the running service: the job queue's depths, the browser pool, job counters. */
export interface Sources {
  /** Jobs per queue and state (pg-boss's own table). */
  readonly queueDepths?: () => Promise<ReadonlyArray<{ readonly queue: string; readonly state: string; readonly count: number }>>
  /** The browser pool: contexts open, launches and crashes so far, whether a browser is connected. */
  readonly browser?: () => Promise<{ readonly openContexts: number; readonly launches: number; readonly crashes: number; readonly connected: boolean }>
}

/**
 * One process's metrics: its own registry (tests run several servers in one process), the counters the hot path
 * increments, and the gauges read when scraped.
 *
 * @category models
 */
export class Metrics {
  readonly registry = new Prom.Registry()
  readonly requests: Prom.Counter<"route" | "method" | "status">
  readonly latency: Prom.Histogram<"route">
  readonly rateLimited: Prom.Counter<"route">
  readonly creditsCharged: Prom.Counter
  readonly cache: Prom.Counter<"result">
  readonly jobs: Prom.Counter<"queue" | "outcome">
  readonly jobSeconds: Prom.Histogram<"queue">
  readonly webhookAttempts: Prom.Counter<"outcome">
  private sources: Sources = {}

  constructor() {
    const registers = [this.registry]
    this.requests = new Prom.Counter({
      name: "sift_http_requests_total",
      help: "HTTP requests answered, by route, method and status",
      labelNames: ["route", "method", "status"],
      registers
    })
    this.latency = new Prom.Histogram({
      name: "sift_http_request_duration_seconds",
      help: "Time from the request's arrival to its response's end, by route",
      labelNames: ["route"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers
    })
    this.rateLimited = new Prom.Counter({
      name: "sift_rate_limit_refusals_total",
      help: "Requests refused with 429 by a rate limit, by route",
      labelNames: ["route"],
      registers
    })
    this.creditsCharged = new Prom.Counter({ name: "sift_credits_charged_total", help: "Credits charged by answered API requests", registers })
    this.cache = new Prom.Counter({
      name: "sift_cache_lookups_total",
      help: "Page and screenshot cache lookups, by result (hit or miss)",
      labelNames: ["result"],
      registers
    })
    this.jobs = new Prom.Counter({
      name: "sift_jobs_total",
      help: "Durable jobs this process ran, by queue and outcome (completed, failed: retried or given up by pg-boss)",
      labelNames: ["queue", "outcome"],
      registers
    })
    this.jobSeconds = new Prom.Histogram({
      name: "sift_job_duration_seconds",
      help: "Durable job run time in this process, by queue",
      labelNames: ["queue"],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
      registers
    })
    this.webhookAttempts = new Prom.Counter({
      name: "sift_webhook_attempts_total",
      help: "Webhook delivery attempts this process made, by outcome (delivered; retrying: failed, sent again later; failed: given up)",
      labelNames: ["outcome"],
      registers
    })
    const self = this
    new Prom.Gauge({
      name: "sift_queue_jobs",
      help: "Jobs in the durable queue (all processes), by queue and pg-boss state",
      labelNames: ["queue", "state"],
      registers,
      async collect() {
        this.reset()
        const depths = await self.sources.queueDepths?.().catch(() => []) ?? []
        for (const row of depths) this.set({ queue: row.queue, state: row.state }, row.count)
      }
    })
    const browser = () => self.sources.browser?.().catch(() => undefined) ?? Promise.resolve(undefined)
    new Prom.Gauge({
      name: "sift_browser_contexts_open",
      help: "Browser contexts (pages being rendered) open in this process's pool",
      registers,
      async collect() {
        this.set((await browser())?.openContexts ?? 0)
      }
    })
    new Prom.Gauge({
      name: "sift_browser_connected",
      help: "1 while this process's pool has a connected browser",
      registers,
      async collect() {
        this.set((await browser())?.connected === true ? 1 : 0)
      }
    })
    new Prom.Counter({
      name: "sift_browser_launches_total",
      help: "Browsers launched (or connected to) by this process's pool; each after the first follows a crash or a retirement",
      registers,
      async collect() {
        this.reset()
        this.inc((await browser())?.launches ?? 0)
      }
    })
    new Prom.Counter({
      name: "sift_browser_crashes_total",
      help: "Page crashes and lost browser connections in this process's pool",
      registers,
      async collect() {
        this.reset()
        this.inc((await browser())?.crashes ?? 0)
      }
    })
    Prom.collectDefaultMetrics({ register: this.registry, prefix: "sift_" })
  }

  /** Sets where the scrape-time gauges read from (the server calls this once its parts are up). */
  readonly use = (sources: Sources): void => {
    this.sources = { ...this.sources, ...sources }
  }

  /** Records one answered HTTP request (the listener calls this when its response closes). */
  readonly observe = (method: string | undefined, url: string | undefined, status: number, seconds: number): void => {
    const route = routeOf(url, status)
    this.requests.inc({ route, method: method ?? "", status })
    this.latency.observe({ route }, seconds)
    if (status === 429) this.rateLimited.inc({ route })
  }

  /** Records one job run: its queue, how it ended and how long it took. */
  readonly job = (queue: string, ok: boolean, seconds: number): void => {
    this.jobs.inc({ queue, outcome: ok ? "completed" : "failed" })
    this.jobSeconds.observe({ queue }, seconds)
  }

  /** Records how one webhook delivery attempt ended. */
  readonly webhookAttempt = (outcome: "delivered" | "retrying" | "failed"): void => {
    this.webhookAttempts.inc({ outcome })
  }
}

/**
 * The process's metrics, when they are on.
 *
 * @category tags
 */
export class CurrentMetrics extends Context.Tag("@sift/http/Metrics/CurrentMetrics")<CurrentMetrics, Metrics>() {}

/** Credits charged by answered requests, for the process's metrics (a no-op while metrics are off). */
let charged: ((credits: number) => void) | undefined

/** Counts credits charged by an answered request (the pipeline calls this; cheap when metrics are off). */
export const countCharged = (credits: number): void => {
  if (charged !== undefined && credits > 0) charged(credits)
}

/** Makes `metrics` the one the request pipeline reports charges to (the last server started in this process). */
export const install = (metrics: Metrics): Effect.Effect<void> =>
  Effect.sync(() => {
    charged = (credits) => metrics.creditsCharged.inc(credits)
  })

/** Wraps a cache so that its lookups are counted; an answer the cache gives at once stays one (no step added). */
export const countedCache = <S extends { readonly get: (key: string, maxAgeMs: number) => Effect.Effect<Option.Option<unknown>> }>(
  cache: S,
  metrics: Metrics
): S => {
  const hit = metrics.cache.labels({ result: "hit" })
  const miss = metrics.cache.labels({ result: "miss" })
  const count = (found: Option.Option<unknown>) => (Option.isSome(found) ? hit : miss).inc()
  return {
    ...cache,
    get: (key: string, maxAgeMs: number) => {
      const found = cache.get(key, maxAgeMs)
      if (Exit.isExit(found)) {
        if (Exit.isSuccess(found)) count(found.value as Option.Option<unknown>)
        return found
      }
      return Effect.tap(found, count)
    }
  } as S
}

/** Answers `GET /metrics`: 404 when metrics are off, 401 without the configured bearer token, else the exposition. */
export const answer = (
  metrics: Metrics | undefined,
  token: Option.Option<Redacted.Redacted>,
  request: http.IncomingMessage,
  response: http.ServerResponse
): void => {
  const send = (status: number, contentType: string, body: string, headers: Record<string, string> = {}) => {
    response.writeHead(status, { "content-type": contentType, "content-length": String(Buffer.byteLength(body)), "cache-control": "no-store", ...headers })
    response.end(request.method === "HEAD" ? undefined : body)
  }
  if (metrics === undefined) {
    return send(404, "application/json", JSON.stringify({ error_code: "NOT_FOUND", message: "metrics are off (set SIFT_METRICS=true or SIFT_METRICS_TOKEN)" }))
  }
  if (Option.isSome(token) && !bearerMatches(request.headers.authorization, Redacted.value(token.value))) {
    return send(401, "application/json", JSON.stringify({ error_code: "UNAUTHORIZED", message: "send Authorization: Bearer <SIFT_METRICS_TOKEN>" }), {
      "www-authenticate": "Bearer"
    })
  }
  metrics.registry.metrics().then(
    (text) => send(200, metrics.registry.contentType, text),
    (error) => send(500, "text/plain", `metrics failed: ${String(error)}`)
  )
}

const bearerMatches = (header: string | undefined, token: string): boolean => {
  const given = Buffer.from(/^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1] ?? "")
  const expected = Buffer.from(token)
  return given.length === expected.length && timingSafeEqual(given, expected)
}
