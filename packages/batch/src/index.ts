/**
 * @sift/batch: batches that scrape up to 25,000 URLs or crawl a site as durable jobs (pg-boss on the store's database),
 * with credits reserved at submission and settled once, a record per page written exactly once, results paged as JSON
 * or downloaded as gzipped NDJSON parts, and completion events through `@sift/webhooks`. The embedding service
 * provides `BatchCredits`.
 *
 * @since 0.1.0
 */
export * as BatchCredits from "./BatchCredits.js"
export * as Batches from "./Batches.js"
export * as BatchErrors from "./BatchErrors.js"
export * as BatchRunner from "./BatchRunner.js"
export * as BatchSpec from "./BatchSpec.js"
export { migrations } from "./Migrations.js"
