/**
 * Plans and their limits (interface.md Limits; decisions §1, §7).
 *
 * @since 0.1.0
 */

/** The plan names. */
export const names = ["free", "hobby", "starter", "pro", "scale", "enterprise"] as const
/** A plan name. */
export type PlanName = typeof names[number]

/** What a plan allows; `undefined` means set per organization (enterprise). */
export interface Plan {
  readonly requestsPerMinute: number | undefined
  /** Credits per cycle (or once, for plans that do not renew). */
  readonly credits: number | undefined
  /** Whether the credits renew every monthly cycle (free's 500 are one-time). */
  readonly renews: boolean
  readonly monitorsLimit: number | undefined
}

/** Every plan. */
export const plans: Readonly<Record<PlanName, Plan>> = {
  free: { requestsPerMinute: 30, credits: 500, renews: false, monitorsLimit: 3 },
  hobby: { requestsPerMinute: 60, credits: 10_000, renews: true, monitorsLimit: 10 },
  starter: { requestsPerMinute: 120, credits: 30_000, renews: true, monitorsLimit: 25 },
  pro: { requestsPerMinute: 300, credits: 200_000, renews: true, monitorsLimit: 100 },
  scale: { requestsPerMinute: 800, credits: 2_500_000, renews: true, monitorsLimit: 1000 },
  enterprise: { requestsPerMinute: undefined, credits: undefined, renews: true, monitorsLimit: undefined }
}

/** The `/logs*` window: 120 requests per minute per key, whatever the plan. */
export const LOGS_REQUESTS_PER_MINUTE = 120

/** What an enterprise organization gets until its own limits are set. */
export const ENTERPRISE_DEFAULTS = { requestsPerMinute: 1_000, credits: 0, monitorsLimit: 1_000 } as const

/** Whether a string names a plan. */
export const isPlanName = (value: string): value is PlanName => (names as ReadonlyArray<string>).includes(value)
