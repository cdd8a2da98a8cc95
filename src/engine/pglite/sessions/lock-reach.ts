// Whether a reader's statement could meet a lock that a transaction set aside with PREPARE
// TRANSACTION holds: the only way PGlite's one backend can be left waiting. The watchdog
// takes a statement that goes unanswered for its time as a lock wait only when this says
// it could be one; any other statement, however long it works, runs until it ends or the
// reader stops it (src/engine/ARCHITECTURE.md, "The journal and the watchdog").
import { splitStatements } from '../../split-statements';
import { conflicts, mentions, statementNeeds, type LockMode } from '../waits';
import { anotherHolds, type LayerContext, type SessionRecord } from './context';
import { executedText } from './session-settings';

/** A lock a prepared transaction holds, as pg_locks shows it. */
interface PreparedLock {
  gid: string;
  locktype: string;
  /** The relation's name, for a relation lock. */
  relname: string | null;
  mode: LockMode;
}

/**
 * What the catalog says about how statements reach relations they do not name: foreign
 * keys, partitions and inheritance, views, owned sequences and indexes link relations; a
 * user trigger or rule, or a user function, may run anything.
 */
interface Reach {
  /** Pairs of relation names one of which a statement on the other may lock. */
  links: [string, string][];
  /** Relations with user triggers or rules. */
  busy: string[];
  /** Functions outside pg_catalog, information_schema and sim. */
  functions: string[];
}

/** Per layer: the locks of each prepared transaction (they never change), and `Reach`. */
const known = new WeakMap<
  LayerContext,
  { locks: Map<string, PreparedLock[]>; reach: Reach | null }
>();

function memory(ctx: LayerContext) {
  let m = known.get(ctx);
  if (!m) known.set(ctx, (m = { locks: new Map(), reach: null }));
  return m;
}

/** What a statement does, as far as meeting a lock goes. */
type Touch =
  /** Transaction control, settings: takes no lock that can wait. */
  | 'none'
  /** Reads without locking rows: meets only a conflicting table lock. */
  | 'read'
  /** Locks or changes rows (and so checks foreign keys, unique keys, triggers). */
  | 'rows'
  /** Anything else (DDL, DO, CALL, COPY, a cursor's FETCH): may lock anything. */
  | 'other';

const noLock =
  /^\s*(?:BEGIN|START|COMMIT|END|ROLLBACK|ABORT|SAVEPOINT|RELEASE|SET|SHOW|RESET|DEALLOCATE|DISCARD|DECLARE|CLOSE|LISTEN|UNLISTEN|PREPARE\s+(?!TRANSACTION\b))\b/i;
const dml = /^\s*(?:INSERT|UPDATE|DELETE|MERGE)\b/i;
const query = /^\s*(?:SELECT|WITH|VALUES|TABLE|\()/i;

/** How one statement may meet locks. */
function touch(s: SessionRecord, statement: string): Touch {
  const text = statement.replace(/--[^\n]*/g, ' ').trim();
  if (/^EXECUTE\b/i.test(text)) {
    const executed = executedText(s, text);
    return executed === text ? 'other' : touch(s, executed);
  }
  const explain = /^EXPLAIN\b(\s*\([^)]*\)|(?:\s+(?:ANALYZE|VERBOSE))*)\s*/i.exec(text);
  if (explain) {
    // Plain EXPLAIN only plans (its locks are a reader's); EXPLAIN ANALYZE runs the statement.
    return /\bANALY[SZ]E\b/i.test(explain[0]) ? touch(s, text.slice(explain[0].length)) : 'read';
  }
  if (noLock.test(text)) return 'none';
  if (dml.test(text)) return 'rows';
  if (query.test(text)) {
    const needs = statementNeeds(text);
    return needs.mode === 'AccessShareLock' && needs.rows.kind === 'none' ? 'read' : 'rows';
  }
  return 'other';
}

/**
 * The locks other sessions' parked transactions hold, read from pg_locks once per
 * transaction. Only parked ones can hold locks: the reader cannot prepare a transaction
 * (`prepared-by-reader`), and a stand-in for a waiting or sleeping statement holds only its
 * XID.
 */
