// A REPEATABLE READ transaction that must go on after others committed reads, as a replay,
// with the snapshot its first statement took: the layer writes that snapshot where
// PostgreSQL keeps exported ones and the replay imports it (SET TRANSACTION SNAPSHOT).
// Why this stands for the original, and when it cannot: ARCHITECTURE.md, "Resuming a
// parked transaction".
import { splitStatements } from '../../split-statements';
import type { BackendReply } from '../backend';
import { statementNeeds } from '../waits';
import type { LayerContext, LoggedStatement, SessionRecord } from './context';
import { takesSnapshot } from './parking';

/** A snapshot as `pg_current_snapshot()` prints it: `xmin:xmax:xip,…`, as full XIDs. */
interface Snapshot {
  xmin: bigint;
  xmax: bigint;
  xip: bigint[];
}

/** Where the replay imports the snapshot: before this statement of this log entry. */
export interface ImportPoint {
  entry: number;
  statement: number;
}

/** BEGIN or START TRANSACTION, which open a transaction block. */
const begins = /^\s*(?:BEGIN|START)\b/i;
const savepoint = /^\s*SAVEPOINT\b/i;
/** Characteristics PostgreSQL lets a transaction set only before its first snapshot. */
const setTransaction = /^\s*SET\s+TRANSACTION\b/i;

/** The file's name under pg_snapshots (ImportSnapshot accepts 0-9, A-F and '-'). */
const fileId = '5EA71ED6-00000000-1';

function parseSnapshot(text: string): Snapshot | null {
  const m = /^(\d+):(\d+):([\d,]*)$/.exec(text.trim());
  if (!m) return null;
  const xip = m[3] ? m[3].split(',').map((x) => BigInt(x)) : [];
  return { xmin: BigInt(m[1]!), xmax: BigInt(m[2]!), xip };
}

/**
 * Where the replay imports the snapshot: before the first statement that took one (the
 * original's snapshot was read right after the entry that holds it: parking.ts,
 * `xactSnapshot`), or before a SAVEPOINT ahead of it, since PostgreSQL imports a snapshot
 * only in the top transaction. Null when the transaction block is not open by then, or
 * when a SET TRANSACTION between the two would come after the import, where PostgreSQL
 * refuses it.
 */
export function importPoint(log: readonly LoggedStatement[]): ImportPoint | null {
  let opened = false;
  let at: ImportPoint | null = null;
  for (const [entry, { sql }] of log.entries()) {
    for (const [statement, { sql: one }] of splitStatements(sql).entries()) {
      if (!at && (takesSnapshot(one) || savepoint.test(one))) {
        if (!opened) return null;
        at = { entry, statement };
      }
      if (at && takesSnapshot(one)) return at;
      if (at && setTransaction.test(one)) return null;
      opened ||= entry > 0 || begins.test(one);
    }
  }
  return null;
}

/**
 * Why `s`'s parked REPEATABLE READ transaction cannot take its first snapshot again in a
 * replay, or null when it can. PostgreSQL installs an imported snapshot only if a
 * transaction running then holds the horizon at or below the snapshot's xmin
 * (ProcArrayInstallImportedXmin in src/backend/storage/ipc/procarray.c): the replay's own
 * backend does, when a transaction that was open when the snapshot was taken, or the
 * stand-in that took the next XID then (parking.ts), is still open; with it the row
 * versions the snapshot sees have been kept from pruning and VACUUM all along. `staying`
 * are the XIDs that stay open through the import. A stand-in kept for it (`keepsStandIn`,
 * then in `snapshotPins` until the transaction ends) holds the tables the transaction
 * first read with ACCESS SHARE, so it must hold nothing stronger, and the transaction
 * must not ask for ACCESS EXCLUSIVE.
 */
