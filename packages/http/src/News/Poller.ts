/**
 * Publisher feeds (`SIFT_NEWS_FEEDS`: URLs separated by commas or whitespace, or the path of an OPML file) polled as
 * durable pg-boss jobs (queue {@link QUEUE}, one job per feed, on the same database) into the article table. At start
 * and then every `SIFT_NEWS_POLL_MS` (default 15 minutes) each feed is queued under its own singleton key, so a feed
 * waiting in the queue is not queued twice and a restart resumes the queued polls. pg-boss starts in the background,
 * so serving never waits for it.
 *
 * @since 0.1.0
 */
import * as News from "@sift/core/News"
import { JobQueue } from "@sift/store"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Config, Effect, Layer, Schedule, Scope } from "effect"
import { existsSync, readFileSync } from "node:fs"
import * as Store from "./Store.js"

/** The pg-boss queue of feed polls. */
export const QUEUE = "news-poll"

const sendOptions = (url: string): JobQueue.SendOptions => ({ retryLimit: 2, retryDelay: 30, retryBackoff: true, expireInSeconds: 300, singletonKey: url })

/** The publisher feeds of `SIFT_NEWS_FEEDS`: a list of URLs, or an OPML file's feeds (at most 8 MiB read). */
export const feedsOf = (setting: string): Array<string> => {
  const value = setting.trim()
  if (value === "") return []
  if (!/^https?:\/\//i.test(value) && existsSync(value)) {
    const text = readFileSync(value, "utf8")
    if (text.length > 8 * 1024 * 1024) throw new Error(`SIFT_NEWS_FEEDS: ${value} is over 8 MiB`)
    return News.opmlFeeds(text)
  }
  return value.split(/[\s,]+/).filter((url) => /^https?:\/\/\S+$/i.test(url))
}

/** The source of a publisher feed: named by its feed's title, its domain the feed's host. */
export const publisherSource = (url: string): News.FeedSource => ({
  domain: new URL(url).hostname.replace(/^www\./, ""),
  name: "",
  direct: false,
  type: "editorial"
})

/** Polls one publisher feed into the store and records how it went. */
export const pollFeed = (url: string): Effect.Effect<number, never, News.NewsSource | SqlClient.SqlClient> =>
  Effect.flatMap(News.NewsSource, (source) => source.readFeed(url, publisherSource(url))).pipe(
    Effect.flatMap((articles) => Store.store(articles, url, "")),
    Effect.tap((articles) => Store.recordPoll(url, "publisher", "", { ok: true, articles })),
    Effect.catchAll((error) =>
      Effect.as(
        Effect.zipRight(Effect.logWarning(`news feed ${url}: ${error.message}`), Store.recordPoll(url, "publisher", "", { ok: false, error: error.message.slice(0, 500) })),
        0
      )),
    Effect.orDie
  )

/** One cycle over `feeds` in this process (`concurrency` at once): how many new articles it stored. */
export const pollCycle = (feeds: ReadonlyArray<string>, concurrency = 16) =>
  Effect.map(Effect.forEach(feeds, pollFeed, { concurrency }), (counts) => counts.reduce((a, b) => a + b, 0))

/** The poller's settings. */
export const settings = Config.all({
  feeds: Config.string("SIFT_NEWS_FEEDS").pipe(Config.withDefault("")),
  pollMs: Config.integer("SIFT_NEWS_POLL_MS").pipe(Config.withDefault(900_000), Config.validate({ message: "at least 10000", validation: (n) => n >= 10_000 }))
})

/** The feed poller for the layer's lifetime (nothing when no feed is configured). @category layers */
export const layer: Layer.Layer<never, never, News.NewsSource | SqlClient.SqlClient | JobQueue.JobQueue> = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* Effect.orDie(settings)
    const feeds = feedsOf(config.feeds)
    if (feeds.length === 0) return
    const scope = yield* Effect.scope
    const context = yield* Effect.context<News.NewsSource | SqlClient.SqlClient | JobQueue.JobQueue>()
    const start = Effect.gen(function*() {
      const jobs = yield* JobQueue.JobQueue
      yield* jobs.work(QUEUE, (job) => {
        const { url } = job.data as { url?: unknown }
        return typeof url === "string" ? Effect.asVoid(pollFeed(url)) : Effect.void
      }, { concurrency: 4, pollingIntervalSeconds: 1 })
      const queueAll = Effect.forEach(feeds, (url) => Effect.ignore(jobs.send(QUEUE, { url }, sendOptions(url))), { discard: true })
      yield* Effect.forkIn(Effect.repeat(queueAll, Schedule.spaced(config.pollMs)), scope)
    }).pipe(
      Scope.extend(scope),
      Effect.provide(context),
      Effect.catchAllCause((cause) => Effect.logWarning("news polling is off: the job queue did not start", cause))
    )
    yield* Effect.forkIn(start, scope)
  })
)