async function preparedLocks(ctx: LayerContext, s: SessionRecord): Promise<PreparedLock[]> {
  const { locks } = memory(ctx);
  const gids = new Set(
    [...ctx.sessions.values()].flatMap((r) =>
      r.holding.kind === 'parked' && r !== s ? [r.holding.gid] : [],
    ),
  );
  for (const gid of locks.keys()) if (!gids.has(gid)) locks.delete(gid);
  const unread = [...gids].filter((gid) => !locks.has(gid));
  if (unread.length > 0) {
    const [read] = await ctx.backend.exec(
      `WITH prepared AS (
         SELECT l.virtualtransaction, p.gid
           FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_prepared_xacts p
             ON l.locktype = 'transactionid' AND l.transactionid = p.transaction
          WHERE p.gid = ANY ($1::pg_catalog.text[]))
       SELECT prepared.gid, l.locktype, c.relname, l.mode
         FROM pg_catalog.pg_locks l JOIN prepared USING (virtualtransaction)
         LEFT JOIN pg_catalog.pg_class c ON c.oid = l.relation
        WHERE l.locktype NOT IN ('transactionid', 'virtualxid')`,
      [`{${unread.map((gid) => `"${gid}"`).join(',')}}`],
    );
    for (const gid of unread) locks.set(gid, []);
    for (const [gid, locktype, relname, mode] of read!.rows) {
      locks.get(gid!)!.push({ gid: gid!, locktype: locktype!, relname, mode: mode as LockMode });
    }
  }
  return [...gids].flatMap((gid) => locks.get(gid)!);
}

/** Reads `Reach` from the catalog. */
async function readReach(ctx: LayerContext): Promise<Reach> {
  const [read] = await ctx.backend.exec(`
    WITH edges(x, y) AS (
      SELECT conrelid, confrelid FROM pg_catalog.pg_constraint WHERE contype = 'f'
      UNION ALL SELECT inhrelid, inhparent FROM pg_catalog.pg_inherits
      UNION ALL SELECT indexrelid, indrelid FROM pg_catalog.pg_index
      UNION ALL
      SELECT r.ev_class, d.refobjid FROM pg_catalog.pg_rewrite r
        JOIN pg_catalog.pg_depend d
          ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid = r.oid
         AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
       WHERE d.refobjid <> r.ev_class
      UNION ALL
      SELECT d.objid, d.refobjid FROM pg_catalog.pg_depend d
        JOIN pg_catalog.pg_class q ON q.oid = d.objid AND q.relkind = 'S'
       WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
         AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass),
    user_schemas AS (
      SELECT oid FROM pg_catalog.pg_namespace
       WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'sim'))
    SELECT pg_catalog.json_build_object(
      'links', (SELECT coalesce(pg_catalog.json_agg(pg_catalog.json_build_array(a.relname, b.relname)), '[]')
                  FROM edges JOIN pg_catalog.pg_class a ON a.oid = edges.x
                  JOIN pg_catalog.pg_class b ON b.oid = edges.y),
      'busy', (SELECT coalesce(pg_catalog.json_agg(DISTINCT c.relname), '[]')
                 FROM pg_catalog.pg_class c
                WHERE c.relnamespace IN (SELECT oid FROM user_schemas)
                  AND (c.relhasrules AND c.relkind <> 'v'
                       OR EXISTS (SELECT FROM pg_catalog.pg_trigger t
                                   WHERE t.tgrelid = c.oid AND NOT t.tgisinternal))),
      'functions', (SELECT coalesce(pg_catalog.json_agg(DISTINCT p.proname), '[]')
                      FROM pg_catalog.pg_proc p
                     WHERE p.pronamespace IN (SELECT oid FROM user_schemas)))::pg_catalog.text`);
  return JSON.parse(read!.rows[0]![0]!) as Reach;
}

