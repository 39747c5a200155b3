/**
 * @sift/monitors: scheduled change detection and signed, retried webhooks. So far the webhook side: events, signing,
 * retries, durable deliveries and failure emails (`Webhooks`); monitors themselves and their scheduler come next.
 *
 * @since 0.1.0
 */
export * as Webhooks from "./Webhooks.js"
