/**
 * Permissions of API keys (decisions §1): which operation needs which, and the rule that a group's `:write` grants its
 * `:read`; a key with no list has all.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { AuthContext } from "./ApiKeys.js"
import { InsufficientPermissions } from "./AuthErrors.js"

/** Every permission. */
export const all = [
  "logs:read",
  "data:execute",
  "monitors:read",
  "monitors:write",
  "batches:read",
  "batches:write",
  "webdbs:read",
  "webdbs:write"
] as const
/** A permission. */
export type Permission = typeof all[number]

// Runs on every request: no allocation.
const under = (path: string, prefix: string) =>
  path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 47 /* "/" */)
const DATA_PREFIXES = ["/web", "/parse", "/brand", "/news", "/people", "/utility"]

/** The permission an operation needs; `path` is without the `/v1` prefix. Undefined for routes that need none. */
export const requiredFor = (method: string, path: string): Permission | undefined => {
  const read = method === "GET" || method === "HEAD"
  for (const prefix of DATA_PREFIXES) if (under(path, prefix)) return "data:execute"
  if (under(path, "/logs")) return "logs:read"
  if (under(path, "/monitors")) return read ? "monitors:read" : "monitors:write"
  if (under(path, "/webhooks/deliveries")) {
    // Listing deliveries is a POST with a filter body; only retries change anything.
    return read || path === "/webhooks/deliveries" ? "monitors:read" : path.endsWith("/retry") ? "monitors:write" : "monitors:read"
  }
  if (under(path, "/batch")) return read ? "batches:read" : "batches:write"
  return undefined
}

/** Whether the caller holds a permission. */
export const has = (context: Pick<AuthContext, "permissions">, permission: Permission): boolean =>
  context.permissions === null ||
  context.permissions.includes(permission) ||
  (permission.endsWith(":read") && context.permissions.includes(permission.replace(/:read$/, ":write")))

/** Fails with `INSUFFICIENT_PERMISSIONS` unless the caller holds the permission. */
export const check = (context: Pick<AuthContext, "permissions">, permission: Permission): Effect.Effect<void, InsufficientPermissions> =>
  has(context, permission) ? Effect.void : Effect.fail(new InsufficientPermissions({ required: permission }))
