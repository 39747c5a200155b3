/**
 * Permissions (decisions §1): the permission every route needs, the `:write` grants `:read` rule, and the check on a
 * key's context as authentication gives it (from the database of either backend).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Auth from "../src/index.js"
import { backends, codeOf, layerFor, title, unique } from "./support/database.js"

const { all, check, has, requiredFor } = Auth.Permissions
type Permission = Auth.Permissions.Permission

// Every route the service answers (App.ts, Monitors/Http.ts) and every one the contract names, without `/v1`.
const ROUTES: ReadonlyArray<readonly [method: string, path: string, required: Permission | undefined]> = [
  ["POST", "/web/scrape", "data:execute"],
  ["GET", "/web/scrape/markdown", "data:execute"],
  ["GET", "/web/scrape/html", "data:execute"],
  ["GET", "/web/scrape/bytes", "data:execute"],
  ["GET", "/web/scrape/images", "data:execute"],
  ["GET", "/web/scrape/screenshot", "data:execute"],
  ["GET", "/web/screenshot", "data:execute"],
  ["GET", "/web/urls", "data:execute"],
  ["GET", "/web/scrape/sitemap", "data:execute"],
  ["GET", "/web/naics", "data:execute"],
  ["GET", "/web/crawl", "data:execute"],
  ["GET", "/web/styleguide", "data:execute"],
  ["GET", "/web/search", "data:execute"],
  ["POST", "/parse", "data:execute"],
  ["POST", "/brand/retrieve", "data:execute"],
  ["GET", "/brand/search", "data:execute"],
  ["POST", "/brand/ai/product", "data:execute"],
  ["POST", "/brand/ai/products", "data:execute"],
  ["POST", "/news/search", "data:execute"],
  ["POST", "/people/enrich", "data:execute"],
  ["POST", "/utility/prefetch", "data:execute"],
  ["GET", "/logs", "logs:read"],
  ["GET", "/logs/req_123", "logs:read"],
  ["GET", "/monitors", "monitors:read"],
  ["POST", "/monitors", "monitors:write"],
  ["GET", "/monitors/limits", "monitors:read"],
  ["GET", "/monitors/credit-usage", "monitors:read"],
  ["GET", "/monitors/changes", "monitors:read"],
  ["GET", "/monitors/changes/chg_1", "monitors:read"],
  ["GET", "/monitors/mon_1", "monitors:read"],
  ["PATCH", "/monitors/mon_1", "monitors:write"],
  ["DELETE", "/monitors/mon_1", "monitors:write"],
  ["POST", "/monitors/mon_1/run", "monitors:write"],
  ["GET", "/monitors/mon_1/runs", "monitors:read"],
  ["GET", "/monitors/mon_1/runs/run_1", "monitors:read"],
  ["GET", "/monitors/mon_1/changes", "monitors:read"],
  ["POST", "/monitors/mon_1/webhook/rotate-secret", "monitors:write"],
  // Listing deliveries is a POST with a filter body: a read.
  ["POST", "/webhooks/deliveries", "monitors:read"],
  ["GET", "/webhooks/deliveries/whd_1", "monitors:read"],
  ["GET", "/webhooks/deliveries/whd_1/attempts", "monitors:read"],
  ["POST", "/webhooks/deliveries/whd_1/retry", "monitors:write"],
  ["POST", "/batch/submit", "batches:write"],
  ["GET", "/batch/list", "batches:read"],
  ["GET", "/batch/bat_1", "batches:read"],
  ["GET", "/batch/bat_1/results", "batches:read"],
  ["POST", "/batch/bat_1/cancel", "batches:write"],
  ["DELETE", "/batch/bat_1", "batches:write"],
  // HEAD reads like GET.
  ["HEAD", "/monitors/mon_1", "monitors:read"],
  // Routes that need no permission (the document; hosted files are capabilities of their own).
  ["GET", "/openapi.json", undefined],
  ["GET", "/files/file_x", undefined],
  // A prefix is a whole path segment: these are none of the groups above.
  ["GET", "/website", undefined],
  ["GET", "/logsearch", undefined],
  ["GET", "/monitorsx", undefined],
  ["POST", "/batches", undefined],
  ["GET", "/parser", undefined]
]

describe("permissions", () => {
  it("requiredFor: every route of the service and of the contract", () => {
    const wrong = ROUTES.filter(([method, path, required]) => requiredFor(method, path) !== required)
      .map(([method, path, required]) => `${method} ${path}: ${requiredFor(method, path)} (expected ${required})`)
    expect(wrong).toEqual([])
  })

  it("a group's :write grants its :read, never the reverse; data:execute and logs:read come only from themselves", () => {
    for (const permission of all) {
      const granted = all.filter((p) => has({ permissions: [permission] }, p))
      const [group, level] = permission.split(":")
      expect(granted).toEqual(level === "write" ? [`${group}:read`, permission] : [permission])
    }
    expect(has({ permissions: null }, "webdbs:write")).toBe(true)
    expect(all.filter((p) => has({ permissions: [] }, p))).toEqual([])
    expect(all.filter((p) => has({ permissions: ["monitors:write", "logs:read"] }, p))).toEqual(["logs:read", "monitors:read", "monitors:write"])
  })

  it.effect("check fails with INSUFFICIENT_PERMISSIONS naming the permission", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(check({ permissions: ["monitors:read"] }, "monitors:write"))
      expect(codeOf(refused)).toBe("INSUFFICIENT_PERMISSIONS")
      expect(refused.required).toBe("monitors:write")
      yield* check({ permissions: ["monitors:write"] }, "monitors:read")
    }))
})

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`permissions of authenticated keys (${title(backend)})`, () => {
    it.layer(layerFor(backend), { timeout: 60_000 })((it) => {
      it.effect("a key's stored list decides every route: allowed exactly where the list (or its :write) holds", () =>
        Effect.gen(function*() {
          const accounts = yield* Auth.Accounts.Accounts
          const keys = yield* Auth.ApiKeys.ApiKeys
          const org = yield* accounts.createOrg({ name: `org-${unique()}`, plan: "scale" })
          const lists: ReadonlyArray<ReadonlyArray<Permission> | undefined> = [undefined, [], ["data:execute"], ["monitors:read"], ["monitors:write", "batches:read"], [...all]]
          for (const list of lists) {
            const { secret } = yield* keys.create({ orgId: org.id, name: "p", permissions: list })
            const context = yield* keys.authenticate(secret)
            for (const [method, path, required] of ROUTES) {
              if (required === undefined) continue
              const allowed = (yield* Effect.either(check(context, required)))._tag === "Right"
              const expected = list === undefined || list.includes(required) ||
                (required.endsWith(":read") && list.includes(required.replace(/:read$/, ":write") as Permission))
              expect([method, path, list, allowed]).toEqual([method, path, list, expected])
            }
          }
        }))
    })
  })
}
