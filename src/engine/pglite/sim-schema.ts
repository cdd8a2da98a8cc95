// The `sim` schema, built into the prepared data directory (scripts/build-datadir.ts) so
// that no XID is spent on it in the browser. It shows the session layer's sessions to
// SQL: `search_path` puts `sim` before `pg_catalog`, so the article's pg_stat_activity
// query, pg_backend_pid() and pg_terminate_backend() run verbatim against the simulated
// sessions. The session table arrives as JSON in the `sim.sessions` setting, set just
// before a statement that reads it (setting a value spends no XID and writes nothing).

import { byText } from '../by-text.ts';

/** Where `sim` sits in every session's search path (see `engineStartParams`). */
export const simSearchPath = '"$user", public, sim, pg_catalog';

/** What `sim` shows in place of the catalog's own (see `simSchemaSql`). */
const shadowed = [
  'pg_stat_activity',
  'pg_prepared_xacts',
  'pg_prepared_xact',
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
export const toSimNames: (sql: string) => string = byText((sql) =>
  sql.replace(qualified, (_m, _q: string, name: string) => `sim.${name.toLowerCase()}`),
);

/** The SQL that creates the `sim` schema, and the ordinary role `app`. */
export const simSchemaSql = `
CREATE SCHEMA sim;
COMMENT ON SCHEMA sim IS 'Seat & Ledger: the simulated sessions that share PGlite''s one backend';

CREATE FUNCTION sim.sessions() RETURNS TABLE (
  pid integer, usename name, application_name text, backend_start timestamptz,
  xact_start timestamptz, query_start timestamptz, state_change timestamptz,
  wait_event_type text, wait_event text, state text, query text, gid text,
  emulated boolean, is_current boolean, blocked_by integer, snapshot_xmin text)
LANGUAGE sql STABLE SET search_path = pg_catalog, sim AS $$
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
LANGUAGE sql STABLE SET search_path = pg_catalog, sim AS $$
  SELECT coalesce(
    (SELECT min(x) FROM pg_snapshot_xip(pg_current_snapshot()) x
      WHERE x NOT IN (SELECT p.transaction::text::xid8 FROM pg_catalog.pg_prepared_xacts p
                       WHERE p.gid = ANY (string_to_array(
                         coalesce(current_setting('sim.standins', true), ''), ',')))),
    pg_snapshot_xmax(pg_current_snapshot()))::text::xid
$$;

-- age(xid) as a server counts: PostgreSQL's own count, less the XIDs in its span that the
-- layer took and a server would not (stand-ins, probes, replays: their numbers are in
-- sim.spent_xids, set as a session is loaded and before a statement that names age();
-- sessions/spent-xids.ts). An XID
-- x lies in the span of age(a) when 0 < age(x) <= age(a). XIDs that are not normal keep
-- PostgreSQL's answer (the largest integer).
CREATE FUNCTION sim.age(xid) RETURNS integer
LANGUAGE sql STABLE STRICT SET search_path = pg_catalog, sim AS $$
  SELECT CASE WHEN pg_catalog.age($1) = 2147483647 THEN 2147483647
    ELSE pg_catalog.age($1) - (
      SELECT pg_catalog.count(*)::integer
        FROM pg_catalog.unnest(pg_catalog.string_to_array(
               NULLIF(pg_catalog.current_setting('sim.spent_xids', true), ''), ',')) x
       WHERE pg_catalog.age(x::xid) > 0 AND pg_catalog.age(x::xid) <= pg_catalog.age($1)) END
$$;

-- The next XID, for the layer to read a savepoint's own (sessions/spent-xids.ts,
-- savepointXid): a subtransaction locks the one row of sim.xid_mark, which takes an XID,
-- reads it from the row, and is rolled back. SQL shows no subtransaction's XID otherwise.
CREATE TABLE sim.xid_mark (one int);
INSERT INTO sim.xid_mark VALUES (1);
CREATE FUNCTION sim.assigned_xid() RETURNS xid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, sim AS $$
DECLARE
  taken xid;
BEGIN
  BEGIN
    PERFORM FROM sim.xid_mark FOR UPDATE;
    SELECT xmax INTO taken FROM sim.xid_mark;
    RAISE EXCEPTION USING ERRCODE = 'SLXID', MESSAGE = taken::text;
  EXCEPTION WHEN SQLSTATE 'SLXID' THEN
    RETURN SQLERRM::xid;
  END;
END $$;

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
  LEFT JOIN pg_catalog.pg_prepared_xacts p ON p.gid = s.gid;

-- The transactions prepared with PREPARE TRANSACTION, as a server lists them: none of the
-- layer's, which set sessions' transactions aside (their gids begin seat-ledger:); a
-- reader's own PREPARE TRANSACTION is refused, so none is left. Called by its qualified
-- name, the catalog's function is pointed here too (toSimNames).
CREATE FUNCTION sim.pg_prepared_xact(OUT transaction xid, OUT gid text,
  OUT prepared timestamptz, OUT ownerid oid, OUT dbid oid) RETURNS SETOF record
LANGUAGE sql STABLE SET search_path = pg_catalog, sim AS $$
  SELECT * FROM pg_catalog.pg_prepared_xact() p WHERE p.gid !~ '^seat-ledger:'
$$;

-- Every transaction prepared in PGlite's one backend, the layer's among them: the tests'
-- window on the layer (src/engine/ARCHITECTURE.md, "Parking"), not a server's view.
CREATE FUNCTION sim.layer_prepared_xacts(OUT transaction xid, OUT gid text,
  OUT prepared timestamptz, OUT ownerid oid, OUT dbid oid) RETURNS SETOF record
LANGUAGE sql STABLE SET search_path = pg_catalog, sim AS $$
  SELECT * FROM pg_catalog.pg_prepared_xact()
$$;

CREATE VIEW sim.pg_prepared_xacts AS
SELECT p.transaction, p.gid, p.prepared, u.rolname AS owner, d.datname AS database
  FROM sim.pg_prepared_xact() p
  LEFT JOIN pg_catalog.pg_authid u ON p.ownerid = u.oid
  LEFT JOIN pg_catalog.pg_database d ON p.dbid = d.oid;

-- What PostgreSQL's isolation tester asks: is session pid waiting on one of interesting_pids?
-- A lock wait the watchdog found without knowing its holder counts too: on one backend
-- only a parked transaction can hold a lock, and each is a session the tester started.
CREATE FUNCTION sim.pg_isolation_test_session_is_blocked(pid integer, interesting_pids integer[])
RETURNS boolean LANGUAGE sql STABLE SET search_path = pg_catalog, sim AS $$
  SELECT coalesce(bool_or(s.blocked_by = ANY(interesting_pids)
                          OR s.wait_event_type = 'Lock' AND s.blocked_by IS NULL), false)
    FROM sim.sessions() s WHERE s.pid = $1
$$;

CREATE FUNCTION sim.pg_backend_pid() RETURNS integer
LANGUAGE sql STABLE SET search_path = pg_catalog, sim
AS $$ SELECT current_setting('sim.pid')::integer $$;

-- Signals are recorded in sim.signals and carried out by the session layer once the
-- statement ends. A pid that is not a session gets the server's warning and false.
CREATE FUNCTION sim.signal_backend(kind text, target integer) RETURNS boolean
LANGUAGE plpgsql SET search_path = pg_catalog, sim AS $$
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
LANGUAGE sql SET search_path = pg_catalog, sim AS $$ SELECT sim.signal_backend('cancel', pid) $$;

CREATE FUNCTION sim.pg_terminate_backend(pid integer, timeout bigint DEFAULT 0) RETURNS boolean
LANGUAGE sql SET search_path = pg_catalog, sim
AS $$ SELECT sim.signal_backend('terminate', pid) $$;

-- The role sessions connect as when they are ordinary, set up as on the test server
-- (src/engine/server/server.ts): it may create tables in public and read the sim schema.
CREATE ROLE app LOGIN;
GRANT CREATE, USAGE ON SCHEMA public TO app;
GRANT USAGE ON SCHEMA sim TO app;
GRANT SELECT ON sim.pg_stat_activity, sim.pg_prepared_xacts TO PUBLIC;

-- The guard (src/engine/pglite/sessions/guards.ts): PostgreSQL itself stops a statement that
-- would break the layer, however it is sent (a DO block, a function, CASCADE). It lives in
-- pg_catalog so that dropping sim cannot drop it first. SL001: a change to sim, to
-- pg_catalog or to what sim needs; SL002: an object named like one of pg_catalog's, which
-- the search path (public and sim ahead of pg_catalog) would let hide PostgreSQL's own.
CREATE FUNCTION pg_catalog.seat_ledger_refuse(code text, detail text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = code, MESSAGE = 'seat-ledger guard', DETAIL = detail;
END $$;

-- Whether what the layer needs is still there, as it was made: sim's objects, and app's
-- way to them.
CREATE FUNCTION pg_catalog.seat_ledger_check_layer() RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN
  IF to_regnamespace('sim') IS NULL
     OR to_regprocedure('sim.sessions()') IS NULL
     OR to_regprocedure('sim.snapshot_xmin()') IS NULL
     OR to_regclass('sim.pg_stat_activity') IS NULL
     OR to_regprocedure('sim.pg_isolation_test_session_is_blocked(integer, integer[])') IS NULL
     OR to_regprocedure('sim.pg_backend_pid()') IS NULL
     OR to_regprocedure('sim.signal_backend(text, integer)') IS NULL
     OR to_regprocedure('sim.pg_cancel_backend(integer)') IS NULL
     OR to_regprocedure('sim.pg_terminate_backend(integer, bigint)') IS NULL
     OR to_regrole('app') IS NULL
     OR NOT has_schema_privilege('app', 'sim', 'USAGE')
     OR NOT has_table_privilege('app', 'sim.pg_stat_activity', 'SELECT') THEN
    PERFORM seat_ledger_refuse('SL001', 'sim');
  END IF;
END $$;

CREATE FUNCTION pg_catalog.seat_ledger_guard_ddl() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
DECLARE
  r record;
  name text;
BEGIN
  FOR r IN SELECT * FROM pg_event_trigger_ddl_commands() LOOP
    IF r.schema_name IN ('sim', 'pg_catalog')
       OR r.object_type = 'schema' AND r.object_identity IN ('sim', 'pg_catalog') THEN
      PERFORM seat_ledger_refuse('SL001', coalesce(r.object_identity, r.command_tag));
    END IF;
    -- A name finds objects of its own kind: a relation's also its row type's.
    name := CASE r.classid
      WHEN 'pg_class'::regclass THEN (
        SELECT c.relname FROM pg_class c WHERE c.oid = r.objid
           AND (EXISTS (SELECT FROM pg_class x WHERE x.relnamespace = 'pg_catalog'::regnamespace AND x.relname = c.relname)
             OR EXISTS (SELECT FROM pg_type x WHERE x.typnamespace = 'pg_catalog'::regnamespace AND x.typname = c.relname)))
      WHEN 'pg_proc'::regclass THEN (
        SELECT p.proname FROM pg_proc p WHERE p.oid = r.objid
           AND EXISTS (SELECT FROM pg_proc x WHERE x.pronamespace = 'pg_catalog'::regnamespace AND x.proname = p.proname))
      WHEN 'pg_type'::regclass THEN (
        SELECT t.typname FROM pg_type t WHERE t.oid = r.objid
           AND EXISTS (SELECT FROM pg_type x WHERE x.typnamespace = 'pg_catalog'::regnamespace AND x.typname = t.typname))
      WHEN 'pg_operator'::regclass THEN (
        SELECT o.oprname FROM pg_operator o WHERE o.oid = r.objid
           AND EXISTS (SELECT FROM pg_operator x WHERE x.oprnamespace = 'pg_catalog'::regnamespace AND x.oprname = o.oprname))
    END;
    IF name IS NOT NULL THEN
      PERFORM seat_ledger_refuse('SL002', name);
    END IF;
  END LOOP;
  PERFORM seat_ledger_check_layer();
END $$;

CREATE FUNCTION pg_catalog.seat_ledger_guard_drop() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT * FROM pg_event_trigger_dropped_objects() LOOP
    IF r.schema_name IN ('sim', 'pg_catalog')
       OR r.object_type = 'schema' AND r.object_name IN ('sim', 'pg_catalog') THEN
      PERFORM seat_ledger_refuse('SL001', r.object_identity);
    END IF;
  END LOOP;
  PERFORM seat_ledger_check_layer();
END $$;

CREATE EVENT TRIGGER seat_ledger_guard_ddl ON ddl_command_end
  EXECUTE FUNCTION pg_catalog.seat_ledger_guard_ddl();
CREATE EVENT TRIGGER seat_ledger_guard_drop ON sql_drop
  EXECUTE FUNCTION pg_catalog.seat_ledger_guard_drop();
`;
