// Deciding, before a statement is sent, whether it would wait on a parked transaction.
import { leadingKeyword, splitStatements } from '../../split-statements';
import type { BackendReply } from '../backend';
import {
  assignments,
  blankStrings,
  conflicts,
  mentions,
  mergeParts,
  statementNeeds,
  withNowait,
  type LockMode,
  type RowAction,
} from '../waits';
import {
  anotherHolds,
  type LayerContext,
  type ParkedLock,
  type SessionRecord,
  type TableRequest,
  type Waiter,
} from './context';
import { quoteIdent, type MatchedRows } from './recheck';
import { readLocksCheck, readLockWait } from './read-locks';
import { enter, setAside } from './parking';
import { loadSettings } from './session-settings';
import {
  closeSavepoint,
  noteSpent,
  openSavepoint,
  readTopXid,
  savepointXidsOf,
  topXid,
} from './spent-xids';
import { runReader } from './watchdog';

/** What `check` found a statement would do if sent now. */
export type Verdict =
  | { verdict: 'free' }
  | { verdict: 'done'; reply: BackendReply }
  | {
      verdict: 'waits';
      holder: SessionRecord | null;
      event: 'relation' | 'transactionid';
      watchdog?: boolean;
      /** The lock, as a deadlock report names it, when it is not the holder's XID. */
      lock?: string;
      /** The target rows the holder is changing too (see `RowWait.matched`). */
      matched?: MatchedRows;
      /** Whether it is still held, when that is not while the holder is parked. */
      held?: () => boolean;
      /** For a table lock: the table and mode, which later requests queue behind. */
      table?: TableRequest;
    }
  | { verdict: 'unknown'; holder: SessionRecord }
  /**
   * A probe found it would wait for a row, and several parked transactions lock rows where
   * it locks: which of them it meets first, and so when it goes on, cannot be told.
   */
  | { verdict: 'one-of'; holders: SessionRecord[] }
  /** It would queue behind `waiter`'s request for a table lock (see `queuedBehind`). */
  | { verdict: 'queued'; waiter: Waiter & { table: TableRequest } }
  /**
   * Its table lock in `mode` and `waiter`'s request wait for each other: a server fails it
   * at once, before it waits (see `queuedBehind`).
   */
  | { verdict: 'deadlock'; waiter: Waiter & { table: TableRequest }; mode: LockMode };

/** Whether a table lock in `mode` is the one a transaction takes with rows it locks or changes. */
const locksRows = (mode: LockMode) => mode === 'RowShareLock' || mode === 'RowExclusiveLock';

/** Locks that parked transactions hold on relations, with their holders. */
async function parkedRelationLocks(
  ctx: LayerContext,
): Promise<(ParkedLock & { holder: SessionRecord })[]> {
  const { parkedLocksByGid } = ctx;
  const byGid = new Map(
    [...ctx.sessions.values()].flatMap((r) =>
      r.holding.kind === 'parked' ? [[r.holding.gid, r] as const] : [],
    ),
  );
  for (const gid of parkedLocksByGid.keys()) if (!byGid.has(gid)) parkedLocksByGid.delete(gid);
  if ([...byGid.keys()].some((gid) => !parkedLocksByGid.has(gid))) {
    const [locks] = await ctx.backend.exec(`
      WITH parked AS (
        SELECT l.virtualtransaction, p.gid
          FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_prepared_xacts p
            ON l.locktype = 'transactionid' AND l.transactionid = p.transaction)
      SELECT parked.gid, c.relname, l.mode,
             pg_catalog.format('relation %s of database %s', l.relation, l.database)
        FROM pg_catalog.pg_locks l JOIN parked USING (virtualtransaction)
        JOIN pg_catalog.pg_class c ON c.oid = l.relation
       WHERE l.locktype = 'relation'`);
    for (const gid of byGid.keys()) parkedLocksByGid.set(gid, []);
    for (const [gid, relname, mode, tag] of locks!.rows) {
      parkedLocksByGid.get(gid!)?.push({ relname: relname!, mode: mode as LockMode, tag: tag! });
    }
  }
  return [...byGid].flatMap(([gid, holder]) =>
    (parkedLocksByGid.get(gid) ?? []).map((lock) => ({ holder, ...lock })),
  );
}

