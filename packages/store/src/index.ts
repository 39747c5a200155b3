/**
 * `@sift/store`: persistence for Sift. One SQL client over embedded PGlite or PostgreSQL, per-package migrations,
 * durable jobs through pg-boss, blobs, and the data-directory lock.
 *
 * @since 0.1.0
 */

/** Embedded PGlite as an `@effect/sql` client. */
export * as PgliteClient from "./PgliteClient.js"

/** The backend choice (`layerConfig`) and the `Database` service. */
export * as Sql from "./Sql.js"

/** Per-package schema migrations. */
export * as Migrations from "./Migrations.js"

/** Bytes by key. */
export * as BlobStore from "./BlobStore.js"

/** Durable jobs through pg-boss. */
export * as JobQueue from "./JobQueue.js"

/** The lock that keeps two processes off one data directory. */
export * as DataDirLock from "./DataDirLock.js"

/** Core's `Cache` over the store's database. */
export * as CacheStore from "./CacheStore.js"

/** Core's `UrlIndex` over the store's database, with leases for background enrichment. */
export * as UrlIndexStore from "./UrlIndexStore.js"

/** Group commit: items from many fibers written in one transaction, each caller resumed once its item is durable. */
export * as GroupCommit from "./GroupCommit.js"

/** A redo journal in the data directory: records written before an answer is sent, the database written behind. */
export * as Journal from "./Journal.js"

/** Write-behind buffers: items offered on a request's path, written in batches, none lost at shutdown. */
export * as WriteBehind from "./WriteBehind.js"

/** Outgoing email, recorded in the outbox table. */
export * as Mailer from "./Mailer.js"
