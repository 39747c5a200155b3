/**
 * What batches need of the service, provided from `@sift/auth` and the configuration: `BatchCredits` over the credit
 * ledger (the reservation debited in the submission's own transaction, the refund and the OCR charge in the
 * settlement's, so each moves exactly once with the batch's rows), and the worker that drives batches and deletes
 * expired results.
 *
 * @since 0.1.0
 */
import { CreditLedger } from "@sift/auth"
import { BatchCredits, BatchErrors, BatchRunner } from "@sift/batch"
import { Config, Effect, Layer, Option } from "effect"

/** `BatchCredits` from the credit ledger. */
export const layerCredits = Layer.effect(
  BatchCredits.BatchCredits,
  Effect.map(CreditLedger.CreditLedger, (ledger) =>
    BatchCredits.BatchCredits.of({
      transaction: ledger.transaction,
      reserve: (input) =>
        ledger.debitIn(input.orgId, input.credits, input.requestId).pipe(
          Effect.map((debited) => ({ remaining: debited.remaining })),
          Effect.catchTag("UsageExceeded", (exceeded) =>
            Effect.fail(new BatchErrors.BatchRefused({
              reason: "Unaffordable",
              detail: `Not enough credits: this batch reserves ${exceeded.needed} (one per page), ${Math.max(0, exceeded.available)} available`
            })))
        ),
      // The refund first: OCR pages are charged from a balance that already has the unspent pages back.
      settle: (input) =>
        Effect.zipRight(
          ledger.refund(input.orgId, input.refund, `${input.batchId}:refund`),
          input.ocr > 0
            // `upTo`: never refused (the pages were read); what the balance allows is charged.
            ? Effect.asVoid(ledger.debitIn(input.orgId, input.ocr, `${input.batchId}:ocr`, { upTo: true }).pipe(Effect.catchTag("UsageExceeded", () => Effect.void)))
            : Effect.void
        ).pipe(Effect.asVoid)
    }))
)

/** The public origin of file URLs when configured (`SIFT_PUBLIC_URL`, trailing slashes dropped). */
export const configuredOrigin = Config.option(Config.string("SIFT_PUBLIC_URL")).pipe(
  Config.map(Option.flatMap((url) => url.trim() === "" ? Option.none() : Option.some(url.trim().replace(/\/+$/, ""))))
)

/**
 * Batch workers of this process: drive jobs (`SIFT_BATCH_WORKERS` batches at once, `SIFT_BATCH_CONCURRENCY` pages of
 * each, `SIFT_BATCH_PER_HOST` pages of one host), re-queue lapsed drives and delete expired results (every
 * `SIFT_BATCH_SWEEP_MS`). File URLs in completion events use `SIFT_PUBLIC_URL`, else the submitting request's origin.
 */
export const layerWorker = Layer.scopedDiscard(Effect.gen(function*() {
  const config = yield* Config.all({
    origin: configuredOrigin,
    batches: Config.integer("SIFT_BATCH_WORKERS").pipe(Config.withDefault(2)),
    concurrency: Config.integer("SIFT_BATCH_CONCURRENCY").pipe(Config.withDefault(8)),
    perHost: Config.integer("SIFT_BATCH_PER_HOST").pipe(Config.withDefault(4)),
    sweepMs: Config.integer("SIFT_BATCH_SWEEP_MS").pipe(Config.withDefault(15_000))
  }).pipe(Effect.orDie)
  const origin = Option.getOrUndefined(config.origin)
  yield* BatchRunner.worker({
    batches: Math.max(1, config.batches),
    concurrency: Math.max(1, config.concurrency),
    perHost: Math.max(1, config.perHost),
    sweepMs: Math.max(1_000, config.sweepMs),
    fileUrl: (id, submitted) => `${origin ?? submitted ?? ""}/v1/files/${id}`
  })
}))
