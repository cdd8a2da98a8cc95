// The ACCESS SHARE locks the layer keeps for transactions closed in the backend (the
// `released` holding), and the statements that meet them. On a server such a transaction
// still holds ACCESS SHARE on every table it read, which only ACCESS EXCLUSIVE conflicts
// with (ALTER TABLE, DROP, TRUNCATE, LOCK TABLE, VACUUM FULL, …). Which tables a statement
// locks that way is asked of PostgreSQL wherever it can be: the statement runs where it can
// be undone, and its own locks in pg_locks say whether it met a reader's table (by OID, so
// a schema, an inherited child, a cascade or dynamic SQL count as they do on a server).
// (src/engine/ARCHITECTURE.md, "Released readers".)
import { leadingKeyword, splitStatements } from '../../split-statements';
import type { BackendReply } from '../backend';
import { mentions, statementNeeds } from '../waits';
import { databaseOid, type LayerContext, type ReadTable, type SessionRecord } from './context';
import { enter } from './parking';
import { noteSpent, readTopXid, topXid } from './spent-xids';
import type { Verdict } from './wait-checks';
import { runReader } from './watchdog';

/** The other sessions whose closed transactions keep ACCESS SHARE on tables they read. */
function readers(ctx: LayerContext, s: SessionRecord): SessionRecord[] {
  return [...ctx.sessions.values()].filter(
    (r) => r !== s && r.holding.kind === 'released' && r.holding.reads.length > 0,
  );
}

/** Statements that never take ACCESS EXCLUSIVE on a table of their own accord. */
const neverExclusive =
  /^(?:SELECT|INSERT|UPDATE|DELETE|MERGE|WITH|VALUES|TABLE|SHOW|SET|RESET|BEGIN|START|COMMIT|END|ROLLBACK|ABORT|SAVEPOINT|RELEASE|PREPARE|EXECUTE|DEALLOCATE|EXPLAIN|COPY|LISTEN|UNLISTEN|NOTIFY|FETCH|MOVE|CLOSE|DECLARE|DISCARD|ANALYZE|CHECKPOINT|LOAD)$/i;

/**
 * Statements that cannot run in a transaction block, or that end or open one: a procedure
 * (CALL) or a DO block may commit, which only works outside a block.
 */
const outsideBlocks =
  /^\s*(?:BEGIN|START|COMMIT|END|ROLLBACK|ABORT|SAVEPOINT|RELEASE|PREPARE\s+TRANSACTION|VACUUM|CALL|CLUSTER\s*;?\s*$|CREATE\s+DATABASE|DROP\s+DATABASE|ALTER\s+DATABASE|CREATE\s+TABLESPACE|DROP\s+TABLESPACE|ALTER\s+SYSTEM|REINDEX\s+(?:SYSTEM|DATABASE))\b|\bCONCURRENTLY\b|^\s*DO\b[\s\S]*\b(?:COMMIT|ROLLBACK)\b/i;

/**
 * How `s`'s `sql` is checked against the tables released transactions read: not at all
 * (none is held, or it takes no ACCESS EXCLUSIVE lock; a function a SELECT calls is not
 * followed), by running it undoably (`runMeetingReads`), or by the tables its text names
 * (`readLockWait`). It runs undoably only outside a transaction block, in a block begun
 * for it in place of its implicit one, which takes the same XIDs: a savepoint in the
 * session's own block would take one more for a statement that writes the catalog. A
 * lone LOCK TABLE fails at once outside a block, so it waits for nothing.
 */
export function readLocksCheck(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): 'none' | 'run' | 'text' {
  if (readers(ctx, s).length === 0) return 'none';
  const statements = splitStatements(sql).map((st) => st.sql);
  const exclusive = statements.some(
    (st) =>
      statementNeeds(st).mode === 'AccessExclusiveLock' ||
      !neverExclusive.test(leadingKeyword(st) ?? ''),
  );
  if (!exclusive) return 'none';
  const lone = statements.length === 1 ? leadingKeyword(statements[0]!)?.toUpperCase() : null;
  if (s.holding.kind === 'none' && lone === 'LOCK') return 'none';
  const undoable = s.holding.kind === 'none' && !statements.some((st) => outsideBlocks.test(st));
  return undoable ? 'run' : 'text';
}

/** A wait for `reader`'s ACCESS SHARE lock on `table`, while it keeps that lock. */
async function readWait(
  ctx: LayerContext,
  reader: SessionRecord,
  table: ReadTable,
): Promise<Extract<Verdict, { verdict: 'waits' }>> {
  const database = await databaseOid(ctx);
  const seq = reader.xactSeq;
  const held = () =>
    ctx.sessions.has(reader.id) &&
    reader.xactSeq === seq &&
    ['released', 'resident', 'parked'].includes(reader.holding.kind);
  return {
    verdict: 'waits',
    holder: reader,
    event: 'relation',
    lock: `AccessExclusiveLock on relation ${table.oid} of database ${database}`,
    held,
    table: { relname: table.relname, mode: 'AccessExclusiveLock' },
  };
}

