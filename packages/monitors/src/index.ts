/**
 * @sift/monitors: monitors that watch a page, a sitemap or extracted data on a schedule, detect changes and send
 * their events through `@sift/webhooks`. The embedding service provides `MonitorCharge` and `FailureRecipients`.
 *
 * @since 0.1.0
 */
export * as ChangeDetection from "./ChangeDetection.js"
export * as FailureRecipients from "./FailureRecipients.js"
export * as MonitorCharge from "./MonitorCharge.js"
export * as MonitorErrors from "./MonitorErrors.js"
export * as Monitors from "./Monitors.js"
export * as MonitorScheduler from "./MonitorScheduler.js"
export * as MonitorService from "./MonitorService.js"
export * as MonitorSpec from "./MonitorSpec.js"
export { migrations } from "./Migrations.js"
export * as Webhooks from "./Webhooks.js"