/**
 * The XIDs of parked transactions other than `s`'s, with the session each belongs to: their
 * own, and those of savepoints the layer released into them (`savepointXidsOf`).
 */
function parkedXids(ctx: LayerContext, s: SessionRecord): Map<string, SessionRecord> {
  return new Map(
    [...ctx.sessions.values()].flatMap((r) =>
      r !== s && r.holding.kind === 'parked' && !r.holding.emulatedSnapshot
        ? [r.holding.xid, ...savepointXidsOf(r)].map((x) => [x, r] as const)
        : [],
    ),
  );
}

/** The primary key columns of `table`, in order (not its INCLUDE columns); null when it has none. */
async function primaryKey(ctx: LayerContext, table: string): Promise<string[] | null> {
  const [key] = await ctx.backend.exec(
    `SELECT pg_catalog.array_to_json(pg_catalog.array_agg(a.attname ORDER BY k.n))::pg_catalog.text
       FROM pg_catalog.pg_index i
       CROSS JOIN LATERAL pg_catalog.unnest(i.indkey[0:i.indnkeyatts - 1]) WITH ORDINALITY AS k(attnum, n)
       JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
      WHERE i.indrelid = $1::pg_catalog.regclass AND i.indisprimary`,
    [table],
  );
  const columns = key?.rows[0]?.[0];
  return columns ? (JSON.parse(columns) as string[]) : null;
}

/**
 * Selects the primary key of `target`'s rows that `from` and `where` find (`target` names
 * the table in them) with the relation each is stored in, and groups them so. An error
 * is the layer's own unless `mayFail` (then it gives none).
 */
async function keysByRelation(
  ctx: LayerContext,
  columns: string[],
  target: string,
  from: string,
  where: string,
  params: unknown[] | undefined,
  mayFail = false,
): Promise<MatchedRows | undefined> {
  const sql = `SELECT (SELECT c.relname::pg_catalog.text FROM pg_catalog.pg_class c
              WHERE c.oid OPERATOR(pg_catalog.=) ${target}.tableoid),
            pg_catalog.json_build_array(${columns.map((c) => `${target}.${quoteIdent(c)}`).join(', ')})::pg_catalog.text
       FROM ${from} WHERE ${where}`;
  const reply = await ctx.backend.run(sql, params);
  if (reply.error && !mayFail) throw new Error(`${sql}: ${reply.error.message}`);
  if (reply.error) return undefined;
  const keys: Record<string, string[]> = {};
  for (const [relname, k] of reply.results[0]!.rows) (keys[relname!] ??= []).push(k!);
  return { columns, keys };
}

/**
 * The rows an UPDATE or DELETE targets (`where` on `table`) that transaction `xid` holds,
 * by primary key and the relation each is stored in: the rows a server's recheck re-reads
 * at their newest versions. None when the table has no primary key.
 */
async function matchedRows(
  ctx: LayerContext,
  table: string,
  alias: string | null,
  where: string | null,
  xid: string,
  params: unknown[] | undefined,
): Promise<MatchedRows | undefined> {
  const columns = await primaryKey(ctx, table);
  if (!columns) return undefined;
  const target = alias ?? table;
  return keysByRelation(
    ctx,
    columns,
    target,
    `${table} ${alias ?? ''}`,
    `(${where ?? 'true'}) AND ${target}.xmax::pg_catalog.text = '${xid}'${unusedParams(where, params)}`,
    params,
  );
}

