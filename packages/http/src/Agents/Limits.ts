/**
 * Limits of the unauthenticated registration endpoints (`POST /agent/identity`, `POST /oauth2/register`): a fixed
 * one-minute window per client address, counted by the same `RateLimiter` as API keys (so it holds across replicas),
 * and the hourly removal of registrations, authorization codes and access-token links that expired more than a day ago.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { AgentRegistration, OAuthGrants, RateLimiter } from "@sift/auth"
import { Config, Effect, Layer, Option, Schedule } from "effect"

/** Registrations one client address may open per minute by default (agent identities and OAuth clients together). */
export const REGISTRATIONS_PER_MINUTE = 20

const perMinute = Config.integer("SIFT_REGISTRATIONS_PER_MINUTE").pipe(Config.withDefault(REGISTRATIONS_PER_MINUTE))

/** Answers 429 (`Retry-After`) when the caller's address has used its registrations this minute, else `answer`. */
export const limitRegistrations = <E, R>(answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const address = Option.getOrElse(request.remoteAddress, () => "unknown")
    const limiter = yield* RateLimiter.RateLimiter
    const limit = yield* Effect.orElseSucceed(perMinute, () => REGISTRATIONS_PER_MINUTE)
    const window = yield* limiter.hit(`ip:${address}`, "registration", limit).pipe(Effect.orDie)
    if (window.allowed) return yield* answer
    return HttpServerResponse.unsafeJson(
      { error: "rate_limited", error_description: `At most ${limit} registrations a minute from one address; retry in ${window.retryAfter} s` },
      { status: 429, headers: { "retry-after": String(window.retryAfter), "cache-control": "no-store" } }
    )
  })

/** Removes registrations, authorization codes and access-token links that expired more than a day ago; answers how many. */
export const removeExpired = Effect.gen(function*() {
  const registrations = yield* AgentRegistration.removeExpired
  const grants = yield* OAuthGrants.removeExpired
  return { registrations, codes: grants.codes, accessTokens: grants.accessTokens }
})

/**
 * The hourly clean-up, for the layer's lifetime.
 *
 * @category layers
 */
export const layerCleanup = Layer.scopedDiscard(
  removeExpired.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("expired registrations could not be removed", cause)),
    Effect.repeat(Schedule.spaced("1 hour")),
    Effect.forkScoped
  )
)
