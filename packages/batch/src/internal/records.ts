/**
 * A page's result record (wave2 §1.5: `Ok | Error`), as `GET /batch/{id}/results` pages it and each NDJSON line holds
 * it. Made once, when the page is read, and stored as is: the JSON page and the files can never disagree.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import type { Crawler } from "@sift/core"

/** What was given with a page's URL. */
export interface PageIdentity {
  readonly url: string
  readonly itemId: string | null
  readonly meta: unknown
}

/** A stored record. */
export type PageRecord = Record<string, unknown> & { readonly status: "ok" | "error" }

const given = (page: PageIdentity) => ({
  ...(page.itemId === null ? {} : { itemId: page.itemId }),
  ...(page.meta === null || page.meta === undefined ? {} : { meta: page.meta })
})

/** The record of a page that failed with `code`. */
export const failed = (page: PageIdentity, code: string, message: string): PageRecord => ({
  status: "error",
  url: page.url,
  error_code: code,
  message,
  ...given(page)
})

/** The record of a page as read; `undefined` for a skip (robots.txt), which has no record. */
export const of = (
  page: PageIdentity,
  format: "markdown" | "html",
  outcome: Crawler.PageOutcome
): PageRecord | undefined => {
  switch (outcome._tag) {
    case "Skipped":
      return outcome.reason === "pdf" ? failed(page, "PDF_SKIPPED", `${page.url} is a PDF and pdf.shouldParse is false`) : undefined
    case "Failed":
      return failed(page, outcome.error.errorCode, outcome.error.message)
    case "Scraped": {
      const result = outcome.result
      const { statusCode, contentType: _contentType, ...metadata } = result.metadata
      return {
        status: "ok",
        url: page.url,
        final_url: result.url,
        http_status: statusCode ?? null,
        cache_metadata: result.cache_metadata,
        metadata: { ...metadata, sourceUrl: page.url, finalUrl: result.url },
        ...(format === "markdown" ? { markdown: result.markdown.data ?? "" } : {}),
        ...(result.html.requested ? { html: result.html.data ?? "" } : {}),
        ...(outcome.ocrPages > 0 ? { ocr_pages: outcome.ocrPages } : {}),
        ...given(page)
      }
    }
  }
}

/**
 * The statement reading a batch's stored records after `after` (a seq), `limit` of them in order, as their JSON text.
 * The records' seqs are chosen first, alone: chosen with the records, a plan that sorts (PGlite never analyzes a table,
 * so its estimates are a fresh table's) turned every remaining record into text to keep 200 of them, and a 10,000-page
 * batch's settlement cost minutes.
 */
export const pageAfter = (sql: SqlClient.SqlClient, batchId: string, after: number, limit: number): Fragment => sql`
  SELECT p.seq, p.record::text AS record
  FROM (SELECT seq FROM batch_pages WHERE batch_id = ${batchId} AND record IS NOT NULL AND seq > ${after} ORDER BY seq LIMIT ${limit}) s
  JOIN batch_pages p ON p.batch_id = ${batchId} AND p.seq = s.seq
  ORDER BY p.seq`
