/**
 * Runs conversions or fetches one after another in a process of its own and prints, as one JSON line, how each ended
 * and the process's peak RSS after it, over its resident size before the first: a bomb's cost is measured exactly,
 * apart from the test runner's memory. The peak only grows, so each job's figure bounds it and every job before it.
 * Started by `bombRunner.ts`: `node --expose-gc --import tsx bombChild.ts '<jobs as JSON>'`.
 */
import { Cause, Effect, Exit, Option } from "effect"
import { readFileSync } from "node:fs"
import * as Fetcher from "../../../src/Fetcher.js"
import { pdfjs } from "../../../src/internal/convert/pdf/pdfjs.js"
import * as ParseDocument from "../../../src/ParseDocument.js"
import type { BombJob } from "./bombRunner.js"

const jobs = JSON.parse(process.argv[2]!) as ReadonlyArray<BombJob>

const call = (job: BombJob): Effect.Effect<unknown, { readonly errorCode: string; readonly message: string }> =>
  job.kind === "parse"
    ? Effect.suspend(() =>
      ParseDocument.parse({ bytes: new Uint8Array(readFileSync(job.file)), filename: job.filename, ...job.options })
    )
    : Effect.scoped(Effect.flatMap(Fetcher.Fetcher, (fetcher) => fetcher.fetch({ url: job.url }))).pipe(
      Effect.provide(Fetcher.layer({ allowPrivateTargets: true }))
    )

// Loaded before the baseline: a library's own code is not what a bomb costs.
await pdfjs()
;(globalThis as { gc?: () => void }).gc?.()
const baseline = process.memoryUsage().rss
const reports = []
for (const job of jobs) {
  const started = Date.now()
  const exit = await Effect.runPromiseExit(call(job))
  const peak = process.resourceUsage().maxRSS * 1024
  const failure = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
  reports.push({
    ok: Exit.isSuccess(exit),
    errorCode: failure?.errorCode,
    message: failure?.message ?? (Exit.isFailure(exit) ? Cause.pretty(exit.cause) : undefined),
    markdown: Exit.isSuccess(exit) && job.kind === "parse" ? (exit.value as ParseDocument.Parsed).markdown.slice(0, 2000) : undefined,
    baseline,
    peak,
    growth: peak - baseline,
    ms: Date.now() - started
  })
}
console.log(JSON.stringify(reports))
