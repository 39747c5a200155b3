/**
 * A batch row as the API shows it (wave2 §1.2–1.6): the retrieve object, the list item, the submit and cancel
 * answers. Pure functions of the stored row and its files.
 */

/** A `batches` row. */
export interface BatchRow {
  readonly id: string
  readonly org_id: string
  readonly key_id: string | null
  readonly status: Status
  readonly mode: "scrape" | "crawl"
  readonly format: "markdown" | "html"
  readonly source: unknown
  readonly options: unknown
  readonly crawl: unknown
  readonly intake: Intake
  readonly invalid_urls: ReadonlyArray<{ readonly url: string; readonly reason: string }>
  readonly tags: ReadonlyArray<string>
  readonly webhook: unknown
  readonly credits_reserved: number
  readonly credits_refunded: number
  readonly ocr_charged: number
  readonly pages: number
  readonly succeeded: number
  readonly failed: number
  readonly skipped: number
  readonly page_errors: Readonly<Record<string, number>>
  readonly failure: { readonly code: string; readonly message: string } | null
  readonly created_at: Date
  readonly started_at: Date | null
  readonly completed_at: Date | null
  readonly results_expire_at: Date | null
  readonly results_deleted: boolean
  readonly webhook_delivery_id: string | null
  readonly file_origin?: string | null
}

/** A `batch_files` row. */
export interface FileRow {
  readonly id: string
  readonly part: number
  readonly items: number
  readonly bytes: number
}

/** The URL of a batch file by its id, given the origin of the request that submitted the batch (null: unknown). */
export type FileUrl = (id: string, origin: string | null) => string

/** The six states; the last three are final. */
export type Status = "queued" | "running" | "cancelling" | "completed" | "cancelled" | "failed"

/** Whether a status is final. */
export const isFinal = (status: Status): boolean => status === "completed" || status === "cancelled" || status === "failed"

/** `input` of the API (wave2 §1.2 `Intake`). */
export interface Intake {
  readonly duplicates: number
  readonly invalid: number | null
  readonly reserved: number
  readonly reserved_is_ceiling: boolean
  readonly submitted: number | null
}

const iso = (date: Date | null): string | null => date === null ? null : new Date(date).toISOString()

/** Page errors grouped by code, most frequent first (then by code, for a stable order). */
export const pageErrors = (row: BatchRow): Array<{ code: string; count: number }> =>
  Object.entries(row.page_errors ?? {})
    .map(([code, count]) => ({ code, count: Number(count) }))
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code))

/** `progress`: a crawl that follows links reports 0 pending once final (its reservation was a ceiling). */
export const progress = (row: BatchRow) => {
  const pending = Math.max(0, row.pages - row.succeeded - row.failed - row.skipped)
  return {
    failed: row.failed,
    pending: isFinal(row.status) && row.intake.reserved_is_ceiling ? 0 : pending,
    succeeded: row.succeeded
  }
}

/** `credits` of the retrieve object. */
export const credits = (row: BatchRow) => ({
  net: row.credits_reserved - row.credits_refunded + row.ocr_charged,
  ocr_charged: row.ocr_charged,
  refunded: row.credits_refunded,
  reserved: row.credits_reserved
})

/** The list item: the retrieve object without `invalid_urls`, `request_id`, `key_metadata`, `webhook_delivery_id`. */
export const summary = (row: BatchRow, files: ReadonlyArray<FileRow>, fileUrl: FileUrl) => ({
  id: row.id,
  crawl: row.crawl ?? null,
  credits: credits(row),
  failure: row.failure ?? null,
  format: row.format,
  input: row.intake,
  mode: row.mode,
  page_errors: pageErrors(row),
  progress: progress(row),
  results: isFinal(row.status) && !row.results_deleted && row.results_expire_at !== null
    ? {
      expires_at: iso(row.results_expire_at),
      files: files.map((file) => ({ bytes: file.bytes, items: file.items, url: fileUrl(file.id, row.file_origin ?? null) }))
    }
    : null,
  status: row.status,
  tags: row.tags,
  timing: { completed_at: iso(row.completed_at), created_at: iso(row.created_at), started_at: iso(row.started_at) }
})

/** The retrieve object (`GET /batch/{id}`) without `request_id`. */
export const retrieve = (row: BatchRow, files: ReadonlyArray<FileRow>, fileUrl: FileUrl) => ({
  ...summary(row, files, fileUrl),
  invalid_urls: row.invalid_urls,
  ...(row.webhook_delivery_id === null ? {} : { webhook_delivery_id: row.webhook_delivery_id })
})

/** The submit answer (`POST /batch/submit`) without `request_id`; `webhookSecret` only when just made. */
export const submitted = (row: BatchRow, webhookSecret: string | undefined) => ({
  id: row.id,
  cache_metadata: { age_ms: 0, status: "miss" as const },
  crawl: row.crawl ?? null,
  created_at: iso(row.created_at),
  credits: { reserved: row.credits_reserved },
  format: row.format,
  input: row.intake,
  invalid_urls: row.invalid_urls,
  mode: row.mode,
  status: "queued" as const,
  tags: row.tags,
  ...(webhookSecret === undefined ? {} : { webhook_secret: webhookSecret })
})

/** The cancel answer (`POST /batch/{id}/cancel`) without `request_id`. */
export const cancelling = (row: BatchRow) => ({
  id: row.id,
  crawl: row.crawl ?? null,
  credits: { reserved: row.credits_reserved },
  format: row.format,
  input: row.intake,
  mode: row.mode,
  page_errors: pageErrors(row),
  progress: progress(row),
  status: "cancelling" as const,
  tags: row.tags,
  timing: { created_at: iso(row.created_at), started_at: iso(row.started_at) }
})
