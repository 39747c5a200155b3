/**
 * What batches need of the credit system, declared here so the package stands on its own: take a batch's reservation
 * inside the transaction that creates it (all of it, or nothing and `USAGE_EXCEEDED`), and give back what it did not
 * spend (plus charge its OCR pages) inside the transaction that settles it, so a batch's money moves exactly once
 * each way whatever crashes. The service (`@sift/http`) provides it from the auth package's credit ledger.
 *
 * @since 0.1.0
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Context, type Effect } from "effect"
import type { BatchRefused } from "./BatchErrors.js"

/**
 * Moves a batch's credits. Both run inside the caller's SQL transaction, which `transaction` opens when given (a
 * ledger that keeps balances in memory learns there whether the transaction committed); else `sql.withTransaction`.
 *
 * @category services
 */
export class BatchCredits extends Context.Tag("@sift/batch/BatchCredits")<BatchCredits, {
  /** Runs `effect` as the SQL transaction in which `reserve` or `settle` is called. */
  readonly transaction?: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
  /** Debits `credits` for batch `batchId` (its request id `requestId`); fails `Unaffordable` when the balance cannot cover them. */
  readonly reserve: (
    input: { readonly orgId: string; readonly keyId: string | undefined; readonly batchId: string; readonly requestId: string; readonly credits: number }
  ) => Effect.Effect<{ readonly remaining: number }, BatchRefused | SqlError>
  /** Settles batch `batchId`: credits back `refund`, then debits `ocr` (never below what the balance allows: OCR was done). */
  readonly settle: (
    input: { readonly orgId: string; readonly batchId: string; readonly refund: number; readonly ocr: number }
  ) => Effect.Effect<void, SqlError>
}>() {}
