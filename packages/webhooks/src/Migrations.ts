/**
 * The webhooks package's tables (secrets, deliveries, attempts, failures, retry keys), registered under the `webhooks`
 * key of the store's migrations. Databases made before this package have them from `monitors/0002_webhooks`; the
 * migration is written to find them there and change nothing.
 *
 * @since 0.1.0
 */
import { deliveryTimes, migration } from "./internal/durable.js"

/** The webhooks package's migrations. */
export const migrations = {
  "0001_webhooks": migration,
  "0002_delivery_times": deliveryTimes
}
