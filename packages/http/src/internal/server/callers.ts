/**
 * Who made a request, for its access log line: the request pipeline notes the organization and key once it has
 * authenticated the request, and the listener's access log reads them when it writes the line. Keyed weakly by the
 * request object, so nothing outlives the request.
 */

/** The organization and key of an authenticated request. */
export interface Caller {
  readonly orgId: string
  readonly keyId: string
}

const callers = new WeakMap<object, Caller>()

/** Notes the caller of `request` (the pipeline, after authentication). */
export const note = (request: object, orgId: string, keyId: string): void => {
  callers.set(request, { orgId, keyId })
}

/** The caller noted for `request`, if it was authenticated. */
export const of = (request: object): Caller | undefined => callers.get(request)
