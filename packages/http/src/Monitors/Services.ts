/**
 * What monitors need of accounts, provided from `@sift/auth`: `MonitorCharge` over the credit ledger (a run's credits
 * reserved, then charged or released; `UsageExceeded` is the monitors' `InsufficientCredits`) and `FailureRecipients`
 * as the organization's users.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { CreditLedger, Users } from "@sift/auth"
import { FailureRecipients, MonitorCharge } from "@sift/monitors"
import { Effect, Layer } from "effect"

/** `MonitorCharge` from the credit ledger. */
export const layerCharge = Layer.effect(
  MonitorCharge.MonitorCharge,
  Effect.map(CreditLedger.CreditLedger, (ledger) =>
    MonitorCharge.MonitorCharge.of({
      hold: (orgId, credits, options) =>
        ledger.reserve(orgId, credits, options).pipe(
          Effect.catchTag("UsageExceeded", (exceeded) =>
            Effect.fail(new MonitorCharge.InsufficientCredits({ needed: exceeded.needed, available: exceeded.available })))
        ),
      charge: (hold, charge) => Effect.asVoid(ledger.commit(hold, { credits: charge.credits, requestId: charge.runId })),
      release: (hold) => Effect.asVoid(ledger.release(hold))
    }))
)

/** `FailureRecipients` from the organization's users. */
export const layerRecipients = Layer.effect(
  FailureRecipients.FailureRecipients,
  Effect.map(Effect.context<SqlClient.SqlClient>(), (context) =>
    FailureRecipients.FailureRecipients.of({
      of: (orgId) => Users.emailsOf(orgId).pipe(Effect.provide(context), Effect.orElseSucceed((): ReadonlyArray<string> => []))
    }))
)

/** Both, for `MonitorService.layer`. */
export const layer = Layer.merge(layerCharge, layerRecipients)
