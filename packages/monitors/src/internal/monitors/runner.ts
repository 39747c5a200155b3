/**
 * One run of a monitor, from its queued row to its record: claim (exactly once: the row is locked and must still be
 * queued), credits reserved (a skip when they are missing), the target observed, compared with the baseline, and the
 * outcome written in one transaction with the change, the new baseline, the status machine and the webhook deliveries.
 * Credits are charged only for a completed run; a failed or skipped run costs nothing and sends nothing.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Ids from "@sift/store/Ids"
import { Cause, Clock, Effect, Either, Option } from "effect"
import * as ChangeDetection from "../../ChangeDetection.js"
import { MonitorCharge } from "../../MonitorCharge.js"
import { RUN_LEASE_MS } from "../../Monitors.js"
import { DEFAULT_CONFIDENCE_THRESHOLD, type ChangeDetection as Detection, type Target } from "../../MonitorSpec.js"
import { WebhookEvents } from "../../Webhooks.js"
import { observeExtract, observePage, observeSitemap, ObservationFailed } from "./observe.js"
import * as Views from "./views.js"

/** Consecutive failed runs after which a monitor pauses itself. */
export const FAILURES_BEFORE_PAUSE = 5
/** Consecutive insufficient-credit skips after which a monitor pauses itself. */
export const CREDIT_SKIPS_BEFORE_PAUSE = 3

/** Credits of one run: 10 for a semantic extract run, 1 otherwise (interface.md run pricing). */
export const costOf = (target: Target, detection: Detection): number =>
  target.type === "extract" && detection.type === "semantic" ? 10 : 1

const json = <A>(value: unknown): A => (typeof value === "string" ? JSON.parse(value) : value) as A

/** What comparing an observation with the baseline gave. */
interface Outcome {
  readonly baseline: Record<string, unknown>
  readonly change: Record<string, unknown> | undefined
  readonly baselineCreated: boolean
}

const semanticMembers = (judgement: ChangeDetection.Judgement) => ({
  confidence: judgement.confidence,
  importance: judgement.importance,
  evidence: judgement.evidence,
  matched_urls: judgement.matched_urls,
  matched_url_count: judgement.matched_urls.length
})

/** Observes the target and compares it with the baseline (null: this run makes the baseline). */
const observeAndCompare = (
  target: Target,
  detection: Detection,
  baseline: Record<string, unknown> | null,
  capturedAt: string
) =>
  Effect.gen(function*() {
    const judge = yield* ChangeDetection.SemanticJudge
    const threshold = detection.type === "semantic" ? detection.confidence_threshold ?? DEFAULT_CONFIDENCE_THRESHOLD : 0
    switch (target.type) {
      case "page": {
        const text = yield* observePage(target)
        const next = { captured_at: capturedAt, text }
        if (baseline === null) return { baseline: next, change: undefined, baselineCreated: true } satisfies Outcome
        const before = String(baseline.text ?? "")
        const diff = ChangeDetection.comparePages(before, text, target.url)
        if (diff === undefined) return { baseline: next, change: undefined, baselineCreated: false } satisfies Outcome
        if (detection.type === "exact") return { baseline: next, change: { ...diff }, baselineCreated: false } satisfies Outcome
        const judgement = yield* judge.judgePage({ instructions: target.instructions ?? "", url: target.url, before, after: text })
        const relevant = judgement.relevant && judgement.confidence >= threshold
        return {
          baseline: next,
          change: relevant ? { ...diff, title: judgement.title, summary: judgement.summary, ...semanticMembers(judgement) } : undefined,
          baselineCreated: false
        } satisfies Outcome
      }
      case "sitemap": {
        const urls = yield* observeSitemap(target)
        const next = (set: ReadonlyArray<string>) => ({ captured_at: capturedAt, url_count: set.length, urls: set })
        if (baseline === null) return { baseline: next(urls), change: undefined, baselineCreated: true } satisfies Outcome
        const before = (baseline.urls ?? []) as ReadonlyArray<string>
        const first = ChangeDetection.compareSitemaps(before, urls)
        if (first === undefined) return { baseline: next(urls), change: undefined, baselineCreated: false } satisfies Outcome
        // A difference is confirmed by a second reading: only what both readings agree on is reported (no crawl flaps).
        const again = yield* Effect.either(observeSitemap(target))
        const confirmed = Either.isRight(again) ? urls.filter((u) => new Set(again.right).has(u)).concat(
          before.filter((u) => !new Set(urls).has(u) && new Set(again.right).has(u))
        ) : urls
        const sorted = [...new Set(confirmed)].sort()
        const change = ChangeDetection.compareSitemaps(before, sorted)
        return { baseline: next(change === undefined ? before : sorted), change: change === undefined ? undefined : { ...change }, baselineCreated: false } satisfies Outcome
      }
      case "extract": {
        const pages = yield* observeExtract(target)
        const data = yield* judge.extract({ instructions: target.instructions, schema: target.schema, pages })
        const next = { captured_at: capturedAt, data, urls_analyzed: pages.map((p) => p.url) }
        if (baseline === null) return { baseline: next, change: undefined, baselineCreated: true } satisfies Outcome
        const judgement = yield* judge.judgeExtract({
          instructions: target.instructions,
          before: (baseline.data ?? {}) as ChangeDetection.ExtractedData,
          after: data,
          urls: next.urls_analyzed
        })
        const relevant = judgement !== undefined && judgement.relevant && judgement.confidence >= threshold
        return {
          baseline: next,
          change: relevant ? { title: judgement.title, summary: judgement.summary, ...semanticMembers(judgement) } : undefined,
          baselineCreated: false
        } satisfies Outcome
      }
    }
  })

