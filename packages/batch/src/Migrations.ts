/**
 * The batch package's tables, registered under the `batch` key of the store's migrations.
 *
 * - `batches`: one row per batch, its settings as submitted (JSON in wire shape where the API shows them), its state,
 *   counters kept in the same statement as each page's record, and its credits.
 * - `batch_pages`: every page of a batch, listed at submission (a scrape) or as a crawl discovers it; `seq` is the
 *   stable order of results. A page's record is written once, by the statement that moves it out of `pending`, and
 *   (batch, URL key, itemId) is unique, so a page can neither be lost nor doubled, whatever crashes and retries.
 * - `batch_files`: the NDJSON parts of a settled batch (contents in the BlobStore); the id is the capability.
 * - `batch_idempotency`: `Idempotency-Key`s per organization, kept 24 hours.
 * - `0002_file_origin`: the origin of the submitting request, for file URLs when no public URL is configured.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/** The batch package's migrations. */
export const migrations = {
  "0001_batches": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE TABLE batches (
      id text PRIMARY KEY,
      org_id text NOT NULL,
      key_id text,
      status text NOT NULL,
      mode text NOT NULL,
      format text NOT NULL,
      source jsonb NOT NULL,
      options jsonb NOT NULL,
      crawl jsonb,
      intake jsonb NOT NULL,
      invalid_urls jsonb NOT NULL,
      tags text[] NOT NULL DEFAULT '{}',
      search_text text NOT NULL DEFAULT '',
      webhook jsonb,
      credits_reserved integer NOT NULL,
      credits_refunded integer NOT NULL DEFAULT 0,
      ocr_charged integer NOT NULL DEFAULT 0,
      pages integer NOT NULL DEFAULT 0,
      succeeded integer NOT NULL DEFAULT 0,
      failed integer NOT NULL DEFAULT 0,
      skipped integer NOT NULL DEFAULT 0,
      page_errors jsonb NOT NULL DEFAULT '{}',
      failure jsonb,
      lease_owner text,
      lease_until timestamptz,
      created_at timestamptz NOT NULL,
      started_at timestamptz,
      completed_at timestamptz,
      results_expire_at timestamptz,
      results_deleted boolean NOT NULL DEFAULT false,
      webhook_delivery_id text
    );
    CREATE INDEX batches_org ON batches (org_id, created_at DESC, id DESC);
    CREATE INDEX batches_active ON batches (org_id) WHERE status IN ('queued', 'running', 'cancelling');
    CREATE INDEX batches_expiring ON batches (results_expire_at) WHERE results_expire_at IS NOT NULL AND NOT results_deleted;
    CREATE TABLE batch_pages (
      batch_id text NOT NULL,
      seq integer NOT NULL,
      url text NOT NULL,
      url_key text NOT NULL,
      item_id text,
      meta jsonb,
      depth integer NOT NULL DEFAULT 0,
      state text NOT NULL,
      record jsonb,
      ocr_pages integer NOT NULL DEFAULT 0,
      PRIMARY KEY (batch_id, seq)
    );
    CREATE UNIQUE INDEX batch_pages_key ON batch_pages (batch_id, url_key, (coalesce(item_id, '')));
    CREATE INDEX batch_pages_pending ON batch_pages (batch_id, seq) WHERE state = 'pending';
    CREATE TABLE batch_files (
      id text PRIMARY KEY,
      batch_id text NOT NULL,
      part integer NOT NULL,
      items integer NOT NULL,
      bytes integer NOT NULL,
      expires_at timestamptz NOT NULL,
      UNIQUE (batch_id, part)
    );
    CREATE TABLE batch_idempotency (
      org_id text NOT NULL,
      key text NOT NULL,
      body_hash text NOT NULL,
      batch_id text NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (org_id, key)
    )`.unprepared),
  // The origin of the request that submitted a batch: its file URLs are made with it unless SIFT_PUBLIC_URL is set.
  "0002_file_origin": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE batches ADD COLUMN file_origin text`.unprepared)
}
