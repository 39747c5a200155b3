/**
 * The tables of accounts and metering, registered under the `auth` key of the store's migrations.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import * as AgentRegistration from "./AgentRegistration.js"
import * as OAuthGrants from "./OAuthGrants.js"

/** The auth package's migrations. */
export const migrations = {
  "0001_accounts": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE TABLE organizations (
      id text PRIMARY KEY,
      name text NOT NULL UNIQUE,
      plan text NOT NULL,
      zdr_enabled boolean NOT NULL DEFAULT false,
      status text NOT NULL DEFAULT 'active',
      rpm_override integer,
      credits_override bigint,
      monitors_override integer,
      credits_remaining bigint NOT NULL,
      cycle_start timestamptz NOT NULL,
      cycle_end timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE users (
      id text PRIMARY KEY,
      org_id text NOT NULL REFERENCES organizations (id),
      email text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      org_id text NOT NULL REFERENCES organizations (id),
      name text NOT NULL,
      prefix text NOT NULL,
      hash text NOT NULL UNIQUE,
      permissions jsonb,
      expires_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX api_keys_org ON api_keys (org_id);
    CREATE TABLE rate_limit_windows (
      key_id text NOT NULL,
      bucket text NOT NULL,
      window_start bigint NOT NULL,
      count integer NOT NULL,
      PRIMARY KEY (key_id, bucket, window_start)
    );
    CREATE TABLE credit_reservations (
      id text PRIMARY KEY,
      org_id text NOT NULL,
      credits bigint NOT NULL,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX credit_reservations_org ON credit_reservations (org_id, expires_at);
    CREATE TABLE credit_events (
      id bigserial PRIMARY KEY,
      org_id text NOT NULL,
      request_id text,
      credits bigint NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX credit_events_org ON credit_events (org_id, created_at)`.unprepared),
  // Permissions as text[] (as specified), the key's last use, and the lookup index on the prefix.
  "0002_key_lookup": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`ALTER TABLE api_keys ADD COLUMN permission_list text[];
    UPDATE api_keys SET permission_list = ARRAY(SELECT jsonb_array_elements_text(permissions)) WHERE permissions IS NOT NULL;
    ALTER TABLE api_keys DROP COLUMN permissions;
    ALTER TABLE api_keys RENAME COLUMN permission_list TO permissions;
    ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
    CREATE INDEX api_keys_prefix ON api_keys (prefix)`.unprepared),
  // Rate-limit windows and reservations are worth nothing after a database crash (a crashed request charges nothing
  // anyway), so they skip the WAL: no disk flush on the per-request writes. PostgreSQL empties them after a crash.
  "0003_unlogged_metering": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`ALTER TABLE rate_limit_windows SET UNLOGGED;
    ALTER TABLE credit_reservations SET UNLOGGED`.unprepared),
  // Web sign-in (passwords, sessions, email verification) and agent registration through a browser claim.
  "0004_agents": Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(AgentRegistration.migrationSql).unprepared),
  // OAuth for MCP clients, once http's (`mcp/0001_oauth`, `mcp/0002_oauth_grants`): guarded, so a database that ran
  // those keeps its tables and rows, and a new one gets the same shape.
  "0005_oauth": Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(OAuthGrants.migrationSql).unprepared),
  // Credits held without the organization's row lock (`CreditLedger`): each organization's holds are a counter of
  // their own (unlogged, as the reservations are, so a crash empties both together), and a charge adds the credits it
  // releases to `credits_settled` on the organization's row, beside the balance it takes them from. Held is
  // `reserved - (credits_settled - settled_base)`; the reservations of a database from before are counted here.
  "0006_credit_holds": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`ALTER TABLE organizations ADD COLUMN credits_settled bigint NOT NULL DEFAULT 0;
    CREATE UNLOGGED TABLE credit_holds (
      org_id text PRIMARY KEY,
      reserved bigint NOT NULL,
      settled_base bigint NOT NULL
    );
    INSERT INTO credit_holds (org_id, reserved, settled_base)
      SELECT org_id, SUM(credits), 0 FROM credit_reservations GROUP BY org_id`.unprepared),
  // The ledger's two per-request statements on PostgreSQL as PL/pgSQL functions: node-postgres sends every statement
  // unnamed, so PostgreSQL planned each of these CTEs anew (about 1 ms, more than running it); a function's plans are
  // kept per connection. `CreditLedger` documents what each does.
  "0007_credit_functions": Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(creditFunctions).unprepared),
  // Floats (`CreditLedger`): a process holds credits once (a reservation row like any other) and reserves many
  // requests' credits from it in memory. A charge of such a request draws what it held from the float's row (deleted
  // once empty); `sift_credit_float_release` gives credits of a float back.
  "0008_credit_floats": Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(floatFunctions).unprepared)
}

/** `sift_credit_charge` with charges drawn from floats, and `sift_credit_float_release`. */
const floatFunctions = `
CREATE OR REPLACE FUNCTION sift_credit_charge(p_items json) RETURNS TABLE (org text, remaining bigint)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE v_floats text[];
BEGIN
  v_floats := ARRAY(SELECT DISTINCT t.float_id FROM json_to_recordset(p_items) AS t(float_id text) WHERE t.float_id IS NOT NULL);
  RETURN QUERY
  WITH c AS (
    SELECT * FROM json_to_recordset(p_items) AS t(reservation_id text, org_id text, request_id text, credits bigint, float_id text, held bigint)
  ),
  locked AS MATERIALIZED (SELECT o.id FROM organizations o WHERE o.id IN (SELECT c.org_id FROM c) ORDER BY o.id FOR UPDATE),
  released AS (
    DELETE FROM credit_reservations x WHERE x.id IN (SELECT c.reservation_id FROM c WHERE c.float_id IS NULL)
    RETURNING x.org_id, x.credits
  ),
  drawn AS (
    UPDATE credit_reservations x SET credits = x.credits - d.held
    FROM (SELECT c.float_id, SUM(c.held)::bigint AS held FROM c WHERE c.float_id IS NOT NULL GROUP BY c.float_id) d
    WHERE x.id = d.float_id
    RETURNING x.org_id, d.held AS credits
  ),
  sums AS (SELECT c.org_id, SUM(c.credits)::bigint AS credits FROM c GROUP BY c.org_id),
  freed AS (
    SELECT f.org_id, SUM(f.credits)::bigint AS credits
    FROM (SELECT released.org_id, released.credits FROM released UNION ALL SELECT drawn.org_id, drawn.credits FROM drawn) f
    GROUP BY f.org_id
  ),
  charged AS (
    UPDATE organizations o SET credits_remaining = o.credits_remaining - sums.credits,
      credits_settled = o.credits_settled + COALESCE(freed.credits, 0)
    FROM sums LEFT JOIN freed ON freed.org_id = sums.org_id
    WHERE o.id = sums.org_id AND (SELECT count(*) FROM locked) >= 0
    RETURNING o.id, o.credits_remaining
  ),
  events AS (INSERT INTO credit_events (org_id, request_id, credits) SELECT c.org_id, c.request_id, c.credits FROM c WHERE c.credits > 0)
  SELECT charged.id, charged.credits_remaining FROM charged;
  -- A float whose every credit was charged or given back is done with.
  IF cardinality(v_floats) > 0 THEN
    DELETE FROM credit_reservations x WHERE x.id = ANY (v_floats) AND x.credits <= 0;
  END IF;
END
$fn$;

CREATE OR REPLACE FUNCTION sift_credit_float_release(p_id text, p_credits bigint) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE v_org text; v_held bigint; v_amount bigint;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT org_id, credits INTO v_org, v_held FROM credit_reservations WHERE id = p_id FOR UPDATE;
  IF v_org IS NULL THEN RETURN; END IF;
  v_amount := LEAST(p_credits, v_held);
  IF v_held <= v_amount THEN
    DELETE FROM credit_reservations WHERE id = p_id;
  ELSE
    UPDATE credit_reservations SET credits = credits - v_amount WHERE id = p_id;
  END IF;
  UPDATE credit_holds SET reserved = reserved - v_amount WHERE org_id = v_org;
END
$fn$;
`

/** `sift_credit_reserve` (a group of reservations) and `sift_credit_charge` (a group of charges). */
const creditFunctions = `
CREATE OR REPLACE FUNCTION sift_credit_reserve(p_items json, p_at timestamptz, p_renewing text[]) RETURNS json
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE v_granted json;
BEGIN
  WITH r AS (
    SELECT * FROM json_to_recordset(p_items) AS t(i int, id text, org_id text, credits bigint, expires_at timestamptz)
  ),
  o AS (
    SELECT o.id, o.credits_remaining, o.credits_settled, (o.plan = ANY (p_renewing) AND o.cycle_end IS NOT NULL AND o.cycle_end <= p_at) AS due
    FROM organizations o WHERE o.id IN (SELECT r.org_id FROM r)
  ),
  h AS MATERIALIZED (
    SELECT h.org_id, h.reserved, h.settled_base FROM credit_holds h WHERE h.org_id IN (SELECT r.org_id FROM r) ORDER BY h.org_id FOR UPDATE
  ),
  g AS MATERIALIZED (
    SELECT q.i, q.id, q.org_id, q.credits, q.expires_at FROM (
      SELECT r.*, SUM(r.credits) OVER (PARTITION BY r.org_id ORDER BY r.i) AS running,
        o.credits_remaining + o.credits_settled - h.settled_base - h.reserved AS available
      FROM r JOIN o ON o.id = r.org_id AND NOT o.due JOIN h ON h.org_id = r.org_id
    ) q WHERE q.running <= q.available
  ),
  held AS (
    UPDATE credit_holds c SET reserved = c.reserved + s.credits
    FROM (SELECT g.org_id, SUM(g.credits)::bigint AS credits FROM g GROUP BY g.org_id) s WHERE c.org_id = s.org_id
  ),
  added AS (INSERT INTO credit_reservations (id, org_id, credits, expires_at) SELECT g.id, g.org_id, g.credits, g.expires_at FROM g)
  SELECT COALESCE((SELECT json_agg(g.i) FROM g), '[]'::json) INTO v_granted;
  RETURN v_granted;
END
$fn$;

CREATE OR REPLACE FUNCTION sift_credit_charge(p_items json) RETURNS TABLE (org text, remaining bigint)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH c AS (
    SELECT * FROM json_to_recordset(p_items) AS t(reservation_id text, org_id text, request_id text, credits bigint)
  ),
  locked AS MATERIALIZED (SELECT o.id FROM organizations o WHERE o.id IN (SELECT c.org_id FROM c) ORDER BY o.id FOR UPDATE),
  released AS (DELETE FROM credit_reservations x WHERE x.id IN (SELECT c.reservation_id FROM c) RETURNING x.org_id, x.credits),
  sums AS (SELECT c.org_id, SUM(c.credits)::bigint AS credits FROM c GROUP BY c.org_id),
  freed AS (SELECT released.org_id, SUM(released.credits)::bigint AS credits FROM released GROUP BY released.org_id),
  charged AS (
    UPDATE organizations o SET credits_remaining = o.credits_remaining - sums.credits,
      credits_settled = o.credits_settled + COALESCE(freed.credits, 0)
    FROM sums LEFT JOIN freed ON freed.org_id = sums.org_id
    WHERE o.id = sums.org_id AND (SELECT count(*) FROM locked) >= 0
    RETURNING o.id, o.credits_remaining
  ),
  events AS (INSERT INTO credit_events (org_id, request_id, credits) SELECT c.org_id, c.request_id, c.credits FROM c WHERE c.credits > 0)
  SELECT charged.id, charged.credits_remaining FROM charged;
END
$fn$;
`