/**
 * A wait for the ACCESS SHARE lock a released transaction keeps on a table one of
 * `statements` names and locks ACCESS EXCLUSIVE, by its text; null if none. For a
 * statement that cannot run where it could be undone, and one that failed there.
 */
export async function readLockWait(
  ctx: LayerContext,
  s: SessionRecord,
  statements: string[],
): Promise<Verdict | null> {
  const all = readers(ctx, s);
  for (const statement of statements) {
    if (statementNeeds(statement).mode !== 'AccessExclusiveLock') continue;
    for (const reader of all) {
      if (reader.holding.kind !== 'released') continue;
      const table = reader.holding.reads.find((t) => mentions(statement, t.relname));
      if (table) return readWait(ctx, reader, table);
    }
  }
  return null;
}

/** What `runMeetingReads` made of a statement: PostgreSQL's reply, or the wait it met. */
export type ReadsMet =
  | BackendReply
  | 'stuck'
  | {
      waits: Extract<Verdict, { verdict: 'waits' }>;
      notices: boolean;
      /** It failed, and its text alone says it waits: PostgreSQL's reply, undone. */
      failed?: BackendReply;
    };

/**
 * Runs `s`'s `sql`, sent outside a transaction block, in a block begun for it in place of
 * its implicit one, and asks pg_locks whether it took ACCESS EXCLUSIVE on a table a
 * released transaction read. If it did, it is rolled back: on a server it would wait there
 * (`notices`: it raised some, which a server may have sent before the wait). If not, it
 * commits, as its implicit block would have. One that failed waits only where its text
 * names such a table (its locks went with the failure).
 */
export async function runMeetingReads(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params: unknown[] | undefined,
): Promise<ReadsMet> {
  const { backend } = ctx;
  await enter(ctx, s);
  await backend.exec('BEGIN');
  const reply = await runReader(ctx, s, sql, params);
  const all = readers(ctx, s);
  let met: { reader: SessionRecord; table: ReadTable } | null = null;
  if (reply !== 'stuck' && !reply.error) {
    const read = all.flatMap((r) => (r.holding.kind === 'released' ? r.holding.reads : []));
    const [locks] = await backend.exec(
      `SELECT l.relation::pg_catalog.text FROM pg_catalog.pg_locks l
        WHERE l.pid = pg_catalog.pg_backend_pid() AND l.locktype = 'relation'
          AND l.mode = 'AccessExclusiveLock' AND l.granted
          AND l.relation::pg_catalog.text IN (SELECT pg_catalog.jsonb_array_elements_text($1::pg_catalog.jsonb))`,
      [JSON.stringify(read.map((t) => t.oid))],
    );
    const taken = new Set(locks!.rows.map(([oid]) => oid!));
    for (const reader of all) {
      const reads = reader.holding.kind === 'released' ? reader.holding.reads : [];
      const table = reads.find((t) => taken.has(t.oid));
      if (table) {
        met = { reader, table };
        break;
      }
    }
  }
  const kept = reply !== 'stuck' && !reply.error && met === null;
  if (kept) {
    const end = await backend.run('COMMIT');
    // A deferred check fails the implicit block's commit, and so the statement.
    return end.error
      ? { ...reply, results: [], error: end.error, status: 'I' }
      : { ...reply, status: 'I' };
  }
  // Its XID, unless it failed (PostgreSQL shows none in an aborted block).
  const failed = reply === 'stuck' || reply.error !== undefined;
  const [top] = failed ? [null] : await backend.exec(readTopXid);
  await backend.exec('ROLLBACK');
  // Undone to run again, its XID is not the statement's (one that failed took it as on a
  // server, and stays failed). One that failed may have taken one, unseen.
  const spent = () => {
    const xid = top ? topXid([top]) : null;
    if (xid !== null) noteSpent(ctx, xid);
    else if (failed) ctx.xidsUncounted = true;
  };
  if (reply === 'stuck') {
    spent();
    return 'stuck';
  }
  const notices = reply.notices.length > 0;
  const statements = splitStatements(sql).map((st) => st.sql);
  const waits = met
    ? await readWait(ctx, met.reader, met.table)
    : await readLockWait(ctx, s, statements);
  if (waits?.verdict !== 'waits') return { ...reply, status: 'I' };
  spent();
  return met ? { waits, notices } : { waits, notices, failed: { ...reply, status: 'I' } };
}