/** Whether `sql` names `relname`, or a relation linked to it (at any remove). */
function reaches(sql: string, relname: string, links: [string, string][]): boolean {
  const seen = new Set([relname]);
  for (let frontier = [relname]; frontier.length > 0;) {
    if (frontier.some((name) => mentions(sql, name))) return true;
    const next: string[] = [];
    for (const [a, b] of links) {
      for (const [from, to] of [
        [a, b],
        [b, a],
      ] as const) {
        if (frontier.includes(from) && !seen.has(to)) {
          seen.add(to);
          next.push(to);
        }
      }
    }
    frontier = next;
  }
  return false;
}

/**
 * A call of a built-in function that opens a relation by a name or an OID the statement
 * may hold only as a string or a number, in a mode of its own: the sequence functions
 * (nextval takes ROW EXCLUSIVE on its sequence, which an ALTER SEQUENCE's lock blocks),
 * and those named pg_… other than the ones that open no relation or that the layer
 * answers itself (pg_relation_size, pg_get_viewdef, pg_get_publication_tables).
 */
const systemFunction =
  /\b(?:nextval|setval|currval|lastval|pg_(?!sleep|backend_pid|advisory_|try_advisory_|current_|stat_|cancel_backend|terminate_backend|xact_|snapshot_|visible_in_snapshot|typeof|column_size|size_pretty)\w+)\s*\(/i;

/**
 * Whether `s`'s `sql` could meet a lock another session's prepared transaction holds,
 * asking PostgreSQL which locks those are (pg_locks) and how the statement's relations
 * link to them (the catalog); the text only says which relations it names and what kind
 * of statement it is. A statement of unknown reach (DDL, DO, a user function or trigger)
 * could meet any of them.
 */
export async function mayMeetPreparedLock(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<boolean> {
  const m = memory(ctx);
  // In an aborted transaction every statement fails at once (and so would the catalog's
  // questions below): it can wait for nothing.
  if (ctx.resident === s && s.status === 'E') return false;
  // Only a parked transaction holds locks: with none but `s`'s there is none to meet, and
  // nothing to do unless a `Reach` is kept that the statement may change.
  const othersParked = anotherHolds(ctx, s, 'parked');
  if (!othersParked && m.reach === null) return false;
  const statements = splitStatements(sql).map(({ sql: text }) => ({ text, touch: touch(s, text) }));
  const other = statements.some((st) => st.touch === 'other');
  const locks =
    !othersParked || statements.every((st) => st.touch === 'none')
      ? []
      : await preparedLocks(ctx, s);
  const callsUserFunction = () =>
    m.reach !== null && m.reach.functions.some((name) => mentions(sql, name));
  // DDL, or a user function (which may do DDL), may change what `Reach` says.
  const changesCatalog = () => other || callsUserFunction();
  if (locks.length === 0) {
    if (changesCatalog()) m.reach = null;
    return false;
  }
  m.reach ??= await readReach(ctx);
  const { links, busy } = m.reach;
  // A statement that locks or changes rows may meet a parked transaction's row locks by
  // ways the catalog does not list (a partition's rows, a multixact, a key check, a prepared
  // statement's plan), and a wait missed here would hang PGlite: it is watched whenever a
  // parked transaction holds locks. Only a plain read is judged by what it reaches.
  const verdict =
    other ||
    statements.some(({ touch: t }) => t === 'rows') ||
    callsUserFunction() ||
    busy.some((name) => mentions(sql, name)) ||
    statements.some(({ text, touch: t }) => t !== 'none' && systemFunction.test(text)) ||
    (locks.some((l) => l.locktype === 'advisory') && /\bpg_advisory/i.test(sql)) ||
    statements.some(({ text, touch: t }) => {
      // Only reads are left here (a statement on rows is watched above).
      if (t === 'none') return false;
      const { mode } = statementNeeds(text);
      return locks.some(
        (l) =>
          l.relname !== null &&
          reaches(text, l.relname, links) &&
          mode !== null &&
          conflicts(mode, l.mode),
      );
    });
  if (changesCatalog()) m.reach = null;
  return verdict;
}
