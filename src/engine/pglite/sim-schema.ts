// The `sim` schema, built into the prepared data directory (scripts/build-datadir.ts) so
// that no XID is spent on it in the browser. It shows the session layer's sessions to
// SQL: `search_path` puts `sim` before `pg_catalog`, so the article's pg_stat_activity
// query, pg_backend_pid() and pg_terminate_backend() run verbatim against the simulated
// sessions. The session table arrives as JSON in the `sim.sessions` setting, set just
// before a statement that reads it (setting a value spends no XID and writes nothing).

/** Where `sim` sits in every session's search path (see `engineStartParams`). */
export const simSearchPath = '"$user", public, sim, pg_catalog';

/** What `sim` shows in place of the catalog's own (see `simSchemaSql`). */
const shadowed = [
  'pg_stat_activity',
  'pg_backend_pid',
  'pg_cancel_backend',
  'pg_terminate_backend',
  'pg_isolation_test_session_is_blocked',
];
const qualified = new RegExp(
  String.raw`(?<![\w$"])(?:pg_catalog|"pg_catalog")\s*\.\s*("?)(${shadowed.join('|')})\1(?![\w$])`,
  'gi',
);

/**
 * `sql` with names qualified as `pg_catalog.` that `sim` shadows (pg_stat_activity,
 * pg_backend_pid(), pg_cancel_backend(), …) pointed at `sim`: qualified, they would skip
 * the search path and show PGlite's one real backend instead of the reader's sessions
 * (the isolation tester itself cancels with `pg_catalog.pg_cancel_backend`).
 */
export function toSimNames(sql: string): string {
  return sql.replace(qualified, (_m, _q: string, name: string) => `sim.${name.toLowerCase()}`);
}

/** The SQL that creates the `sim` schema, and the ordinary role `app`. */
export const simSchemaSql = `
CREATE SCHEMA sim;
COMMENT ON SCHEMA sim IS 'Seat & Ledger: the simulated sessions that share PGlite''s one backend';

CREATE FUNCTION sim.sessions() RETURNS TABLE (
  pid integer, usename name, application_name text, backend_start timestamptz,
  xact_start timestamptz, query_start timestamptz, state_change timestamptz,
  wait_event_type text, wait_event text, state text, query text, gid text,
  emulated boolean, is_current boolean, blocked_by integer, snapshot_xmin text)
LANGUAGE sql STABLE AS $$
  SELECT * FROM jsonb_to_recordset(
    coalesce(nullif(current_setting('sim.sessions', true), ''), '[]')::jsonb
  ) AS s(pid integer, usename name, application_name text, backend_start timestamptz,
         xact_start timestamptz, query_start timestamptz, state_change timestamptz,
         wait_event_type text, wait_event text, state text, query text, gid text,
         emulated boolean, is_current boolean, blocked_by integer, snapshot_xmin text)
$$;

-- The querying session's snapshot xmin as a server would have it: the oldest XID running,
-- leaving out the layer's stand-ins (their gids are in sim.standins), which hold XIDs only
-- to pin the horizon for snapshots that have none on a server.
CREATE FUNCTION sim.snapshot_xmin() RETURNS xid
LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    (SELECT min(x) FROM pg_snapshot_xip(pg_current_snapshot()) x
      WHERE x NOT IN (SELECT p.transaction::text::xid8 FROM pg_prepared_xacts p
                       WHERE p.gid = ANY (string_to_array(
                         coalesce(current_setting('sim.standins', true), ''), ',')))),
    pg_snapshot_xmax(pg_current_snapshot()))::text::xid
$$;

-- The same columns as pg_catalog.pg_stat_activity in PostgreSQL 18. XIDs are real: a
-- parked session's comes from pg_prepared_xacts; the querying session's from its own
-- transaction; a snapshot stand-in's (emulated) is shown as backend_xmin, and so is the
-- snapshot a waiting statement took (read from PostgreSQL as its wait began).
CREATE VIEW sim.pg_stat_activity AS
SELECT d.oid AS datid, d.datname, s.pid, NULL::integer AS leader_pid, r.oid AS usesysid,
       s.usename, s.application_name, NULL::inet AS client_addr, NULL::text AS client_hostname,
       NULL::integer AS client_port, s.backend_start, s.xact_start, s.query_start,
       s.state_change, s.wait_event_type, s.wait_event, s.state,
       CASE WHEN s.is_current THEN pg_current_xact_id_if_assigned()::text::xid
            WHEN NOT s.emulated THEN p.transaction END AS backend_xid,
       CASE WHEN s.is_current THEN sim.snapshot_xmin()
            WHEN s.emulated THEN p.transaction
            ELSE s.snapshot_xmin::xid END AS backend_xmin,
       NULL::bigint AS query_id, s.query, 'client backend'::text AS backend_type
  FROM sim.sessions() s
  JOIN pg_database d ON d.datname = current_database()
  LEFT JOIN pg_roles r ON r.rolname = s.usename
  LEFT JOIN pg_prepared_xacts p ON p.gid = s.gid;

-- What PostgreSQL's isolation tester asks: is session pid waiting on one of interesting_pids?
-- A lock wait the watchdog found without knowing its holder counts too: on one backend
-- only a parked transaction can hold a lock, and each is a session the tester started.
CREATE FUNCTION sim.pg_isolation_test_session_is_blocked(pid integer, interesting_pids integer[])
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT coalesce(bool_or(s.blocked_by = ANY(interesting_pids)
                          OR s.wait_event_type = 'Lock' AND s.blocked_by IS NULL), false)
    FROM sim.sessions() s WHERE s.pid = $1
$$;

CREATE FUNCTION sim.pg_backend_pid() RETURNS integer
LANGUAGE sql STABLE AS $$ SELECT current_setting('sim.pid')::integer $$;

-- Signals are recorded in sim.signals and carried out by the session layer once the
-- statement ends. A pid that is not a session gets the server's warning and false.
CREATE FUNCTION sim.signal_backend(kind text, target integer) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM sim.sessions() s WHERE s.pid = target) THEN
    RAISE WARNING 'PID % is not a PostgreSQL backend process', target;
    RETURN false;
  END IF;
  PERFORM set_config('sim.signals',
    coalesce(current_setting('sim.signals', true), '') || kind || ':' || target || ',', false);
  RETURN true;
END $$;

CREATE FUNCTION sim.pg_cancel_backend(pid integer) RETURNS boolean
LANGUAGE sql AS $$ SELECT sim.signal_backend('cancel', pid) $$;

CREATE FUNCTION sim.pg_terminate_backend(pid integer, timeout bigint DEFAULT 0) RETURNS boolean
LANGUAGE sql AS $$ SELECT sim.signal_backend('terminate', pid) $$;

-- The role sessions connect as when they are ordinary, set up as on the test server
-- (src/engine/server/server.ts): it may create tables in public and read the sim schema.
CREATE ROLE app LOGIN;
GRANT CREATE, USAGE ON SCHEMA public TO app;
GRANT USAGE ON SCHEMA sim TO app;
GRANT SELECT ON sim.pg_stat_activity TO PUBLIC;
`;
