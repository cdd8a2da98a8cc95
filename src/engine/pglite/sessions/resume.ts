// A parked transaction that must go on: rolled back and replayed in a new transaction,
// kept only if PostgreSQL answers every statement as it did the first time. Why this
// stands for the original only under the conditions checked here: ARCHITECTURE.md,
// "Resuming a parked transaction".
import { splitStatements } from '../../split-statements';
import type { BackendReply } from '../backend';
import { calledNames, identifier, lockedKeyChange, statementNeeds } from '../waits';
import {
  answersByLocks,
  claimHolds,
  claimRecord,
  claimTable,
  claimsRanAgain,
  hashText,
  holderEnded,
  readsNoRows,
  toSavepoint,
} from './claims';
import {
  anotherHolds,
  setState,
  whose,
  type LayerContext,
  type Renumbering,
  type LoggedStatement,
  type SessionRecord,
} from './context';
import { rollBackSpentStandIns, rollbackPrepared, setAside } from './parking';
import { noteWritten } from './replay-traces';
import { cancelled, notExpressible, type QueryReply } from './replies';
import { loadSettings } from './session-settings';
import { noteSpent, opensSubtransaction } from './spent-xids';
import {
  importBlocked,
  importPoint,
  importSnapshot,
  writeSnapshotFile,
  type ImportPoint,
} from './snapshot-import';
import { unusedParams } from './wait-checks';
import { isCancelled, runReader } from './watchdog';
import { committedSince, parkedCte, writtenSince } from './write-counts';

/**
 * Statements whose effect outlives a rollback, or that the replay would meet as already
 * done: prepared statements and cursors belong to the session, not the transaction.
 */
const sessionObjects = /^\s*(?:PREPARE(?!\s+TRANSACTION\b)|DEALLOCATE|DECLARE|FETCH|MOVE|CLOSE)\b/i;

/** pg_sleep, pg_sleep_for and pg_sleep_until, which wait for the clock to move. */
const sleeps = /\bpg_sleep/i;

/** EXPLAIN that runs the statement and reports its times (ANALYZE, in any form). */
const measures = /\bEXPLAIN\s*(?:\([^)]*\bANALY[SZ]E\b|\s+ANALY[SZ]E\b)/i;

/**
 * Statements that may fill a column from its default: a row inserted (INSERT, MERGE,
 * COPY, a prepared statement or a DO block that does), or `SET c = DEFAULT`. An UPDATE or
 * DELETE alone evaluates no default, unless a rule turns it into an insert or a foreign
 * key's ON DELETE/UPDATE SET DEFAULT fires (asked of the catalog in `cannotReplay`), so a
 * job table's `id bigserial` or `created_at DEFAULT now()` does not stop a worker's
 * UPDATE from going on.
 */
const appliesDefaults = /\b(?:INSERT|MERGE|COPY|DEFAULT|EXECUTE|DO)\b/i;

/**
 * Volatile functions a replay may call again: what they do is undone with the rollback
 * and done again (a transaction-level lock, a sleep, a setting), or their answer is
 * compared. Any other volatile function, or one that reads the clock, may write a value
 * that no answer shows, so a transaction that called one is not replayed.
 */
const replayableVolatile = [
  'pg_advisory_xact_lock',
  'pg_advisory_xact_lock_shared',
  'pg_try_advisory_xact_lock',
  'pg_try_advisory_xact_lock_shared',
  'pg_sleep',
  'pg_sleep_for',
  'pg_sleep_until',
  'set_config',
];

/** Output that shows XIDs, or their order: what a renumbered transaction must not meet. */
const showsXids =
  /\b(?:xmin|xmax|age|mxid_age|pg_locks|pg_prepared_xacts|txid_\w+|pg_current_xact_id\w*|pg_current_snapshot|pg_snapshot_\w+|pg_xact_status|pg_visible_in_snapshot|backend_xid|backend_xmin|heap_page_items|pg_get_multixact_members|vacuum)\b/i;

/** The most statements a transaction's log keeps; a longer transaction is not replayed. */
const maxLogged = 500;

/**
 * What PostgreSQL answered, as the replay compares it: every result, notice and error,
 * kept as a 53-bit hash of their text (cyrb53), so a long transaction's log stays small.
 */
export function answerKey(reply: BackendReply): string {
  return hashText(
    JSON.stringify([
      reply.results.map((r) => [r.command, r.rowCount, r.fields, r.rows]),
      reply.notices.map((n) => [n.severity, n.code, n.message, n.detail, n.hint]),
      reply.error ? [reply.error.code, reply.error.message, reply.error.detail] : null,
      reply.status,
    ]),
  );
}

/** Adds `s`'s statement and its answer to its transaction's log (see `SessionRecord.xactLog`). */
export function logStatement(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params: unknown[] | undefined,
  reply: BackendReply,
): void {
  if (s.xactLog === null || reply.status !== 'T') return;
  const sessionObject = splitStatements(sql).some(({ sql: st }) => sessionObjects.test(st));
  if (sessionObject || s.xactLog.length >= maxLogged) {
    s.xactLog = null;
    return;
  }
  s.xactLog.push({
    sql,
    ...(params ? { params } : {}),
    answer: answerKey(reply),
    ...(s.lastSeq !== undefined ? { seq: s.lastSeq } : {}),
    ...claimRecord(ctx, s, sql, reply),
  });
}

