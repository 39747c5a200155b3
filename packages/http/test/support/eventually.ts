/** Polls `check` until it returns a value (not undefined), for up to `ms`. */
export const eventually = async <A>(check: () => Promise<A | undefined>, ms = 30_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error("condition not reached in time")
    await new Promise((r) => setTimeout(r, 150))
  }
}