/** A name directly followed by a parenthesis: a function call, or a keyword before one. */
const callLike = /[A-Za-z_][\w$]*\s*\(/;

/**
 * The target rows a MERGE joins with its data source that transaction `xid` holds, as
 * `matchedRows` gives them for an UPDATE: a server's recheck of such a row re-reads its
 * newest version and evaluates the join and the WHEN clauses on it again
 * (ExecMergeMatched in nodeModifyTable.c). Found by a SELECT of the same join, run in the
 * session's transaction, so only when neither the join condition nor the data source
 * calls anything (which might have effects of its own); none otherwise.
 */
export async function mergeMatchedRows(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params: unknown[] | undefined,
  xid: string,
): Promise<MatchedRows | undefined> {
  const parts = mergeParts(sql);
  if (!parts) return undefined;
  const { target, alias, source, on } = parts;
  // A parenthesized source's own parenthesis follows no name.
  if (callLike.test(source) || callLike.test(on)) return undefined;
  const columns = await primaryKey(ctx, target);
  if (!columns) return undefined;
  await enter(ctx, s);
  const own = s.holding.kind !== 'none';
  if (own) await ctx.backend.exec('SAVEPOINT seat_ledger_matched');
  const name = alias ?? target;
  const matched = await keysByRelation(
    ctx,
    columns,
    name,
    `${target} ${alias ?? ''} JOIN ${source} ON (${on})`,
    `${name}.xmax::pg_catalog.text = '${xid}'${unusedParams(`${source} ${on}`, params)}`,
    params,
    true,
  );
  if (own) {
    await ctx.backend.exec(
      'ROLLBACK TO SAVEPOINT seat_ledger_matched; RELEASE SAVEPOINT seat_ledger_matched',
    );
  }
  return matched;
}

/**
 * Whether an UPDATE's or DELETE's target rows are free of conflicting row locks: a NOWAIT
 * probe locks them in the mode the statement would (FOR UPDATE to delete a row or change
 * a key column, FOR NO KEY UPDATE otherwise: heap_update and heap_delete), inside the
 * session's transaction, and is undone. An UPDATE that assigns a key column changes the
 * key only in rows where the new value is not the old one (heap_update compares them:
 * `SET id = id` changes no key), so its rows are probed in the two modes apart, by the
 * key values their SET expressions give; 'unknown' when those cannot be read and the
 * two modes would answer differently. Key columns are those a foreign key could refer to
 * (RelationGetIndexAttrBitmap, INDEX_ATTR_BITMAP_KEY): of a unique index without an
 * expression or a predicate, and not its INCLUDE columns.
 */
async function rowsFree(
  ctx: LayerContext,
  s: SessionRecord,
  statement: string,
  rows: Extract<RowAction, { kind: 'modify' }>,
  params: unknown[] | undefined,
  only = 'true',
): Promise<boolean | 'unknown'> {
  const { backend } = ctx;
  const [keys] = await backend.exec(
    `SELECT coalesce(pg_catalog.json_object_agg(
              a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod))::pg_catalog.text, '{}')
       FROM (SELECT DISTINCT a.attname, a.atttypid, a.atttypmod
               FROM pg_catalog.pg_index i JOIN pg_catalog.pg_attribute a
                 ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey[0:i.indnkeyatts - 1])
              WHERE i.indrelid = $1::pg_catalog.regclass AND i.indisunique
                AND i.indpred IS NULL AND i.indexprs IS NULL) a`,
    [rows.table],
  );
  const keyTypes = JSON.parse(keys!.rows[0]![0]!) as Record<string, string>;
  const changesKey = rows.sets === null || rows.sets.some((c) => c in keyTypes);
  if (!changesKey) return rowsLockable(ctx, s, rows, params, 'NO KEY UPDATE', only);
  if (rows.sets === null) return rowsLockable(ctx, s, rows, params, 'UPDATE', only);
  const changed = await keyChanged(ctx, s, statement, rows, params, keyTypes);
  if (changed === null) {
    if (await rowsLockable(ctx, s, rows, params, 'UPDATE', only)) return true;
    return (await rowsLockable(ctx, s, rows, params, 'NO KEY UPDATE', only)) ? 'unknown' : false;
  }
  return (
    (await rowsLockable(ctx, s, rows, params, 'UPDATE', `${changed} AND ${only}`)) &&
    rowsLockable(ctx, s, rows, params, 'NO KEY UPDATE', `NOT ${changed} AND ${only}`)
  );
}

/**
 * A condition true of the target rows whose key values an UPDATE changes: its SET
 * expressions for key columns, cast to the column's type, compared with the old values
 * as text (close to heap_update's comparison of the bytes). Null when the SET list
 * cannot be read or the condition fails on the target rows.
 */
async function keyChanged(
  ctx: LayerContext,
  s: SessionRecord,
  statement: string,
  rows: Extract<RowAction, { kind: 'modify' }>,
  params: unknown[] | undefined,
  keyTypes: Record<string, string>,
): Promise<string | null> {
  const sets = assignments(statement);
  if (!sets) return null;
  const target = rows.alias ?? rows.table;
  const tests: string[] = [];
  for (const { columns, expr } of sets) {
    const keyed = columns.filter((c) => c in keyTypes);
    if (keyed.length === 0) continue;
    if (columns.length > 1) return null; // (a, b) = (…): not read apart
    const column = `${target}.${quoteIdent(keyed[0]!)}`;
    tests.push(
      `((${expr})::${keyTypes[keyed[0]!]})::pg_catalog.text IS DISTINCT FROM ${column}::pg_catalog.text`,
    );
  }
  if (tests.length === 0) return null;
  const changed = `(${tests.join(' OR ')})`;
  const own = ctx.resident === s;
  await ctx.backend.exec(own ? 'SAVEPOINT seat_ledger_probe' : 'BEGIN');
  const tried = await ctx.backend.run(
    `SELECT ${changed} FROM ${rows.table} ${rows.alias ?? ''}
      WHERE (${rows.where ?? 'true'})${unusedParams(rows.where, params)}`,
    params,
  );
  await ctx.backend.exec(
    own
      ? 'ROLLBACK TO SAVEPOINT seat_ledger_probe; RELEASE SAVEPOINT seat_ledger_probe'
      : 'ROLLBACK',
  );
  return tried.error ? null : changed;
}

/** Whether a NOWAIT probe could lock the target rows (those `also` holds of) `FOR mode`. */
async function rowsLockable(
  ctx: LayerContext,
  s: SessionRecord,
  rows: Extract<RowAction, { kind: 'modify' }>,
  params: unknown[] | undefined,
  mode: 'UPDATE' | 'NO KEY UPDATE',
  also = 'true',
): Promise<boolean> {
  const { backend } = ctx;
  const own = ctx.resident === s;
  // In a savepoint either way, so that the XIDs it spends can be told (`noteProbe`).
  const before = await openSavepoint(ctx, 'seat_ledger_probe', !own);
  const probe = await backend.run(
    `SELECT 1 FROM ${rows.table} ${rows.alias ?? ''}
      WHERE (${rows.where ?? 'true'}) AND ${also}${unusedParams(rows.where, params)}
      FOR ${mode} OF ${rows.alias ?? rows.table.split('.').pop()} NOWAIT`,
    params,
  );
  const wrote = !probe.error && (probe.results[0]?.rowCount ?? 0) > 0;
  const after = await closeSavepoint(ctx, 'seat_ledger_probe', before, { kept: false, wrote });
  if (!own) await backend.exec('ROLLBACK');
  // Begun for the probe, its transaction's own XID is spent too.
  if (!own && after !== null) noteSpent(ctx, after);
  // Any other error is the statement's own, for it to report when it runs.
  return probe.error?.code !== '55P03';
}

/**
 * Mentions of the statement's parameters its WHERE does not use (a value for SET), named
 * once as text so that PostgreSQL can tell their types when the WHERE runs on its own.
 */
export function unusedParams(where: string | null, params: unknown[] | undefined): string {
  return (params ?? [])
    .flatMap((_p, i) =>
      new RegExp(String.raw`\$${i + 1}(?!\d)`).test(where ?? '')
        ? []
        : [` AND ($${i + 1}::pg_catalog.text IS NULL OR true)`],
    )
    .join('');
}

/** The inheritance children (partitions) of the tables an ANALYZE names, at any depth. */
async function analyzedChildren(ctx: LayerContext, statement: string): Promise<Set<string>> {
  const analyze = /^\s*ANALYZE\b|^\s*VACUUM\b[^;]*\bANALYZE\b/i.test(statement);
  if (!analyze) return new Set();
  const [tree] = await ctx.backend.exec(
    `WITH RECURSIVE tree(parent, child) AS (
       SELECT p.relname::pg_catalog.text, i.inhrelid
         FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class p ON p.oid = i.inhparent
       UNION ALL
       SELECT tree.parent, i.inhrelid FROM tree JOIN pg_catalog.pg_inherits i ON i.inhparent = tree.child)
     SELECT tree.parent, c.relname FROM tree JOIN pg_catalog.pg_class c ON c.oid = tree.child`,
  );
  return new Set(
    tree!.rows.flatMap(([parent, child]) => (mentions(statement, parent!) ? [child!] : [])),
  );
}

/**
 * What a server's lock manager makes of one of `statements`' table locks where other
 * sessions' requests wait (JoinWaitQueue in src/backend/storage/lmgr/proc.c). It walks the
 * waiting requests on the table in their order: the first one that conflicts with a lock
 * `s` holds there must wait for `s`, so `s` goes ahead of it, unless `s`'s request
 * conflicts with a lock that one holds there: then each waits for the other, and the
 * request fails at once with a deadlock. Before that, a waiting request `s`'s conflicts
 * with is one it queues behind. Null when no waiter is in the way.
 */
async function queuedBehind(
  ctx: LayerContext,
  s: SessionRecord,
  statements: string[],
): Promise<Extract<Verdict, { verdict: 'queued' | 'deadlock' }> | null> {
  const waiting = ctx.waiters.filter(
    (w): w is Waiter & { table: TableRequest } => w.s !== s && w.table !== undefined,
  );
  if (waiting.length === 0) return null;
  // The table locks a session holds: a closed transaction's reads, a parked one's locks,
  // or, for `s` alone, what the backend holds for it now.
  const held = async (r: SessionRecord): Promise<{ relname: string; mode: LockMode }[]> => {
    const holding = r.holding;
    if (holding.kind === 'released') {
      return holding.reads.map(({ relname }) => ({ relname, mode: 'AccessShareLock' }));
    }
    if (holding.kind === 'parked') {
      return (await parkedRelationLocks(ctx)).filter((l) => l.holder === r);
    }
    if (r !== s || ctx.resident !== s) return [];
    const [rows] = await ctx.backend.exec(
      `SELECT c.relname, l.mode FROM pg_catalog.pg_locks l
         JOIN pg_catalog.pg_class c ON c.oid = l.relation
        WHERE l.locktype = 'relation' AND l.pid = pg_catalog.pg_backend_pid() AND l.granted`,
    );
    return rows!.rows.map(([relname, mode]) => ({ relname: relname!, mode: mode as LockMode }));
  };
  const own = await held(s);
  for (const statement of statements) {
    const { mode } = statementNeeds(statement);
    if (mode === null) continue;
    for (const w of waiting) {
      const { relname } = w.table;
      if (!mentions(statement, relname)) continue;
      // Must it wait for `s`?
      if (own.some((l) => l.relname === relname && conflicts(l.mode, w.table.mode))) {
        // Must `s` wait for it?
        const theirs = (await held(w.s)).filter((l) => l.relname === relname);
        if (theirs.some((l) => conflicts(mode, l.mode))) {
          return { verdict: 'deadlock', waiter: w, mode };
        }
        break;
      }
      if (conflicts(mode, w.table.mode)) return { verdict: 'queued', waiter: w };
    }
  }
  return null;
}

/** Whether another session's parked transaction holds a lock on a relation `sql` names. */
export async function parkedLocksOn(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<boolean> {
  const locks = await parkedRelationLocks(ctx);
  return locks.some((l) => l.holder !== s && mentions(sql, l.relname));
}

/**
 * The parked session holding what `s`'s statement `sql`, found stuck by the watchdog,
 * waits for: the one with row locks on tables it names, else the only other parked session
 * that holds locks at all (only a parked transaction's lock can make the backend wait),
 * preferring one with row locks (a function's INSERT may wait on a unique key, a trigger
 * on a row). Null when that leaves more than one: the wait's end could not be told.
 */
export async function likelyHolder(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<SessionRecord | null> {
  const locks = (await parkedRelationLocks(ctx)).filter((l) => l.holder !== s);
  const only = (set: Set<SessionRecord>) => (set.size === 1 ? [...set][0]! : null);
  const named = new Set(
    locks.filter((l) => locksRows(l.mode) && mentions(sql, l.relname)).map((l) => l.holder),
  );
  if (named.size > 0) return only(named);
  const holders = new Set(locks.map((l) => l.holder));
  const writers = new Set(locks.filter((l) => locksRows(l.mode)).map((l) => l.holder));
  return only(holders) ?? only(writers);
}

/**
 * The statements of `s`'s `sql` that may take locks. A lone LOCK TABLE outside a
 * transaction block fails before it locks anything ("can only be used in transaction
 * blocks": RequireTransactionBlock comes first in standard_ProcessUtility), so it waits
 * for nothing; in a string of several it runs in their implicit block, and locks.
 */
function lockingStatements(s: SessionRecord, sql: string): string[] {
  const statements = splitStatements(sql).map((st) => st.sql);
  const failsAtOnce =
    statements.length === 1 &&
    s.holding.kind === 'none' &&
    leadingKeyword(statements[0]!) === 'LOCK';
  return failsAtOnce ? [] : statements;
}

/** The verdict on most statements, shared: nothing in the way. */
const free: Verdict = Object.freeze({ verdict: 'free' });

/**
 * Decides whether `sql`, sent now by `s`, would wait on a parked transaction, asking
 * PostgreSQL: pg_locks for table locks, the xmax of the target rows for UPDATE and
 * DELETE, a NOWAIT probe for SELECT … FOR UPDATE/SHARE. A probe that succeeds has
 * done the statement's work, so its reply is returned as the statement's own.
 */
export async function check(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params?: unknown[],
  { quiet = false }: { quiet?: boolean } = {},
): Promise<Verdict> {
  const { backend } = ctx;
  // Most statements meet no other transaction at all: then nothing is asked of PostgreSQL.
  const released = anotherHolds(ctx, s, 'released');
  const parked = s.holding.kind === 'parked' || anotherHolds(ctx, s, 'parked');
  if (!released && !parked && ctx.waiters.length === 0) return free;
  // (The checks below may set transactions aside: whether one is parked is asked again.)
  const statements = lockingStatements(s, sql);
  // A request that must wait joins the queue of waiting ones first, where a server may
  // find a deadlock at once or put it behind one of them.
  const queued = ctx.waiters.length > 0 ? await queuedBehind(ctx, s, statements) : null;
  if (queued) return queued;
  // Sent outside a block, it is run to see (`runMeetingReads`); else judged by its text.
  const read =
    released && readLocksCheck(ctx, s, sql) === 'text'
      ? await readLockWait(ctx, s, statements)
      : null;
  if (read) return read;
  if (s.holding.kind !== 'parked' && !anotherHolds(ctx, s, 'parked')) return free;
  const locks = await parkedRelationLocks(ctx);
  /** The parked transactions that lock rows where the statement's probe locks them. */
  let probe: { holders: Set<SessionRecord> } | null = null;
  /** A holder of a lock on a table the statement names only in a string, if any. */
  let named: SessionRecord | undefined;
  /** UPDATE and DELETE statements whose target rows have been looked at. */
  const checked = new Set<string>();
  for (const statement of statements) {
    const needs = statementNeeds(statement);
    const inherited = await analyzedChildren(ctx, statement);
    for (const lock of locks) {
      // ANALYZE of a parent reads its children's rows for the parent's statistics and
      // locks each child with ACCESS SHARE, SKIP_LOCKED or not (acquire_inherited_sample_rows).
      if (
        lock.holder !== s &&
        inherited.has(lock.relname) &&
        conflicts('AccessShareLock', lock.mode)
      ) {
        const tag = `AccessShareLock on ${lock.tag}`;
        return { verdict: 'waits', holder: lock.holder, event: 'relation', lock: tag };
      }
      if (!mentions(statement, lock.relname)) continue;
      // Named only in a string ('jobs'::regclass, relname = 'jobs'): whether it locks the
      // table depends on what reads the name, so it is sent under the watchdog's eye.
      if (!mentions(blankStrings(statement), lock.relname)) {
        const meets = lock.holder !== s && needs.mode !== null && conflicts(needs.mode, lock.mode);
        if (meets) named ??= lock.holder;
        continue;
      }
      const rowLocks = locksRows(lock.mode);
      if (lock.holder === s) {
        // A parked session's own locks: a server never waits on them, but a NOWAIT
        // probe, sent outside its transaction, would fail on them.
        if (rowLocks && needs.rows.kind === 'lock-rows') return { verdict: 'unknown', holder: s };
        continue;
      }
      if (needs.mode !== null && conflicts(needs.mode, lock.mode)) {
        const tag = `${needs.mode} on ${lock.tag}`;
        const table = { relname: lock.relname, mode: needs.mode };
        return { verdict: 'waits', holder: lock.holder, event: 'relation', lock: tag, table };
      }
      if (!rowLocks || needs.rows.kind === 'none') continue;
      if (needs.rows.kind === 'unchecked') return { verdict: 'unknown', holder: lock.holder };
      if (needs.rows.kind === 'lock-rows') {
        if (statements.length > 1) return { verdict: 'unknown', holder: lock.holder };
        probe ??= { holders: new Set() };
        probe.holders.add(lock.holder);
        continue;
      }
      // UPDATE or DELETE: a target row whose xmax is a parked XID is locked or updated
      // by that transaction. Whether the statement waits for it depends on the two lock
      // modes; a NOWAIT probe of the same rows in the statement's own mode finds out.
      if (checked.has(statement)) continue;
      checked.add(statement);
      const { table, alias, where } = needs.rows;
      await enter(ctx, s);
      const xids = parkedXids(ctx, s);
      const target = alias ?? table;
      // XIDs are digits, so they can stand in the text; `params` are the statement's own.
      const [found] = await backend.exec(
        `SELECT DISTINCT ${target}.xmax::pg_catalog.text FROM ${table} ${alias ?? ''}
          WHERE (${where ?? 'true'}) AND ${target}.xmax::pg_catalog.text = ANY('{${[...xids.keys()].join(',')}}')${unusedParams(where, params)}`,
        params,
      );
      // (A row locked in a savepoint carries its subtransaction's XID, which pg_locks does
      // not name for a prepared transaction: such a row is found by none, the statement is
      // sent under the watchdog's eye, and a wait it meets is found there.)
      const holders = (found?.rows ?? []).flatMap(([x]) => {
        const holder = xids.get(x!);
        return holder ? [{ holder, xid: x! }] : [];
      });
      if (holders.length === 0) continue;
      // The probe runs in the session's own transaction, or in one of its own when the
      // session has none or its transaction is parked (its rows whose xmax is another's
      // XID, it has not changed: it would be their xmax too). A parked one found free
      // goes on as a replay and is checked again from inside (run.ts). The probe costs
      // an XID only when it takes its locks, which is when the statement would not have
      // waited. Each holder's rows are probed apart: a lock of another's that does not
      // conflict (FOR KEY SHARE beside an UPDATE of no key) must not be taken for the
      // wait. An UPDATE or DELETE locks every row it targets, so it waits until all the
      // holders it conflicts with have ended, whichever it meets first.
      const probeable =
        ctx.resident === s || s.holding.kind === 'none' || s.holding.kind === 'parked';
      if (!probeable && holders.length > 1) {
        return { verdict: 'one-of', holders: holders.map((h) => h.holder) };
      }
      let meets: (typeof holders)[number] | undefined;
      for (const h of holders) {
        const only = `${target}.xmax::pg_catalog.text = '${h.xid}'`;
        const free = probeable && (await rowsFree(ctx, s, statement, needs.rows, params, only));
        if (free === 'unknown') return { verdict: 'unknown', holder: h.holder };
        if (!free) {
          meets = h;
          break;
        }
      }
      if (!meets) continue;
      const matched = await matchedRows(ctx, table, alias, where, meets.xid, params);
      return { verdict: 'waits', holder: meets.holder, event: 'transactionid', matched };
    }
  }
  if (named) return { verdict: 'unknown', holder: named };
  if (!probe) return { verdict: 'free' };
  // A NOWAIT probe: the statement itself with NOWAIT on its locking clauses, sent where
  // the statement would run. In the session's own open transaction it runs in a
  // savepoint, rolled back when it would have waited (a lock NOWAIT could not take
  // gives the transaction no XID); with no transaction open it is the statement itself.
  // A parked session's probe runs on its own: it only tells whether the statement waits.
  // With `quiet` (the statement waited before, see `runUndoable`) a probe that raised
  // notices is undone, even with no transaction open, and the statement is left to run.
  const own = s.holding.kind === 'resident' || s.holding.kind === 'released';
  const alone = s.holding.kind === 'none';
  // A parked session's probe, and a quiet one, run in a transaction begun for them, so
  // that the XID one spends when it is undone can be read (`noteSpent`).
  const begun = !own && (!alone || quiet);
  let before: string | null = null;
  if (own) {
    await enter(ctx, s);
    before = await openSavepoint(ctx, 'seat_ledger_probe');
  } else {
    if (ctx.resident) await setAside(ctx, ctx.resident);
    await loadSettings(ctx, s);
    if (begun) await backend.exec('BEGIN');
  }
  const reply = await runReader(ctx, s, withNowait(sql), params);
  const blocked = reply === 'stuck' || reply.error?.code === '55P03';
  const failed = reply !== 'stuck' && reply.error !== undefined;
  const noisy = quiet && reply !== 'stuck' && reply.notices.length > 0;
  const lockedRows =
    !failed && reply !== 'stuck' && reply.results.some((r) => (r.rowCount ?? 0) > 0);
  if (own) {
    const kept = !(blocked || failed || noisy);
    await closeSavepoint(ctx, 'seat_ledger_probe', before, { kept, wrote: lockedRows });
  } else if (begun) {
    const kept = alone && !blocked && !failed && !noisy;
    // (A lock NOWAIT could not take gives the transaction no XID.)
    const spent = kept || failed || blocked ? null : topXid(await backend.exec(readTopXid));
    if (spent !== null) noteSpent(ctx, spent);
    await backend.exec(kept ? 'COMMIT' : 'ROLLBACK');
  }
  if (blocked) {
    const watchdog = reply === 'stuck';
    const [holder, ...others] = probe.holders;
    if (others.length > 0) return { verdict: 'one-of', holders: [holder!, ...others] };
    return { verdict: 'waits', holder: holder!, event: 'transactionid', watchdog };
  }
  // Failed otherwise inside the transaction: sent for real, it fails and aborts it there,
  // as on a server.
  if ((own && failed) || noisy) return { verdict: 'free' };
  if (own) return { verdict: 'done', reply };
  if (alone) return { verdict: 'done', reply: { ...reply, status: 'I' } };
  return { verdict: 'free' };
}
