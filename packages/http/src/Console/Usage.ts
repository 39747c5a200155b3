/**
 * Usage series of the console's overview: requests, credits, errors, 429s and cache hits per organization, hour and
 * path, in `usage_hourly`. A statement trigger on `request_logs` adds each statement's new rows, in the same
 * transaction (the group commit and the PGlite journal's replay alike; rows skipped by `ON CONFLICT` are not in the
 * transition table, so a replay never counts twice). Reading a 30-day series reads at most 720 rows per path.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/** The table, its trigger, and the counts of the rows already logged. */
export const migrationSql = `
  CREATE TABLE usage_hourly (
    org_id text NOT NULL,
    hour timestamptz NOT NULL,
    path text NOT NULL,
    requests bigint NOT NULL,
    credits bigint NOT NULL,
    errors bigint NOT NULL,
    rate_limited bigint NOT NULL,
    cache_hits bigint NOT NULL,
    PRIMARY KEY (org_id, hour, path)
  );
  CREATE FUNCTION usage_hourly_add() RETURNS trigger LANGUAGE plpgsql AS $body$
  BEGIN
    -- Ordered, so concurrent writers lock the counters in the same order (no deadlock between them).
    INSERT INTO usage_hourly AS u (org_id, hour, path, requests, credits, errors, rate_limited, cache_hits)
    SELECT org_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', path, count(*), sum(credits_used),
      count(*) FILTER (WHERE status_code >= 400), count(*) FILTER (WHERE status_code = 429),
      count(*) FILTER (WHERE response LIKE '%"cache_metadata":{"status":"hit"%')
    FROM inserted GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (org_id, hour, path) DO UPDATE SET requests = u.requests + EXCLUDED.requests,
      credits = u.credits + EXCLUDED.credits, errors = u.errors + EXCLUDED.errors,
      rate_limited = u.rate_limited + EXCLUDED.rate_limited, cache_hits = u.cache_hits + EXCLUDED.cache_hits;
    RETURN NULL;
  END
  $body$;
  CREATE TRIGGER request_logs_usage AFTER INSERT ON request_logs REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION usage_hourly_add();
  INSERT INTO usage_hourly (org_id, hour, path, requests, credits, errors, rate_limited, cache_hits)
  SELECT org_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', path, count(*), sum(credits_used),
    count(*) FILTER (WHERE status_code >= 400), count(*) FILTER (WHERE status_code = 429),
    count(*) FILTER (WHERE response LIKE '%"cache_metadata":{"status":"hit"%')
  FROM request_logs GROUP BY 1, 2, 3;`

/** The ranges the overview shows, with their bucket. */
export const ranges = {
  "24h": { hours: 24, bucket: "hour" },
  "7d": { hours: 24 * 7, bucket: "hour" },
  "30d": { hours: 24 * 30, bucket: "day" }
} as const
/** A range of the overview. */
export type Range = keyof typeof ranges

/** One bucket of one path. */
export interface Point {
  readonly t: string
  readonly path: string
  readonly requests: number
  readonly credits: number
  readonly errors: number
  readonly rate_limited: number
  readonly cache_hits: number
}

/** An organization's series over a range, bucketed by hour or day (UTC), oldest first. */
export const series = (orgId: string, range: Range, now: Date) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { hours, bucket } = ranges[range]
    const from = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000 - (hours - 1) * 3_600_000)
    const rows = yield* sql<Record<string, unknown>>`
      SELECT date_trunc(${bucket}, hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS t, path,
        sum(requests) AS requests, sum(credits) AS credits, sum(errors) AS errors,
        sum(rate_limited) AS rate_limited, sum(cache_hits) AS cache_hits
      FROM usage_hourly WHERE org_id = ${orgId} AND hour >= ${from}
      GROUP BY 1, 2 ORDER BY 1, 2`
    const points: Array<Point> = rows.map((r) => ({
      t: new Date(r.t as string).toISOString(),
      path: String(r.path),
      requests: Number(r.requests),
      credits: Number(r.credits),
      errors: Number(r.errors),
      rate_limited: Number(r.rate_limited),
      cache_hits: Number(r.cache_hits)
    }))
    return { bucket, from: from.toISOString(), to: now.toISOString(), points }
  })