/**
 * Executes a queued run, or a run left `running` past its lease (its worker died; this is its job's retry); a run done
 * by another worker, or deleted, or running within its lease, is left alone.
 */
export const execute = (runId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const charges = yield* MonitorCharge
    const events = yield* WebhookEvents
    const startedAt = new Date(yield* Clock.currentTimeMillis)

    const finishSkip = (run: { id: string }, monitor: Views.MonitorRow, reason: "insufficient_credits" | "monitor_paused" | "superseded") =>
      Effect.gen(function*() {
        yield* sql`UPDATE monitor_runs SET status = 'skipped', skip_reason = ${reason}, completed_at = ${startedAt} WHERE id = ${run.id}`
        if (reason === "insufficient_credits") {
          const [m] = yield* sql<{ consecutive_credit_skips: number }>`
            UPDATE monitors SET consecutive_credit_skips = consecutive_credit_skips + 1 WHERE id = ${monitor.id}
            RETURNING consecutive_credit_skips`
          if ((m?.consecutive_credit_skips ?? 0) >= CREDIT_SKIPS_BEFORE_PAUSE) {
            yield* sql`UPDATE monitors SET status = 'paused', updated_at = ${startedAt} WHERE id = ${monitor.id}`
          }
        }
      })

    // Claim: exactly one worker moves the run from queued to running; one run of a monitor at a time.
    const claimed = yield* sql.withTransaction(Effect.gen(function*() {
      const [run] = yield* sql<Record<string, unknown> & { id: string; monitor_id: string; status: string; trigger: string }>`
        SELECT * FROM monitor_runs WHERE id = ${runId} FOR UPDATE`
      const lapsed = run !== undefined && run.status === "running" && run.started_at !== null &&
        new Date(run.started_at as Date | string).getTime() < startedAt.getTime() - RUN_LEASE_MS
      if (run === undefined || (run.status !== "queued" && !lapsed)) return undefined
      const [monitor] = yield* sql<Views.MonitorRow>`SELECT * FROM monitors WHERE id = ${run.monitor_id} FOR UPDATE`
      if (monitor === undefined) {
        yield* sql`DELETE FROM monitor_runs WHERE id = ${runId}`
        return undefined
      }
      if (monitor.status === "paused") {
        yield* finishSkip(run, monitor, "monitor_paused")
        return undefined
      }
      // A run running past its lease is not waited for: its worker died (its job's retry runs it again).
      const busy = yield* sql`SELECT id FROM monitor_runs WHERE monitor_id = ${monitor.id} AND status = 'running' AND id <> ${runId}
        AND started_at >= ${new Date(startedAt.getTime() - RUN_LEASE_MS)}`
      if (busy.length > 0) {
        yield* finishSkip(run, monitor, "superseded")
        return undefined
      }
      const target = json<Target>(monitor.target)
      const detection = json<Detection>(monitor.change_detection)
      const baseline = json<Record<string, unknown> | null>(monitor.baseline) ?? null
      yield* sql`UPDATE monitor_runs SET ${sql.update({
        status: "running",
        started_at: startedAt,
        run_type: baseline === null ? "baseline" : "scheduled",
        target_type: target.type,
        change_detection_type: detection.type,
        baseline_version: Number(monitor.baseline_version)
      })} WHERE id = ${runId}`
      return { run, monitor, target, detection, baseline }
    }))
    if (claimed === undefined) return
    const { detection, monitor, run, target } = claimed
    const cost = costOf(target, detection)

    const hold = yield* Effect.either(charges.hold(monitor.org_id, cost, { ttlMs: 20 * 60_000 }).pipe(Effect.sandbox))
    if (Either.isLeft(hold)) {
      const failure = Cause.failureOption(hold.left)
      if (Option.isSome(failure) && failure.value._tag === "InsufficientCredits") {
        yield* sql.withTransaction(finishSkip(run, monitor, "insufficient_credits"))
      } else {
        // The credit system itself failed (or the organization is gone): the run fails, it never stays running.
        yield* Effect.logWarning(`monitor run ${runId}: credits could not be reserved`, hold.left)
        yield* recordFailure(runId, monitor.id, { code: "INTERNAL_ERROR", message: "credits could not be reserved; the next run tries again" }, startedAt)
      }
      return
    }

    // A defect while observing (a bug, not the site) still ends the run as failed, with its credits released.
    const outcome = yield* Effect.either(observeAndCompare(target, detection, claimed.baseline, startedAt.toISOString()).pipe(
      Effect.catchAllDefect((defect) =>
        Effect.zipRight(
          Effect.logError(`monitor run ${runId} failed unexpectedly`, defect),
          Effect.fail(new ObservationFailed({ code: "INTERNAL_ERROR", detail: "the run failed unexpectedly; the next run tries again" }))
        ))
    ))
    const completedAt = new Date(yield* Clock.currentTimeMillis)
    if (Either.isLeft(outcome)) {
      yield* Effect.ignore(charges.release(hold.right))
      const error = outcome.left instanceof ObservationFailed
        ? { code: outcome.left.code, message: outcome.left.detail }
        : { code: "INTERNAL_ERROR", message: "the run failed unexpectedly" }
      yield* recordFailure(runId, monitor.id, error, completedAt)
      return
    }

    const delivered = yield* sql.withTransaction(Effect.gen(function*() {
      const [current] = yield* sql<Views.MonitorRow>`SELECT * FROM monitors WHERE id = ${monitor.id} FOR UPDATE`
      // Deleted, or its target or detection changed while this run observed the old one: nothing of it is kept.
      if (current === undefined || Number(current.baseline_version) !== Number(monitor.baseline_version)) {
        yield* sql`UPDATE monitor_runs SET status = 'skipped', skip_reason = 'superseded', completed_at = ${completedAt} WHERE id = ${runId}`
        return false
      }
      const { baseline, baselineCreated, change } = outcome.right
      const changeId = change === undefined ? null : Ids.id("chg_")
      const tags = (current.tags ?? []) as Array<string>
      const record = change === undefined ? null : {
        id: changeId,
        monitor_id: current.id,
        run_id: runId,
        mode: "web",
        target_type: target.type,
        change_detection_type: detection.type,
        detected_at: completedAt.toISOString(),
        url: target.url,
        tags,
        ...change
      }
      if (record !== null) {
        yield* sql`INSERT INTO monitor_changes ${sql.insert({
          id: changeId,
          monitor_id: current.id,
          org_id: current.org_id,
          run_id: runId,
          target_type: target.type,
          change_detection_type: detection.type,
          tags,
          detected_at: completedAt,
          record: JSON.stringify(record)
        })}`
      }
      const [completed] = yield* sql<Record<string, unknown>>`UPDATE monitor_runs SET ${sql.update({
        status: "completed",
        completed_at: completedAt,
        baseline_created: baselineCreated,
        change_detected: record !== null,
        change_id: changeId,
        credits_charged: cost
      })} WHERE id = ${runId} RETURNING *`
      yield* sql`UPDATE monitors SET ${sql.update({
        baseline: JSON.stringify(baseline),
        last_run_at: completedAt,
        ...(record === null ? {} : { last_change_at: completedAt }),
        last_error: null,
        consecutive_failures: 0,
        consecutive_credit_skips: 0,
        ...(current.status === "failed" ? { status: "active" } : {})
      })} WHERE id = ${current.id}`
      const webhook = Views.webhookOf(current)
      const ids = yield* events.emit({
        monitor: {
          id: current.id,
          name: String(current.name),
          tags,
          webhook: webhook === null ? null : { url: webhook.url, events: webhook.events, retry: Views.retrySettingOf(webhook) }
        },
        run: Views.runView(completed!) as { id: string } & Record<string, unknown>,
        change: record
      })
      if (ids.length > 0) yield* sql`UPDATE monitor_runs SET webhook_delivery_ids = ${toTextArray(ids)}::text[] WHERE id = ${runId}`
      return true
    }))
    if (delivered) {
      yield* charges.charge(hold.right, { credits: cost, runId })
    } else {
      yield* Effect.ignore(charges.release(hold.right))
    }
  })

// A text[] literal for ids (base62 and underscores only: nothing to quote).
const toTextArray = (ids: ReadonlyArray<string>) => `{${ids.join(",")}}`

/** Records a failed run and moves the monitor through the status machine (failed; paused after 5 in a row). */
export const recordFailure = (runId: string, monitorId: string, error: { readonly code: string; readonly message: string }, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.gen(function*() {
      yield* sql`UPDATE monitor_runs SET ${sql.update({ status: "failed", completed_at: at, error: JSON.stringify(error) })} WHERE id = ${runId}`
      const [m] = yield* sql<{ consecutive_failures: number; status: string }>`
        UPDATE monitors SET consecutive_failures = consecutive_failures + 1, last_error = ${JSON.stringify(error)}, last_run_at = ${at},
          status = CASE WHEN status = 'paused' THEN 'paused' ELSE 'failed' END
        WHERE id = ${monitorId} RETURNING consecutive_failures, status`
      if (m !== undefined && m.consecutive_failures >= FAILURES_BEFORE_PAUSE && m.status !== "paused") {
        yield* sql`UPDATE monitors SET status = 'paused', updated_at = ${at} WHERE id = ${monitorId}`
      }
    })))
