/**
 * The auth services over a freshly migrated database of one backend (PGlite in memory; PostgreSQL when the global
 * setup found one), the way the auth tests run against both.
 */
import { Migrations } from "@sift/store"
import { Effect, Layer } from "effect"
import * as Auth from "../../src/index.js"
import { backends, postgresUrl, title, unique } from "../../../store/test/support/backends.js"

export { backends, postgresUrl, title, unique }

/** One backend under test. */
export type Backend = (typeof backends)[number]

/** The backend's database with the store's and auth's migrations applied. */
export const database = (backend: Backend) =>
  Layer.tap(backend.layer(), (context) => Effect.provide(Migrations.run({ store: Migrations.store, auth: Auth.migrations }), context))

/** Every auth service over a migrated database, fresh (its own pool, its own in-memory state) each time it is built. */
export const layerFor = (backend: Backend) => Layer.fresh(Auth.layer).pipe(Layer.provideMerge(database(backend)))

/** The contract's error code of a failure (auth errors carry one; an SqlError shows as undefined and fails the test). */
export const codeOf = (error: unknown): string | undefined => (error as { readonly errorCode?: string }).errorCode
