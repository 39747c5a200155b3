/**
 * @sift/webhooks: signed, durable, retried webhook deliveries of event envelopes, used by monitors (and batches next);
 * the store behind the deliveries endpoints.
 *
 * @since 0.1.0
 */
export * as Deliveries from "./Deliveries.js"
export * as Failures from "./Failures.js"
export { migrations } from "./Migrations.js"
export * as Secrets from "./Secrets.js"
export * as Signature from "./Signature.js"
