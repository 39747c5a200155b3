/**
 * A per-process change counter per organization: `Accounts` bumps it on every update, so the embedded ledger knows
 * when its in-memory balance must be read again (plan change, override, reset).
 */
const versions = new Map<string, number>()

/** Records that an organization's row changed. */
export const bump = (orgId: string): void => {
  versions.set(orgId, (versions.get(orgId) ?? 0) + 1)
}

/** The organization's current change count. */
export const version = (orgId: string): number => versions.get(orgId) ?? 0
