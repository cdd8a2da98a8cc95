// Where each session's transaction is while others use the backend: resident, parked, set aside.
import { rearmBackendTimers } from './backend-timers';
import { splitStatements } from '../../split-statements';
import type { BackendReply } from '../backend';
import {
  setState,
  type Holding,
  type LayerContext,
  type SessionRecord,
  type StandIn,
  type TransactionShape,
} from './context';
import type { QueryReply } from './replies';
import { loadSettings, noteSettingsAtBegin, settingsAtEnd } from './session-settings';
import { nextXid, noteSpent, opensSubtransaction } from './spent-xids';
import { writeCounts } from './write-counts';

/** Statements that do not take a snapshot in a REPEATABLE READ transaction. */
const noSnapshot = /^\s*(begin|start|set|savepoint|release|show|reset)\b/i;

/**
 * Statements that make a transaction's own state without touching data: what a
 * transaction closed in the backend runs again when it is reopened (see `enter`).
 */
const transactionLocal =
  /^\s*(?:savepoint|release|rollback\s+(?:work\s+|transaction\s+)?to|set(?!\s+transaction\b)|reset)\b/i;

/** A SELECT of set_config() calls and nothing else: SET LOCAL as a function (no table read). */
const setConfigOnly =
  /^\s*SELECT\s+(?:(?:pg_catalog\.)?set_config\s*\((?:[^()';]|'(?:[^']|'')*')*\)(?:\s+AS\s+\w+)?\s*(?:,\s*|(?=;?\s*$)))+;?\s*$/i;

/** A time setting as SHOW prints it (`0`, `300ms`, `2s`, `5min`, `1h`, `1d`), in ms. */
export function durationMs(shown: string): number {
  const match = /^(-?\d+(?:\.\d+)?)\s*(us|ms|s|min|h|d)?$/.exec(shown.trim());
  if (!match) return 0;
  const perUnit = { us: 0.001, ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };
  return Number(match[1]) * perUnit[(match[2] ?? 'ms') as keyof typeof perUnit];
}

/** Whether `sql` takes a snapshot: any of its statements but those above does. */
export const takesSnapshot = (sql: string) =>
  splitStatements(sql).some((statement) => !noSnapshot.test(statement.sql));

/**
 * Sets the resident's transaction aside so another session can use the backend; then the
 * stand-ins let go meanwhile are rolled back (one a replay kept for its snapshot holds
 * ACCESS SHARE on the tables it read: resume.ts).
 */
/**
 * A failed transaction rolled back whole, when it may have failed inside a savepoint: a
 * server aborts only the savepoint's part, and ROLLBACK TO SAVEPOINT brings the rest back,
 * so the transaction is lost, not failed (its next statement is refused as
 * `transaction-lost`, not answered as if the savepoint were gone). Null when its log shows
 * no SAVEPOINT; a transaction whose log was not kept may have one.
 */
export function lostWhole(r: SessionRecord): Extract<Holding, { kind: 'lost' }> | null {
  const savepoint = r.xactLog?.some(({ sql }) => /\bSAVEPOINT\b/i.test(sql)) ?? true;
  return savepoint
    ? {
        kind: 'lost',
        reason:
          'it failed while a savepoint may have been open, where a server undoes only what ' +
          'came after the savepoint, and the in-browser engine could set it aside only by ' +
          'rolling back the whole transaction',
      }
    : null;
}

/**
 * Before the layer asks PostgreSQL about `s`'s statement: questions cannot run inside an
 * aborted transaction. Another session's is set aside (rolled back, as it would be for the
 * statement itself); false when it is `s`'s own, whose statement fails at once but for
 * its end, so there is nothing to ask.
 */
export async function outOfAborted(ctx: LayerContext, s: SessionRecord): Promise<boolean> {
  if (ctx.resident?.status !== 'E') return true;
  if (ctx.resident === s) return false;
  await setAside(ctx, ctx.resident);
  return true;
}

export async function setAside(ctx: LayerContext, r: SessionRecord): Promise<void> {
  await park(ctx, r);
  await rollBackSpentStandIns(ctx);
}

async function park(ctx: LayerContext, r: SessionRecord): Promise<void> {
  const { backend } = ctx;
  const holding = r.holding;
  ctx.resident = null;
  if (holding.kind !== 'resident') return;
  if (r.state === 'idle in transaction (aborted)') {
    await backend.exec('ROLLBACK');
    const lost = lostWhole(r);
    r.holding = lost ?? { kind: 'failed' };
    if (lost) ctx.lostOnPark = { r, why: 'it had failed inside a savepoint' };
    return;
  }
  // Its start time goes with it, the first time (a transaction opened again keeps it).
  const [assigned] = await backend.exec(
    'SELECT pg_catalog.pg_current_xact_id_if_assigned()::pg_catalog.text, ' +
      '(EXTRACT(epoch FROM pg_catalog.transaction_timestamp()) * 1000)::pg_catalog.text',
  );
  let xid = assigned!.rows[0]![0];
  holding.clockMs ??= Number(assigned!.rows[0]![1]);
  let emulatedSnapshot = false;
  let locksOnly = false;
  if (xid === null) {
    const [cursors] = await backend.exec('SELECT pg_catalog.count(*) FROM pg_catalog.pg_cursors');
    const holdsSnapshot =
      cursors!.rows[0]![0] !== '0' ||
      (holding.isolation !== 'read committed' && holding.snapshotTaken) ||
      holding.portalSnapshot === true;
    // A lock stronger than a reader's (LOCK TABLE, an advisory lock) must be kept too.
    const [locks] = await backend.exec(
      `SELECT pg_catalog.count(*) FROM pg_catalog.pg_locks WHERE pid = pg_catalog.pg_backend_pid()
          AND locktype IN ('relation', 'advisory', 'object') AND mode <> 'AccessShareLock'
          AND (locktype <> 'advisory' OR $1)`,
      // Session-level advisory locks are the backend's, not this transaction's: while
      // any are held, advisory locks in pg_locks say nothing about the resident.
      [ctx.advisoryHeld.size === 0],
    );
    if (!holdsSnapshot && locks!.rows[0]![0] === '0') {
      // The tables it holds ACCESS SHARE on: the layer keeps that lock for it meanwhile.
      const [read] = await backend.exec(
        `SELECT DISTINCT c.oid::pg_catalog.text, c.relname FROM pg_catalog.pg_locks l
           JOIN pg_catalog.pg_class c ON c.oid = l.relation
           JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
          WHERE l.pid = pg_catalog.pg_backend_pid() AND l.locktype = 'relation'
            AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast', 'sim')`,
      );
      await backend.exec('ROLLBACK');
      const shape = shapeOf(holding);
      const now = read!.rows.map(([oid, relname]) => ({ oid: oid!, relname: relname! }));
      shape.reads = [...now, ...shape.reads.filter((t) => !now.some((n) => n.oid === t.oid))];
      r.holding = { kind: 'released', ...shape };
      return;
    }
    // No other session ran since the snapshot was taken, so the next XID is the one
    // the snapshot's horizon stood at: taking it now pins the horizon in the same place.
    const [taken] = await backend.exec('SELECT pg_catalog.pg_current_xact_id()::pg_catalog.text');
    xid = taken!.rows[0]![0]!;
    noteSpent(ctx, xid);
    emulatedSnapshot = true;
    locksOnly = !holdsSnapshot;
  }
  // Savepoints may have taken XIDs after its own, which a replay would spend: the first
  // XID after them all is read now (a replay is possible only while the log is kept).
  const subtransactions =
    !emulatedSnapshot && r.xactLog?.some(({ sql }) => opensSubtransaction.test(sql));
  const xidsBefore = subtransactions ? String(await nextXid(ctx)) : undefined;
  const gid = `seat-ledger:${r.id}:${++ctx.parkSeq}`;
  const reply = await backend.run(`PREPARE TRANSACTION '${gid}'`);
  if (reply.error)
    ctx.lostOnPark = { r, why: `PREPARE TRANSACTION failed: ${reply.error.message}` };
  r.holding = reply.error
    ? {
        kind: 'lost',
        reason: `PREPARE TRANSACTION failed (${reply.error.message}), so PostgreSQL rolled it back`,
      }
    : {
        kind: 'parked',
        gid,
        xid,
        emulatedSnapshot,
        ...(locksOnly ? { locksOnly: true as const } : {}),
        isolation: holding.isolation,
        shape: shapeOf(holding),
        ...(xidsBefore ? { xidsBefore } : {}),
      };
  // What others write from now on decides whether a READ COMMITTED transaction can be
  // replayed to go on (resume.ts): counted when it is first set aside.
  if (
    r.holding.kind === 'parked' &&
    !emulatedSnapshot &&
    holding.isolation === 'read committed' &&
    r.xactLog !== null &&
    r.xactSnapshot !== null &&
    r.xactWrites === null
  ) {
    r.xactWrites = await writeCounts(ctx, gid, r.xactSnapshot);
  }
}

/** Makes the backend `s`'s: sets the resident aside, loads settings, reopens `s`'s transaction. */
export async function enter(ctx: LayerContext, s: SessionRecord): Promise<void> {
  const { backend } = ctx;
  if (ctx.resident && ctx.resident !== s) await setAside(ctx, ctx.resident);
  await rollBackSpentStandIns(ctx);
  await loadSettings(ctx, s);
  await rearmBackendTimers(ctx, s, 'session');
  if (s.holding.kind === 'released') {
    // The same kind of transaction, with its savepoints and settings made again.
    const shape = shapeOf(s.holding);
    const { isolation, readOnly, deferrable, replay, clockMs } = shape;
    const begin =
      `BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}` +
      (readOnly ? ' READ ONLY' : '') +
      (deferrable ? ' DEFERRABLE' : '');
    // It began when it first did: now() must answer the same (a BEGIN runs nothing else).
    await backend.atClock(clockMs, () => backend.exec(begin));
    for (const statement of replay) await backend.exec(statement);
    s.holding = { kind: 'resident', snapshotTaken: false, ...shape };
  } else if (s.holding.kind === 'failed') {
    // Recreate the failed state, so the next statement gets PostgreSQL's own answer.
    await backend.exec('BEGIN');
    await backend.run("DO $$BEGIN RAISE EXCEPTION 'recreating a failed transaction'; END$$");
    s.holding = { kind: 'resident', snapshotTaken: false, ...plainShape() };
    s.status = 'E';
  }
  if (s.holding.kind === 'resident') ctx.resident = s;
  await rearmBackendTimers(ctx, s, 'local');
}

/** Updates `s` from the backend's transaction status after its statement. */
export async function settle(
  ctx: LayerContext,
  s: SessionRecord,
  reply: BackendReply,
  sql: string,
  extended: boolean,
): Promise<void> {
  s.status = reply.status;
  // A transaction it had open ended here (a rollback, or a failure that ended it).
  if (reply.status === 'I' && s.holding.kind === 'resident') {
    const last = reply.results.at(-1)?.command;
    await settingsAtEnd(ctx, s, reply.error !== undefined || last === 'ROLLBACK');
  }
  if (s.settingsTouched && reply.status !== 'E') {
    await restoreConnectionSettings(ctx, s, sql);
    // SET application_name shows in pg_stat_activity at once, as on a server.
    const [name] = await ctx.backend.exec("SELECT pg_catalog.current_setting('application_name')");
    s.applicationName = name!.rows[0]![0] ?? '';
  }
  if (reply.status === 'I') {
    s.holding = { kind: 'none' };
    s.xactStart = null;
    s.xid = null;
    s.xactLog = [];
    s.xactSnapshot = null;
    s.xactWrites = null;
    s.replayedFrom = null;
    setState(ctx, s, 'idle');
    if (ctx.resident === s) ctx.resident = null;
    return;
  }
  // COMMIT AND CHAIN (or ROLLBACK AND CHAIN) ends the transaction and begins another
  // with the same characteristics: a new transaction for the layer too, with its own
  // start time (transaction_timeout counts from it), XID, snapshot and log.
  const ran = reply.error ? reply.results.length : Infinity;
  const chained =
    /\bCHAIN\b/i.test(sql) &&
    splitStatements(sql).some(({ sql: statement }, i) => i < ran && andChain.test(statement));
  if (chained && s.holding.kind === 'resident') {
    s.holding = { kind: 'none' };
    s.xid = null;
  }
  const starting = s.holding.kind !== 'resident';
  if (starting) {
    await noteSettingsAtBegin(ctx, s, sql);
    s.xactLog = [];
    s.xactSnapshot = null;
    s.xactWrites = null;
    s.replayedFrom = null;
  }
  const shape = s.holding.kind === 'resident' ? s.holding : plainShape();
  const snapshotTaken =
    takesSnapshot(sql) || (s.holding.kind === 'resident' && s.holding.snapshotTaken);
  if (reply.status === 'T') {
    // The transaction's shape and the session's timeouts (SET may have changed them),
    // read with SHOW: a SELECT would take the transaction's first snapshot if it had none
    // yet (after BEGIN or SET), and for a SERIALIZABLE READ ONLY DEFERRABLE transaction
    // that may wait for other transactions (GetSafeSnapshot). Only a transaction that has
    // a snapshot can have an XID, so only then is it asked for one.
    // The first snapshot is read once, for `resume`: nothing ran since the statement's own.
    const firstSnapshot = snapshotTaken && s.xactSnapshot === null;
    const read = await ctx.backend.exec(
      'SHOW transaction_isolation; SHOW transaction_read_only; SHOW transaction_deferrable; ' +
        'SHOW idle_in_transaction_session_timeout; SHOW transaction_timeout' +
        (snapshotTaken
          ? '; SELECT pg_catalog.pg_current_xact_id_if_assigned()::pg_catalog.text'
          : '') +
        (firstSnapshot ? '; SELECT pg_catalog.pg_current_snapshot()::pg_catalog.text' : ''),
    );
    const [level, readOnly, deferrable, idle, xact, xid, snapshot] = read.map((r) => r.rows[0]![0]);
    if (firstSnapshot) s.xactSnapshot = snapshot ?? null;
    Object.assign(shape, {
      isolation: level!,
      readOnly: readOnly === 'on',
      deferrable: deferrable === 'on',
    });
    s.xid = xid ?? null;
    s.timeouts = { ...s.timeouts, idleMs: durationMs(idle!), transactionMs: durationMs(xact!) };
  }
  // Statements past the one that failed never ran.
  splitStatements(sql).forEach(({ sql: statement }, i) => {
    if (i < ran && (transactionLocal.test(statement) || setConfigOnly.test(statement))) {
      shape.replay.push(statement);
    }
  });
  if (s.holding.kind !== 'resident') {
    s.holding = { kind: 'resident', snapshotTaken: false, ...shape };
    s.xactStart = s.queryStart;
    s.xactSeq++;
  }
  const snapshot = takesSnapshot(sql);
  if (snapshotTaken) s.holding.snapshotTaken = true;
  s.holding.portalSnapshot = extended && snapshot;
  ctx.resident = s;
  setState(ctx, s, reply.status === 'E' ? 'idle in transaction (aborted)' : 'idle in transaction');
}

/**
 * Statements that send a setting back to the value the connection started with, and the
 * settings they reach: on a server a reset application_name is the one the client
 * connected with and a reset role is the role it logged in as; here both were set by the
 * layer (`loadSettings`), so the layer sets them again.
 */
const resets: [RegExp, string[]][] = [
  [/^\s*RESET\s+application_name\b/i, ['application_name']],
  // RESET ALL also empties the layer's sim.pid, which pg_backend_pid() reads (sim-schema.ts).
  [/^\s*RESET\s+ALL\b/i, ['application_name', 'sim.pid']],
  [/^\s*RESET\s+ROLE\b|^\s*SET\s+(?:SESSION\s+|LOCAL\s+)?ROLE\s+NONE\b/i, ['role']],
  [
    /^\s*DISCARD\s+ALL\b|^\s*(?:SET|RESET)\s+SESSION\s+AUTHORIZATION\b/i,
    ['application_name', 'role', 'sim.pid'],
  ],
];

/** Sets again what a RESET of `sql` sent back to the backend's own defaults. */
async function restoreConnectionSettings(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<void> {
  const names = new Set(
    splitStatements(sql).flatMap(({ sql: statement }) =>
      resets.flatMap(([pattern, settings]) => (pattern.test(statement) ? settings : [])),
    ),
  );
  const own = [...s.connectionSettings, ['sim.pid', String(s.pid)]].filter(([name]) =>
    names.has(name!),
  );
  if (own.length === 0) return;
  await ctx.backend.exec(
    'SELECT pg_catalog.set_config(key, value, false) FROM pg_catalog.jsonb_each_text($1)',
    [Object.fromEntries(own)],
  );
}

/** A READ COMMITTED transaction as BEGIN opens it: no savepoints, no settings of its own. */
export function plainShape(): TransactionShape {
  return { isolation: 'read committed', readOnly: false, deferrable: false, replay: [], reads: [] };
}

/** What makes `holding`'s transaction what it is, apart from where it is. */
function shapeOf(holding: TransactionShape): TransactionShape {
  const { isolation, readOnly, deferrable, replay, reads, clockMs } = holding;
  const shape = {
    isolation,
    readOnly,
    deferrable,
    replay: [...replay],
    reads: reads.map((t) => ({ ...t })),
  };
  return clockMs === undefined ? shape : { ...shape, clockMs };
}

/**
 * A parked transaction that takes an XID now and holds nothing else: it pins the horizon
 * where a snapshot taken now would, for `s` (the backend must have no transaction open).
 */
export async function takeStandIn(
  ctx: LayerContext,
  s: SessionRecord,
  owed = false,
): Promise<StandIn> {
  const { backend } = ctx;
  const gid = `seat-ledger:${s.id}:${++ctx.parkSeq}`;
  await backend.exec('BEGIN');
  const [taken] = await backend.exec('SELECT pg_catalog.pg_current_xact_id()::pg_catalog.text');
  await backend.exec(`PREPARE TRANSACTION '${gid}'`);
  const xid = taken!.rows[0]![0]!;
  if (owed) return { gid, xid, owed };
  noteSpent(ctx, xid);
  return { gid, xid };
}

/** Lets `standIn` go, to be rolled back when the backend is free; its XID is spent now. */
export function releaseStandIn(ctx: LayerContext, standIn: StandIn): void {
  ctx.spentStandIns.push(standIn.gid);
  if (standIn.owed) noteSpent(ctx, standIn.xid);
}

/** Rolls back prepared transaction `gid`, outside any open one, as PostgreSQL requires. */
export async function rollbackPrepared(ctx: LayerContext, gid: string): Promise<void> {
  if (ctx.resident) await setAside(ctx, ctx.resident);
  const reply = await asSuperuser(ctx, `ROLLBACK PREPARED '${gid}'`);
  if (reply.error) throw new Error(`ROLLBACK PREPARED: ${reply.error.message}`);
}

/**
 * Rolls back the stand-ins whose wait is over, if the backend is free for it now, and
 * those kept for a snapshot whose transaction has ended (or whose session has).
 */
export async function rollBackSpentStandIns(ctx: LayerContext): Promise<void> {
  for (const [id, pin] of ctx.snapshotPins) {
    const r = ctx.sessions.get(id);
    if (r && r.xactSeq === pin.xactSeq && r.holding.kind !== 'none') continue;
    ctx.snapshotPins.delete(id);
    ctx.spentStandIns.push(pin.gid);
  }
  while (!ctx.resident && ctx.spentStandIns.length > 0) {
    await rollbackPrepared(ctx, ctx.spentStandIns.shift()!);
  }
}

/**
 * Runs the layer's `sql` as the superuser the backend logged in as, whatever role the
 * loaded session has: only the role that prepared a transaction, or a superuser, may end
 * it (FinishPreparedTransaction in src/backend/access/transam/twophase.c), and a parked
 * transaction may have been prepared under another session's role.
 */
async function asSuperuser(ctx: LayerContext, sql: string): Promise<BackendReply> {
  const { backend } = ctx;
  const [role] = await backend.exec("SELECT pg_catalog.current_setting('role')");
  const current = role!.rows[0]![0]!;
  if (current === 'none') return backend.run(sql);
  await backend.exec('RESET ROLE');
  try {
    return await backend.run(sql);
  } finally {
    await backend.exec("SELECT pg_catalog.set_config('role', $1, false)", [current]);
  }
}

/** COMMIT or ROLLBACK (END, ABORT) AND CHAIN, which begins the next transaction at once. */
const andChain =
  /^\s*(?:COMMIT|END|ROLLBACK|ABORT)\b(?:\s+(?:WORK|TRANSACTION))?\s+AND\s+CHAIN\s*;?\s*$/i;

/** Matches a statement that ends a transaction, and says how. */
export function transactionEnd(sql: string): 'commit' | 'rollback' | null {
  const words = sql.replace(/;\s*$/, '').trim().toLowerCase().split(/\s+/);
  const [verb, ...rest] = words;
  const tail = rest.join(' ');
  if (!['', 'work', 'transaction', 'and no chain'].includes(tail)) return null;
  if (verb === 'commit' || verb === 'end') return 'commit';
  if (verb === 'rollback' || verb === 'abort') return 'rollback';
  return null;
}

/** Runs COMMIT or ROLLBACK for a parked session as COMMIT/ROLLBACK PREPARED. */
export async function finishParked(
  ctx: LayerContext,
  s: SessionRecord,
  how: 'commit' | 'rollback',
  gid: string,
): Promise<QueryReply> {
  if (ctx.resident) await setAside(ctx, ctx.resident);
  const reply = await asSuperuser(ctx, `${how.toUpperCase()} PREPARED '${gid}'`);
  if (reply.error) return { ok: false, error: reply.error, partial: reply };
  await settingsAtEnd(ctx, s, how === 'rollback');
  s.holding = { kind: 'none' };
  s.xactStart = null;
  setState(ctx, s, 'idle');
  // A server answers the client's COMMIT or ROLLBACK with that tag.
  const command = how === 'commit' ? 'COMMIT' : 'ROLLBACK';
  return {
    ok: true,
    result: {
      results: [{ command, rowCount: null, fields: [], rows: [] }],
      notices: reply.notices,
    },
  };
}
