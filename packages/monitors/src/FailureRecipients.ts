/**
 * Who is emailed when a monitor's webhook deliveries keep failing: the addresses of its organization. Declared here so
 * monitors need no accounts of their own; the service (`@sift/http`) provides it from the auth package's users.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"

/**
 * The failure-email recipients of organizations.
 *
 * @category services
 */
export class FailureRecipients extends Context.Tag("@sift/monitors/FailureRecipients")<FailureRecipients, {
  /** The email addresses of an organization's users (empty when it has none). */
  readonly of: (orgId: string) => Effect.Effect<ReadonlyArray<string>>
}>() {}