export async function importBlocked(
  ctx: LayerContext,
  s: SessionRecord,
  next: string,
  staying: string[],
  keepsStandIn: boolean,
): Promise<string | null> {
  const h = s.holding;
  if (h.kind !== 'parked' || h.isolation !== 'repeatable read') return 'it is not REPEATABLE READ';
  const snapshot = s.xactSnapshot ? parseSnapshot(s.xactSnapshot) : null;
  const log = s.xactLog ?? [];
  if (!snapshot || !importPoint(log)) return 'its first snapshot was not recorded';
  if (!staying.some((xid) => BigInt(xid) <= snapshot.xmin)) {
    return (
      'no transaction open when it took its snapshot is open now, so PostgreSQL would not ' +
      'let a new transaction take that snapshot again'
    );
  }
  const pinned = ctx.snapshotPins.has(s.id);
  if (!keepsStandIn && !pinned) return null;
  if ([...log.map((e) => e.sql), next].some(asksAccessExclusive)) {
    return 'it asks for ACCESS EXCLUSIVE on a table, which its replay would ask for too';
  }
  if (pinned) return null;
  const [held] = await ctx.backend.exec(
    `SELECT pg_catalog.count(*) FROM pg_catalog.pg_locks l
      WHERE l.virtualtransaction = (
              SELECT t.virtualtransaction FROM pg_catalog.pg_locks t
                JOIN pg_catalog.pg_prepared_xacts p ON t.transactionid = p.transaction
               WHERE t.locktype = 'transactionid' AND p.gid = $1)
        AND l.locktype NOT IN ('transactionid', 'virtualxid')
        AND NOT (l.locktype = 'relation' AND l.mode = 'AccessShareLock')`,
    [h.gid],
  );
  return held!.rows[0]![0] === '0'
    ? null
    : 'it holds locks stronger than a read, which its replay would take again';
}

/** Whether any statement of `sql` takes ACCESS EXCLUSIVE, which waits for ACCESS SHARE. */
export function asksAccessExclusive(sql: string): boolean {
  return splitStatements(sql).some(
    ({ sql: one }) => statementNeeds(one).mode === 'AccessExclusiveLock',
  );
}

/**
 * Writes `snapshot` (pg_current_snapshot() text) as an exported snapshot of the next
 * transaction the backend begins: ImportSnapshot (src/backend/utils/time/snapmgr.c) checks
 * that the virtual XID the file names is a running transaction's, and the replay's own is
 * the one after this statement's, so this must be the last query before the replay's
 * first. The file's fields are ExportSnapshot's; its XIDs are 32-bit. Subtransactions are
 * marked overflowed, so PostgreSQL looks their parents up (pg_subtrans) instead of a list.
 * COPY … TO a file needs a superuser: the session's role is set back in the same query.
 */
export async function writeSnapshotFile(ctx: LayerContext, snapshotText: string): Promise<void> {
  const snapshot = parseSnapshot(snapshotText)!;
  const xid32 = (x: bigint) => String(x & 0xffffffffn);
  const fields = [
    'iso:2',
    'ro:0',
    `xmin:${xid32(snapshot.xmin)}`,
    `xmax:${xid32(snapshot.xmax)}`,
    `xcnt:${snapshot.xip.length}`,
    ...snapshot.xip.map((x) => `xip:${xid32(x)}`),
    'sof:1',
    'sxcnt:0',
    'rec:0',
  ];
  const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
  const [role] = await ctx.backend.exec("SELECT pg_catalog.current_setting('role')");
  const current = role!.rows[0]![0]!;
  if (current !== 'none') await ctx.backend.exec('RESET ROLE');
  // COPY … TO needs an absolute path; data_directory is a superuser's to read.
  const [setting] = await ctx.backend.exec('SHOW data_directory');
  const directory = setting!.rows[0]![0]!;
  const copy = `COPY (
      SELECT pg_catalog.unnest(ARRAY[
               'vxid:' || pg_catalog.split_part(l.virtualtransaction, '/', 1) || '/' ||
                 (pg_catalog.split_part(l.virtualtransaction, '/', 2)::pg_catalog.int8 + 1),
               'pid:' || pg_catalog.pg_backend_pid(),
               'dbid:' || d.oid]
             || ARRAY[${fields.map(literal).join(', ')}])
        FROM pg_catalog.pg_locks l, pg_catalog.pg_database d
       WHERE l.locktype = 'virtualxid' AND l.pid = pg_catalog.pg_backend_pid()
         AND d.datname = pg_catalog.current_database())
    TO ${literal(`${directory}/pg_snapshots/${fileId}`)}`;
  await ctx.backend.exec(
    current === 'none'
      ? copy
      : `${copy}; SELECT pg_catalog.set_config('role', ${literal(current)}, false)`,
  );
}

/** Imports the snapshot written last: null when PostgreSQL took it, else why not. */
export async function importSnapshot(ctx: LayerContext): Promise<string | null> {
  const reply: BackendReply = await ctx.backend.run(`SET TRANSACTION SNAPSHOT '${fileId}'`);
  return reply.error ? reply.error.message : null;
}
