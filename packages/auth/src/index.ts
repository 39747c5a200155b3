/**
 * @sift/auth: organizations, users, API keys, permissions, rate limits and credits, over `@sift/store`.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import { Accounts } from "./Accounts.js"
import { ApiKeys } from "./ApiKeys.js"
import { CreditLedger } from "./CreditLedger.js"
import { cost as passwordCost } from "./Passwords.js"
import { RateLimiter } from "./RateLimiter.js"

export * as Accounts from "./Accounts.js"
export * as AgentRegistration from "./AgentRegistration.js"
export * as ApiKeys from "./ApiKeys.js"
export * as AuthErrors from "./AuthErrors.js"
export * as CreditLedger from "./CreditLedger.js"
export * as Ids from "./Ids.js"
export * as OAuthGrants from "./OAuthGrants.js"
export * as Passwords from "./Passwords.js"
export * as Permissions from "./Permissions.js"
export * as Plans from "./Plans.js"
export * as RateLimiter from "./RateLimiter.js"
export * as Users from "./Users.js"
export { migrations } from "./Migrations.js"

/** Every auth service, over the `SqlClient` in context; fails to build on a bad `SIFT_PASSWORD_SCRYPT_LN`. */
export const layer = Layer.mergeAll(
  Accounts.Default,
  ApiKeys.Default,
  CreditLedger.Default,
  RateLimiter.Default,
  // Checked at start-up, so a bad value stops the server instead of failing every sign-in.
  Layer.effectDiscard(passwordCost)
)
