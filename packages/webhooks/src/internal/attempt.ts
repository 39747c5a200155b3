/**
 * One webhook attempt: a signed POST of the event body to the receiver, with a 10 s timeout, through the address guard
 * (the resolved IP of the connection is checked inside the lookup, so DNS rebinding cannot slip past it).
 */
import * as AddressGuard from "@sift/core/AddressGuard"
import { Effect, Redacted } from "effect"
import * as dns from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import { isIP, type LookupFunction } from "node:net"
import { parseRetryAfter, type AttemptOutcome } from "./retryPolicy.js"
import * as Signature from "./signature.js"

/** How long a receiver has to answer. */
export const RECEIVER_TIMEOUT_MS = 10_000

/** What one attempt sends. */
export interface AttemptRequest {
  readonly url: string
  readonly eventId: string
  readonly eventType: string
  /** The raw JSON body, signed byte for byte. */
  readonly body: string
  /** The secret current at the time of the attempt (rotation applies to retries and replays at once). */
  readonly secret: Redacted.Redacted<string>
  readonly allowPrivateTargets: boolean
  readonly timeoutMs?: number | undefined
  /** Unix seconds for the signature (defaults to now). */
  readonly timestamp?: number | undefined
}

/** The recorded result of one attempt. */
export interface AttemptResult extends AttemptOutcome {
  readonly error: string | null
  readonly startedAt: Date
  readonly completedAt: Date
}

class UnsafeAddress extends Error {}

const guardedLookup = (policy: AddressGuard.AddressPolicy): LookupFunction => (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, "", 0)
    const list = addresses as unknown as Array<dns.LookupAddress>
    const refused = list.find((a) => !policy(a.address, hostname))
    if (refused !== undefined) return callback(new UnsafeAddress(AddressGuard.explain(refused.address, hostname)), "", 0)
    if ((options as { all?: boolean }).all === true) return (callback as unknown as (e: null, a: Array<dns.LookupAddress>) => void)(null, list)
    callback(null, list[0]!.address, list[0]!.family)
  })
}

/** Sends one attempt; never fails: every way it can go wrong is an outcome. */
export const send = (request: AttemptRequest): Effect.Effect<AttemptResult> =>
  Effect.async<AttemptResult>((resume) => {
    const startedAt = new Date()
    let finished = false
    const done = (outcome: AttemptOutcome, error: string | null) => {
      if (finished) return
      finished = true
      resume(Effect.succeed({ ...outcome, error, startedAt, completedAt: new Date() }))
    }
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return done({ kind: "skipped_unsafe_url", httpStatus: null }, "invalid URL")
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return done({ kind: "skipped_unsafe_url", httpStatus: null }, `scheme ${url.protocol} is not allowed`)
    }
    const policy = AddressGuard.policy(request.allowPrivateTargets)
    const host = url.hostname.replace(/^\[|\]$/g, "")
    if (isIP(host) !== 0 && !policy(host, host)) {
      return done({ kind: "skipped_unsafe_url", httpStatus: null }, AddressGuard.explain(host, host))
    }
    const byName = request.allowPrivateTargets ? undefined : AddressGuard.refusedHostName(host)
    if (byName !== undefined) return done({ kind: "skipped_unsafe_url", httpStatus: null }, byName)
    const timestamp = request.timestamp ?? Math.floor(Date.now() / 1000)
    const body = Buffer.from(request.body, "utf8")
    const client = url.protocol === "https:" ? https : http
    const req = client.request(url, {
      method: "POST",
      lookup: guardedLookup(policy),
      agent: false,
      headers: {
        "content-type": "application/json",
        "content-length": String(body.byteLength),
        "user-agent": "Sift-Webhooks/0.1",
        "x-service-id": request.eventId,
        "x-service-event": request.eventType,
        // A webhook without a secret (a batch's legacy webhookUrl) is not signed: an HMAC under an empty key proves nothing.
        ...(Redacted.value(request.secret) === "" ? {} : { "x-service-signature": Signature.header(request.secret, timestamp, request.body) })
      }
    }, (res) => {
      res.resume()
      res.on("end", () => {
        const status = res.statusCode ?? 0
        if (status >= 200 && status < 300) return done({ kind: "delivered", httpStatus: status }, null)
        const retryAfter = status === 429 ? parseRetryAfter(res.headers["retry-after"] as string | undefined) : undefined
        done({ kind: "rejected", httpStatus: status, retryAfterMs: retryAfter }, `receiver answered ${status}`)
      })
      res.on("error", (error) => done({ kind: "failed", httpStatus: null }, error.message))
    })
    req.setTimeout(request.timeoutMs ?? RECEIVER_TIMEOUT_MS, () => req.destroy(new Error("receiver timed out")))
    req.on("error", (error) =>
      error instanceof UnsafeAddress
        ? done({ kind: "skipped_unsafe_url", httpStatus: null }, error.message)
        : done({ kind: "failed", httpStatus: null }, error.message))
    req.end(body)
    return Effect.sync(() => req.destroy())
  })