/** Marks `s`'s open transaction as one that cannot be replayed (its answer was the layer's). */
export function forgetLog(s: SessionRecord): void {
  if (s.holding.kind !== 'none') s.xactLog = null;
}

/** The XIDs of the transactions open now: sessions' own, and stand-ins for snapshots. */
function openXids(ctx: LayerContext): string[] {
  const xids: string[] = [];
  for (const r of ctx.sessions.values()) {
    if (r.holding.kind === 'parked') xids.push(r.holding.xid);
    else if (r.holding.kind === 'resident' && r.xid) xids.push(r.xid);
  }
  for (const w of ctx.waiters) if (w.standIn) xids.push(w.standIn.xid);
  return xids;
}

/** Queries whose answer carries open transactions' XIDs or their ages, if not their values. */
const showsAges = /\bpg_stat_activity\b|\b(?:age|mxid_age)\s*\(/i;

/**
 * Notes which open transactions' XIDs `reply` (to `sql`) showed a reader: any that appears
 * in it, and all of them after a look at pg_stat_activity or at ages, which order them.
 */
export function noteShown(ctx: LayerContext, sql: string, reply: QueryReply): void {
  const open = openXids(ctx);
  if (ctx.shownXids.size > 0) {
    const still = new Set(open);
    for (const xid of ctx.shownXids) if (!still.has(xid)) ctx.shownXids.delete(xid);
  }
  if (open.length === 0) return;
  if (showsAges.test(sql)) {
    for (const xid of open) ctx.shownXids.add(xid);
    return;
  }
  const text = JSON.stringify(reply);
  for (const xid of open) {
    if (new RegExp(`(?<![0-9])${xid}(?![0-9])`).test(text)) ctx.shownXids.add(xid);
  }
}

/**
 * What shows a transaction's own XID where its order among others does not matter:
 * pg_stat_activity's XID columns (or all of them), and ages.
 */
const showsXidColumns =
  /\bbackend_xid\b|\bbackend_xmin\b|\bpg_stat_activity\s*\.\s*\*|\bselect\s+\*|\b(?:age|mxid_age)\s*\(/i;

/** A transaction's own XID, as a number. */
const showsOwnXid = /\b(?:txid_current\w*|pg_current_xact_id\w*|txid_status|pg_xact_status)\b/i;

/** Output that shows the XIDs in rows' headers, which a transaction's rows keep. */
const showsRowXids = /\b(?:xmin|xmax|heap_page_items|pg_get_multixact_members)\b/i;

/**
 * A refusal for `sql` while a replayed transaction's new XID puts it after transactions
 * it came before on a server, or replaces one a reader saw, if `sql` could show XIDs or
 * their order; after such a transaction ended, if `sql` could show rows' XIDs; null
 * otherwise.
 */
export function xidsHidden(ctx: LayerContext, sql: string): QueryReply | null {
  if (ctx.renumbered.length === 0) return null;
  const open = new Set(openXids(ctx));
  const live = (r: Renumbering) =>
    r.s.xactSeq === r.seq &&
    ctx.sessions.has(r.s.id) &&
    r.s.holding.kind !== 'none' &&
    (r.shown === true || r.skipped === true || r.passed.some((xid) => open.has(xid)));
  const ended = ctx.renumbered.filter((r) => !live(r) && !r.shown);
  for (const r of ended) ctx.renumbered.splice(ctx.renumbered.indexOf(r), 1);
  const r = ctx.renumbered.find(live);
  const passedOpen = r?.passed.some((xid) => open.has(xid)) === true;
  // Only others' XIDs taken since, all ended: what compares its XID with theirs, as a
  // number (its own txid_current()) or in rows' headers.
  const shows = passedOpen
    ? showsXids.test(sql) || showsAges.test(sql)
    : r?.shown !== true && r?.skipped === true
      ? showsOwnXid.test(sql) || showsRowXids.test(sql)
      : showsXids.test(sql) || showsXidColumns.test(sql);
  if (r && shows) {
    const why = r.shown ? 'shown' : passedOpen ? 'order' : 'skipped';
    return notExpressible('xid-renumbered', whose(r.s), r.was, r.now, why);
  }
  const kept = ctx.renumbered.find((k) => k.shown);
  if (!kept || !showsRowXids.test(sql)) return null;
  return notExpressible('xid-renumbered', whose(kept.s), kept.was, kept.now, 'rows');
}

/**
 * The volatile functions `text` reaches without naming them, or null: through a view it
 * names (and the views those read: PostgreSQL records no dependency on a built-in
 * function, so the views' definitions are read), or as a function of the reader's own that
 * is not IMMUTABLE (one marked STABLE may call random() all the same). Defaults are asked
 * about apart (`cannotReplay`).
 */
async function volatileBehind(ctx: LayerContext, text: string): Promise<string | null> {
  const words = [...new Set(text.toLowerCase().match(/[a-z_][a-z0-9_$]*/g) ?? [])];
  const [views] = await ctx.backend.exec(
    `WITH RECURSIVE views(oid) AS (
       SELECT c.oid FROM pg_catalog.pg_class c
        WHERE c.relkind IN ('v', 'm')
          AND c.relname IN (SELECT pg_catalog.jsonb_array_elements_text($1::pg_catalog.jsonb))
       UNION
       SELECT d.refobjid FROM views v
         JOIN pg_catalog.pg_rewrite r ON r.ev_class = v.oid
         JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
          AND d.objid = r.oid AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
         JOIN pg_catalog.pg_class c ON c.oid = d.refobjid AND c.relkind IN ('v', 'm'))
     SELECT pg_catalog.pg_get_viewdef(oid) FROM views`,
    [JSON.stringify(words)],
  );
  const called = calledNames(text);
  const viewCalls = views!.rows.flatMap(([definition]) => calledNames(definition ?? ''));
  if (called.length === 0 && viewCalls.length === 0) return null;
  const [found] = await ctx.backend.exec(
    `SELECT pg_catalog.string_agg(DISTINCT p.proname::pg_catalog.text, ', ') FROM pg_catalog.pg_proc p
      WHERE (p.proname = ANY ($1::pg_catalog.text[])
             AND (p.provolatile = 'v' OR p.proname = 'statement_timestamp')
             AND p.proname <> ALL ($3::pg_catalog.text[]))
         OR (p.proname = ANY ($1::pg_catalog.text[] || $2::pg_catalog.text[])
             AND p.provolatile = 's' AND p.pronamespace <> 'pg_catalog'::pg_catalog.regnamespace)`,
    [`{${viewCalls.join(',')}}`, `{${called.join(',')}}`, `{${replayableVolatile.join(',')}}`],
  );
  return found!.rows[0]?.[0] ?? null;
}

/** How a parked transaction is replayed: with its first snapshot imported, and where. */
interface Replay {
  importAt: ImportPoint | null;
  /** A reader saw the XID it had, which the replay's replaces (`xidsHidden`). */
  shown: boolean;
  /**
   * The tables others' commits since its first snapshot wrote, by OID, or `all` where
   * that is not known: their rows may now lie before the replay's (replay-traces.ts).
   */
  committedTo: string[] | 'all';
}

/**
 * Why `s`'s parked transaction cannot be replayed to go on, or how it can: every
 * statement it ran can run again, nothing committed since its first snapshot (so a new
 * transaction sees the same data, and its conflicts with the others are the same) or,
 * for READ COMMITTED, nothing written since where it reads (`writtenByOthers`), or, for
 * REPEATABLE READ, its first snapshot can be taken again (`importBlocked`), no
 * reader has seen its XID, and nothing it did would come out differently without its
 * answer showing it (a sequence, the clock, a volatile function, a trigger, a default
 * that is not a constant, the catalog).
 */
async function cannotReplay(
  ctx: LayerContext,
  s: SessionRecord,
  next: string,
): Promise<string | Replay> {
  const h = s.holding;
  if (h.kind !== 'parked') return 'it is not parked';
  if (s.xactLog === null) {
    return (
      'it ran a statement whose answer came from the in-browser engine, one that belongs ' +
      `to the session, or more than ${maxLogged} statements`
    );
  }
  if (s.xactSnapshot === null) return 'its first snapshot was not recorded';
  const text = s.xactLog.map((e) => e.sql).join('\n');
  // By entry: a reader's statement need not end with a semicolon.
  const undoes = s.xactLog.some((e) =>
    splitStatements(e.sql).some(({ sql }) => toSavepoint.test(sql)),
  );
  if (measures.test(text)) return 'it ran EXPLAIN ANALYZE, whose times a replay would measure anew';
  // A claim (SKIP LOCKED, NOWAIT) whose skipped rows others have let go since: READ
  // COMMITTED asks PostgreSQL whether it would take the same rows (below).
  const freed = holderEnded(ctx, s);
  if (freed && h.isolation !== 'read committed') {
    return 'it skipped or refused locked rows, and a transaction that held them has let them go since';
  }
  // Its first statement runs again with the clock standing at the transaction's start
  // (`atClock`), so the transaction begins when it first began: now(), its other names
  // (transaction_timestamp(), CURRENT_TIMESTAMP, CURRENT_DATE, LOCALTIME…) and the
  // defaults made of them answer as before. statement_timestamp() and clock_timestamp()
  // would not; they are refused below, with the other volatile functions.
  if (sleeps.test(s.xactLog[0]?.sql ?? '')) {
    return 'the statement that began it slept, which cannot run again at the time it began';
  }
  // Rolling back to a savepoint gives up the row locks taken since it, which another
  // transaction may have taken since: the replay's statement would then wait for it.
  if (anotherHolds(ctx, s, 'parked') && undoes) {
    return 'it rolled back to a savepoint, giving up row locks another transaction may hold now';
  }
  const called = calledNames(text);
  const { backend } = ctx;
  const [facts] = await backend.exec(
    `WITH ${parkedCte},
     locked AS (
       SELECT c.oid, c.relkind, n.nspname, l.mode FROM pg_catalog.pg_locks l
         JOIN parked USING (virtualtransaction)
         JOIN pg_catalog.pg_class c ON c.oid = l.relation
         JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE l.locktype = 'relation'),
     written AS (SELECT oid FROM locked WHERE mode <> 'AccessShareLock' AND mode <> 'RowShareLock')
     SELECT
       (${committedSince('$2')}),
       (SELECT coalesce(pg_catalog.bool_or(relkind = 'S'), false) FROM locked),
       (SELECT coalesce(pg_catalog.bool_or(nspname = 'pg_catalog' AND mode <> 'AccessShareLock'), false) FROM locked),
       (SELECT pg_catalog.string_agg(DISTINCT p.proname::pg_catalog.text, ', ') FROM pg_catalog.pg_proc p
         WHERE p.proname IN (SELECT pg_catalog.jsonb_array_elements_text($3::pg_catalog.jsonb))
           AND p.proname NOT IN (SELECT pg_catalog.jsonb_array_elements_text($4::pg_catalog.jsonb))
           AND (p.provolatile = 'v' OR p.proname IN ('statement_timestamp'))),
       EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t JOIN written w ON t.tgrelid = w.oid
                WHERE NOT t.tgisinternal),
       EXISTS (SELECT 1 FROM (
                 SELECT d.adbin::pg_catalog.text FROM pg_catalog.pg_attrdef d JOIN written w ON d.adrelid = w.oid
                 UNION ALL
                 SELECT t.typdefaultbin::pg_catalog.text FROM pg_catalog.pg_attribute a
                   JOIN written w ON a.attrelid = w.oid
                   JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
                  WHERE t.typtype = 'd' AND t.typdefaultbin IS NOT NULL AND NOT a.attisdropped) d(bin)
                WHERE (d.bin ~ '\\{NEXTVALUEEXPR'
                   OR EXISTS (SELECT 1 FROM pg_catalog.regexp_matches(d.bin, ':(?:funcid|opfuncid) (\\d+)', 'g') m
                                JOIN pg_catalog.pg_proc p ON p.oid = m[1]::pg_catalog.oid
                               WHERE p.provolatile = 'v' OR p.proname = 'statement_timestamp'
                                  OR (p.provolatile = 's' AND p.pronamespace <> 'pg_catalog'::pg_catalog.regnamespace)))
                  AND ($5 OR EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite r JOIN written w2 ON r.ev_class = w2.oid
                                      WHERE r.ev_type <> '1')
                          OR EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k JOIN written w3 ON k.conrelid = w3.oid
                                      WHERE k.contype = 'f' AND 'd' IN (k.confdeltype, k.confupdtype)))),
       EXISTS (SELECT 1 FROM pg_catalog.pg_proc p
                WHERE p.proname IN (SELECT pg_catalog.jsonb_array_elements_text($3::pg_catalog.jsonb))
                  AND p.pronamespace <> 'pg_catalog'::pg_catalog.regnamespace)`,
    [
      h.gid,
      s.xactSnapshot,
      JSON.stringify(called),
      JSON.stringify(replayableVolatile),
      appliesDefaults.test(text),
    ],
  );
  const [committed, sequence, catalog, volatile, trigger, defaults, ownFunction] = facts!.rows[0]!;
  if (h.isolation === 'serializable' && (await sharesSerializableWork(ctx, s))) {
    return (
      'another SERIALIZABLE transaction open now wrote where it read, or read where it ' +
      'wrote: PostgreSQL noted that conflict against the transaction a replay rolls back, ' +
      'and a replay may not meet it again'
    );
  }
  // A REPEATABLE READ replay takes the original's snapshot again whenever it can: after
  // commits it must; before any, a new one would see the same rows, but show other XIDs.
  let importAt: ImportPoint | null = null;
  // The tables others' commits since wrote, where known (READ COMMITTED): all, else.
  let committedTo: string[] | 'all' = committed === '0' ? [] : 'all';
  if (h.isolation === 'repeatable read') {
    const why =
      (committed === '0' ? null : (readsOthersWork(text) ?? undidChanges(text, undoes))) ??
      (await importBlocked(ctx, s, next, stayingOpen(ctx, s), keepsStandIn(ctx, s)));
    if (why && committed !== '0') return `other transactions committed since it began, and ${why}`;
    if (!why) importAt = importPoint(s.xactLog);
  } else if (committed !== '0') {
    const why = await writtenByOthers(ctx, s, text, ownFunction === 't');
    if (typeof why === 'string')
      return `other transactions committed since it began (${why}), so its statements might read otherwise`;
    committedTo = why.written;
  }
  // A stand-in kept for the snapshot keeps its XID: the replay, still without one, shows
  // the same as the original did. A transaction that wrote goes on under a new XID, and
  // from then on XIDs stay hidden where they would show the new one (`xidsHidden`).
  const shown = ctx.shownXids.has(h.xid) && !(importAt && keepsStandIn(ctx, s));
  // Its own answers must not have shown it: the replay's would show the new one.
  if (shown && (h.emulatedSnapshot || showsXids.test(text) || showsAges.test(text))) {
    return `its XID (${h.xid}) has been shown, and a replay takes a new one`;
  }
  if (sequence === 't') return 'it used a sequence, whose values a rollback does not give back';
  if (catalog === 't') return 'it changed the catalog, and a replay would make new objects';
  if (volatile) return `it called ${volatile}, which a replay may answer differently unseen`;
  const hidden = await volatileBehind(ctx, text);
  if (hidden) return `it called ${hidden}, which a replay may answer differently unseen`;
  if (trigger === 't') return 'a trigger runs on a table it changed';
  if (defaults === 't') return 'a table it changed has a default that is not a constant';
  const replayAs = new Map<LoggedStatement, string>();
  if (h.isolation === 'read committed' && (committed !== '0' || freed)) {
    // A claim the replay takes again by its keys stays so (its rows are held all along).
    for (const entry of s.xactLog.filter((e) => e.holders && e.replayAs === undefined)) {
      const why = await claimHolds(ctx, s, entry);
      if (typeof why === 'string') return why;
      if (why) replayAs.set(entry, why.replayAs);
    }
  }
  for (const [entry, sql] of replayAs) entry.replayAs = sql;
  return { importAt, shown, committedTo };
}

/**
 * The XIDs that stay open while `s`'s parked transaction is replayed: all open now, but
 * its own, which is rolled back first unless it is kept for the snapshot the replay
 * imports (`keepsStandIn`), and the stand-in kept for that already (`snapshotPins`).
 */
function stayingOpen(ctx: LayerContext, s: SessionRecord): string[] {
  const h = s.holding;
  const pin = ctx.snapshotPins.get(s.id);
  const kept = (xid: string) => h.kind !== 'parked' || xid !== h.xid || keepsStandIn(ctx, s);
  return [...openXids(ctx).filter(kept), ...(pin ? [pin.xid] : [])];
}

/**
 * Whether `s`'s parked transaction, only a stand-in for its snapshot, is kept through a
 * replay to hold the horizon for the snapshot it imports (none is kept for it yet).
 */
function keepsStandIn(ctx: LayerContext, s: SessionRecord): boolean {
  return s.holding.kind === 'parked' && s.holding.emulatedSnapshot && !ctx.snapshotPins.has(s.id);
}

/**
 * Whether another SERIALIZABLE transaction set aside now, which ran a statement since
 * `s`'s parked SERIALIZABLE transaction began, wrote a table (or an index of one) that
 * `s`'s read, or read one it wrote, by their locks in pg_locks (SIReadLock for a read,
 * ROW EXCLUSIVE for a write). PostgreSQL records such a read/write conflict when the
 * second of the two happens: a write checks the readers' predicate locks (on a relation,
 * a page, a tuple), a read checks the writers of the row versions it visits. Rolled back,
 * `s`'s transaction takes its conflicts with it, and its replay, now second where it was
 * first, is checked the other way, which may not meet the same rows: the conflict can be
 * lost, and with it the serialization failure a server reports. One whose statements all
 * came before `s`'s first was first every time, as it is again for the replay.
 */
async function sharesSerializableWork(ctx: LayerContext, s: SessionRecord): Promise<boolean> {
  const began = s.xactLog?.[0]?.seq;
  const others = [...ctx.sessions.values()].flatMap((r) =>
    r !== s &&
    r.holding.kind === 'parked' &&
    r.holding.isolation === 'serializable' &&
    (began === undefined || r.lastSeq === undefined || r.lastSeq >= began)
      ? [r.holding.gid]
      : [],
  );
  if (others.length === 0 || s.holding.kind !== 'parked') return false;
  const [shared] = await ctx.backend.exec(
    `WITH xacts AS (
       SELECT l.virtualtransaction, p.gid = $1 AS own
         FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_prepared_xacts p
           ON l.locktype = 'transactionid' AND l.transactionid = p.transaction
        WHERE p.gid = $1 OR p.gid = ANY(pg_catalog.string_to_array($2, ','))),
     work AS (
       SELECT DISTINCT x.own, coalesce(i.indrelid, l.relation) AS rel, l.mode = 'SIReadLock' AS reads
         FROM pg_catalog.pg_locks l JOIN xacts x USING (virtualtransaction)
         LEFT JOIN pg_catalog.pg_index i ON i.indexrelid = l.relation
         JOIN pg_catalog.pg_class c ON c.oid = l.relation
        WHERE l.mode IN ('SIReadLock', 'RowExclusiveLock')
          AND c.relnamespace NOT IN ('sim'::pg_catalog.regnamespace, 'pg_catalog'::pg_catalog.regnamespace))
     SELECT EXISTS (SELECT 1 FROM work m JOIN work o USING (rel)
                     WHERE m.own AND NOT o.own AND m.reads <> o.reads)`,
    [s.holding.gid, others.join(',')],
  );
  return shared!.rows[0]![0] === 't';
}

/** Output that other transactions' commits change without writing a table it reads. */
const showsOthersWork =
  /\bpg_stat|_size\s*\(|\bpg_last_committed_xact\b|\bpg_xact_commit_timestamp\w*\b|\bpg_replication_slots\b|\bpg_blocking_pids\b|\bpg_backend_\w+|\bpg_prepared_statements\b/i;

/**
 * Why the transactions that committed since `s`'s began may have changed what its
 * statements read, or null when they cannot have: it is READ COMMITTED (each statement
 * reads the latest committed rows, so the replay's statements read what the originals did
 * when those rows are the same), and no table it holds a lock on, nor the catalog, was
 * written since it was first parked (`writeCounts`): every table a statement reads, it
 * locks. Its output shows no XIDs, snapshots or statistics, which commits change unseen.
 */
async function writtenByOthers(
  ctx: LayerContext,
  s: SessionRecord,
  text: string,
  ownFunction: boolean,
): Promise<string | { written: string[] }> {
  const h = s.holding;
  if (h.kind !== 'parked' || h.isolation !== 'read committed') return 'it is not READ COMMITTED';
  if (!s.xactWrites || !s.xactSnapshot) return 'what they wrote was not counted';
  // Its claims are asked about last (`claimHolds`), once nothing else refuses it.
  const reads = readsOthersWork(text, false);
  if (reads) return reads;
  const since = await writtenSince(ctx, h.gid, s.xactSnapshot, s.xactWrites);
  if (since === null) return { written: [] };
  if (typeof since === 'string') return since;
  return (await rowsConfined(ctx, s, since.written, ownFunction)) ?? since;
}

/** An INSERT of VALUES alone, which reads no rows (ON CONFLICT reads the one it meets). */
const insertsValues = /^\s*INSERT\s+INTO\s+([^()\s]+)(?:\s*\([^()]*\))?\s+VALUES\b/i;

/**
 * A subquery (SELECT, TABLE, VALUES inside an expression), or a function that reads the
 * table or query it is given by name (`table_to_xml`, `query_to_xml`, …).
 */
const readsInPassing =
  /\(\s*(?:SELECT|TABLE|VALUES|WITH)\b|\b(?:table|query|cursor|schema|database)_to_xml\w*\s*\(/i;

/** A SELECT that locks the rows of one table its WHERE matches, and reads no others. */
const lockingSelect = new RegExp(
  String.raw`^\s*SELECT\s+[\s\S]+?\s+FROM\s+(?:ONLY\s+)?(${identifier})(?:\s+(?:AS\s+)?(?!WHERE\b)([A-Za-z_]\w*))?\s+WHERE\s+([\s\S]+?)\s+FOR\s+(?:NO\s+KEY\s+UPDATE|UPDATE|KEY\s+SHARE|SHARE)\s*;?\s*$`,
  'i',
);

/** The table, alias and WHERE of a `lockingSelect`, if `sql` is one and nothing else. */
function lockedSelect(sql: string): { table: string; alias: string | null; where: string } | null {
  const m = lockingSelect.exec(sql);
  if (!m || (sql.match(/\bSELECT\b/gi) ?? []).length > 1) return null;
  if (/\b(?:JOIN|LIMIT|OFFSET|FETCH|GROUP|HAVING|UNION|INTERSECT|EXCEPT|WINDOW)\b|,/i.test(m[3]!))
    return null;
  return { table: m[1]!, alias: m[2] ?? null, where: m[3]! };
}

/**
 * Why others' writes to tables `s`'s parked READ COMMITTED transaction locks (`written`,
 * by OID) may change what its statements did, or null when they cannot. Each of its
 * statements must be one that reads no rows, an INSERT of VALUES, or an UPDATE, DELETE or
 * SELECT … FOR UPDATE of one table by a WHERE on its own rows (`modify` in waits.ts,
 * `lockedSelect`). The rows such a statement changed or locked, the parked transaction
 * locks still, so no one changed them since; others'
 * writes could only make more rows match its WHERE, and PostgreSQL counts those: rows that
 * match now that the transaction did not touch (their xmax is not its XID). None, and its
 * replay changes the same rows, which its answers (counts, RETURNING) confirm as it runs.
 */
async function rowsConfined(
  ctx: LayerContext,
  s: SessionRecord,
  written: string[],
  ownFunction: boolean,
): Promise<string | null> {
  const h = s.holding;
  if (h.kind !== 'parked') return 'it is not parked';
  const why = 'a table it read or wrote was written since, where its statements read';
  // A function of the reader's own may read any table.
  if (ownFunction) return `${why}, through a function`;
  /** The tables its statements change, lock or insert into by name, by OID. */
  const named = new Set<string>();
  const oidOf = async (table: string) => {
    const [found] = await ctx.backend.exec(
      `SELECT pg_catalog.to_regclass($1)::pg_catalog.oid::pg_catalog.text,
              EXISTS (SELECT FROM pg_catalog.pg_locks l
                       WHERE l.locktype = 'relation' AND l.mode = 'AccessExclusiveLock'
                         AND l.relation = pg_catalog.to_regclass($1))`,
      [table],
    );
    const [oid, locked] = found!.rows[0]!;
    if (oid) named.add(oid);
    return { oid, locked };
  };
  for (const entry of s.xactLog!) {
    for (const { sql } of splitStatements(entry.sql)) {
      if (readsNoRows.test(sql)) continue;
      // A claim takes the same rows again, which PostgreSQL is asked last (`claimHolds`).
      const claimed = entry.holders && answersByLocks.test(sql) ? claimTable(sql) : null;
      // Beside the subquery that picks its rows, a claim reads nothing in passing.
      const picker = lockedKeyChange(sql)?.subquery;
      if (claimed && readsInPassing.test(picker ? sql.replace(picker, '') : sql)) return why;
      if (claimed) {
        await oidOf(claimed);
        continue;
      }
      // Rows read in passing, by a subquery or by a function given a table's name, may
      // be others' new ones, in its own table too.
      if (readsInPassing.test(sql)) return why;
      const inserted = insertsValues.exec(sql)?.[1];
      if (inserted && !/\bON\s+CONFLICT\b/i.test(sql)) {
        await oidOf(inserted);
        continue;
      }
      const needs = statementNeeds(sql).rows;
      const rows = needs.kind === 'modify' ? needs : lockedSelect(sql);
      if (!rows) return why;
      const params = entry.params ?? [];
      const { oid, locked } = await oidOf(rows.table);
      if (oid === null) return why;
      // Nobody wrote its table since: it changes the same rows.
      if (!written.includes(oid!)) continue;
      // Its count would wait for the lock, and PGlite with it.
      if (locked === 't') return why;
      const target = rows.alias ?? rows.table;
      const others = await ctx.backend.run(
        `SELECT pg_catalog.count(*) FROM ${rows.table} ${rows.alias ?? ''}
          WHERE (${rows.where ?? 'true'})${unusedParams(rows.where, params)}
            AND ${target}.xmax::pg_catalog.text <> $${params.length + 1}`,
        [...params, h.xid],
      );
      if (others.error || others.results[0]?.rows[0]?.[0] !== '0') {
        return `${why}, and more rows match one of them now`;
      }
    }
  }
  // Any other table it holds a lock on, it read in passing (a subquery, TABLE, a foreign
  // key, a view): what it read there may have changed.
  if (written.some((oid) => !named.has(oid))) return `${why}, beside the rows it names`;
  return null;
}

/**
 * Why the statements `text` could answer otherwise after others committed, whatever they
 * wrote: they read XIDs, statistics or sizes, or rows others hold locks on (a transaction
 * that only locked rows writes none, but its end changes what SKIP LOCKED skips and what
 * NOWAIT fails on). Null when they cannot.
 */
function readsOthersWork(text: string, locks = true): string | null {
  if (showsXids.test(text) || showsAges.test(text) || showsOthersWork.test(text)) {
    return 'it read XIDs, snapshots or statistics';
  }
  if (locks && answersByLocks.test(text)) return 'it skipped or refused locked rows';
  return null;
}

/**
 * Why a REPEATABLE READ replay may fail where the original did not, or null. A row the
 * original still locks, no one could change since, so the replay's writes meet the
 * versions its snapshot sees; a change it undid (ROLLBACK TO SAVEPOINT, a PL/pgSQL
 * EXCEPTION block) holds nothing, and done again on a row another changed and committed
 * meanwhile, it fails with 40001 (`resume.test.ts` checks both on a server).
 */
function undidChanges(text: string, undoes: boolean): string | null {
  return undoes || exceptionBlock.test(text)
    ? 'it undid changes to rows that others may have changed since, which its replay would fail on'
    : null;
}

const exceptionBlock = /\bEXCEPTION\b/i;

/**
 * Runs log entry `i` of a replay again. With a snapshot to import, the file is written
 * right before the first entry begins the transaction, and the snapshot is imported
 * before the statement that took it the first time; an entry split there answers as the
 * statements before it and those from it on did together. Resolves to `refused` when
 * PostgreSQL would not take the snapshot (the transaction block is then aborted).
 */
async function replayEntry(
  ctx: LayerContext,
  s: SessionRecord,
  entry: LoggedStatement,
  i: number,
  at: ImportPoint | null,
): Promise<BackendReply | 'stuck' | { refused: string }> {
  const write = at && i === 0 ? () => writeSnapshotFile(ctx, s.xactSnapshot!) : undefined;
  if (!at || at.entry !== i) {
    return runReader(ctx, s, entry.replayAs ?? entry.sql, entry.params, write);
  }
  const statements = splitStatements(entry.sql).map(({ sql }) => sql);
  const before = statements.slice(0, at.statement).join(';\n');
  const head = before ? await runReader(ctx, s, before, undefined, write) : null;
  if (head === 'stuck' || head?.error) return head!;
  const refused = await importSnapshot(ctx);
  if (refused) return { refused: `PostgreSQL would not take its snapshot again (${refused})` };
  const rest = head ? statements.slice(at.statement).join(';\n') : entry.sql;
  const tail = await runReader(ctx, s, rest, entry.params);
  if (!head || tail === 'stuck') return tail;
  return {
    ...tail,
    results: [...head.results, ...tail.results],
    notices: [...head.notices, ...tail.notices],
  };
}

/**
 * Lets `s`'s parked transaction go on: rolls it back and runs its statements again in a
 * new transaction, which is kept only if each answers as before. Resolves to null once
 * `s` is resident again, or to the refusal: before anything is rolled back when the
 * replay could differ, or, when it did differ, after (the transaction is then gone, and
 * the session's block is aborted).
 */
export async function resume(
  ctx: LayerContext,
  s: SessionRecord,
  next: string,
): Promise<QueryReply | null> {
  const h = s.holding;
  if (h.kind !== 'parked') return null;
  const plan = await cannotReplay(ctx, s, next);
  if (typeof plan === 'string') return notExpressible('parked-goes-on', plan);
  const { importAt } = plan;
  const log = s.xactLog!;
  if (ctx.resident) await setAside(ctx, ctx.resident);
  const younger = openXids(ctx).filter((xid) => xid !== h.xid && BigInt(xid) > BigInt(h.xid));
  // A stand-in for the snapshot a replay imports holds the horizon for it from now on
  // (`snapshotPins`), until the transaction ends; one kept already stays.
  const keepStandIn = importAt !== null && keepsStandIn(ctx, s);
  if (!keepStandIn) {
    await noteWritten(ctx, h.gid, plan.committedTo);
    await rollbackPrepared(ctx, h.gid);
  }
  ctx.replayTraces.scanned = true;
  // Its XIDs are spent: the replay takes new ones (a stand-in's was noted when taken).
  // Its savepoints' came after its own, before it was set aside (`xidsBefore`).
  if (!h.emulatedSnapshot) noteSpent(ctx, h.xid);
  for (let x = BigInt(h.xid) + 1n; x < BigInt(h.xidsBefore ?? 0); x++) noteSpent(ctx, x);
  if (h.xidsBefore === undefined && log.some(({ sql }) => opensSubtransaction.test(sql))) {
    ctx.xidsUncounted = true;
  }
  await rollBackSpentStandIns(ctx);
  await loadSettings(ctx, s);
  for (const [i, entry] of log.entries()) {
    // The statement that began it begins the replay at the time it began (`atClock`), so
    // that now() answers in the replay, and after it, as it did.
    const clockMs = i === 0 ? h.shape.clockMs : undefined;
    const reply = await ctx.backend.atClock(clockMs, () => replayEntry(ctx, s, entry, i, importAt));
    const refused = typeof reply === 'object' && 'refused' in reply;
    if (refused && keepStandIn) {
      // PostgreSQL would not take the snapshot: its stand-in is parked still, as it was.
      await ctx.backend.exec('ROLLBACK');
      return notExpressible('parked-goes-on', reply.refused);
    }
    if (keepStandIn && importAt.entry === i) {
      ctx.snapshotPins.set(s.id, { gid: h.gid, xid: h.xid, xactSeq: s.xactSeq });
    }
    // Stopped by the reader while it ran again (stop.ts): its statement ends as a cancel
    // does, with the transaction block aborted, not as a replay that answered otherwise.
    const stopped = !refused && reply !== 'stuck' && isCancelled(ctx, s, ctx.statementSeq);
    if (!stopped && !refused && reply !== 'stuck' && answerKey(reply) === entry.answer) continue;
    if (refused || reply === 'stuck' || reply.status !== 'I') await ctx.backend.exec('ROLLBACK');
    s.holding = { kind: 'failed' };
    s.xactLog = null;
    s.xid = null;
    setState(ctx, s, 'idle in transaction (aborted)');
    if (stopped) return cancelled;
    const text = entry.sql.trim().replace(/\s+/g, ' ');
    const shown = text.length > 80 ? `${text.slice(0, 79)}…` : text;
    return notExpressible('replay-differs', String(i + 1), shown);
  }
  const [assigned] = await ctx.backend.exec(
    'SELECT pg_catalog.pg_current_xact_id_if_assigned()::pg_catalog.text, ' +
      'pg_catalog.pg_current_snapshot()::pg_catalog.text',
  );
  const [xid = null, snapshot = null] = assigned!.rows[0]!;
  claimsRanAgain(ctx, s);
  s.holding = { kind: 'resident', snapshotTaken: true, ...h.shape };
  s.status = 'T';
  s.xid = xid;
  // Run again plainly, its statements' rows carry its new XID, not a savepoint's.
  s.savepointXids = undefined;
  s.replayedFrom ??= h.xid;
  // Its rollback counted its own rows: the next time it is set aside, counting starts again.
  s.xactWrites = null;
  // A READ COMMITTED transaction's statements have all just run again: what committed
  // before now, they all read, as its statements from here on will.
  if (h.isolation === 'read committed') s.xactSnapshot = snapshot;
  ctx.resident = s;
  // XIDs others took since its own, committed or not, but for those the layer spent: the
  // next XID now (its new one, or the snapshot's xmax) less the old one, less one.
  const nextXidNow = BigInt(xid ?? snapshot!.split(':')[1]!);
  const oldXid = BigInt(h.xid);
  const spentSince = ctx.spentXids.filter((x) => x > oldXid && x < nextXidNow).length;
  const skipped = !h.emulatedSnapshot && nextXidNow - oldXid - 1n - BigInt(spentSince) > 0n;
  if (younger.length > 0 || plan.shown || skipped) {
    const now = xid ?? 'none yet';
    ctx.renumbered.push({
      s,
      seq: s.xactSeq,
      was: h.xid,
      now,
      passed: younger,
      shown: plan.shown,
      skipped,
    });
  }
  // Statements waiting for its rows wait for the same transaction under its new XID; a
  // deadlock's DETAIL names the one a reader saw, if one did, as a server would.
  for (const w of ctx.waiters) {
    if (w.s === s || w.s.blockedBy !== s) continue;
    if (w.rowWait?.holderXid === h.xid) w.rowWait.holderXid = xid;
    if (xid && !plan.shown) w.lock = w.lock.replace(`transaction ${h.xid}`, `transaction ${xid}`);
  }
  return null;
}
