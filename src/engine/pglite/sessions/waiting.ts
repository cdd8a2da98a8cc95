// Statements that wait for a lock another session holds: how a wait begins (shown as a
// server shows it, its snapshot stood in for), how it fails or is cancelled, and how the
// waiting statements run again once what they waited for is gone.
import {
  finishStatement,
  setState,
  stopWaiting,
  type LayerContext,
  type SessionRecord,
  type TableRequest,
  type Waiter,
} from './context';
import { leadingKeyword, splitStatements } from '../../split-statements';
import { statementNeeds } from '../waits';
import { endIfClosed } from './ending';
import { wake } from './in-flight';
import {
  lostWhole,
  releaseStandIn,
  rollBackSpentStandIns,
  rollbackPrepared,
  setAside,
  takeStandIn,
} from './parking';
import type { MatchedRows, RowWait } from './recheck';
import { cancelled, notExpressible, type Outcome, type QueryReply } from './replies';
import { runQuery } from './run';
import { loadSettings } from './session-settings';
import { savepointXidsOf } from './spent-xids';
import { expire } from './timers';
import { rowAhead, waitedRow } from './tuple-locks';
import { catalogWrites } from './write-counts';

/** What a statement is to wait for, and how it shows in pg_stat_activity meanwhile. */
export interface WaitOn {
  /** The session holding it; null when it is some parked transaction (see `likelyHolder`). */
  holder: SessionRecord | null;
  /** pg_stat_activity's wait_event, under wait_event_type Lock. */
  event: string;
  /** The wait was found by the watchdog, not by a check. */
  watchdog?: boolean;
  /** The lock as a deadlock report names it; by default the holder's XID. */
  lock?: string;
  /** Whether it is still held; by default, while the holder's transaction is parked. */
  held?: () => boolean;
  /** The target rows the holder is changing too (see `RowWait.matched`). */
  matched?: MatchedRows;
  /** For a table lock: the table and the mode asked for, which later requests queue behind. */
  table?: TableRequest;
  /**
   * For a statement that waited on a row before and, once that wait ended, met the row
   * locked by yet another transaction: what its first wait recorded. It waits on with the
   * snapshot it took then (recheck.ts counts every holder's changes).
   */
  carried?: RowWait;
}

/** Whether `statement` is a SET or a RESET. */
export const setOrReset = (statement: string) =>
  ['SET', 'RESET'].includes(leadingKeyword(statement));

/**
 * The SET and RESET statements a server has run before the statement of `s`'s `sql` that
 * waits, when `sql` is a string of several outside a transaction block (a server runs
 * them one by one, in one implicit transaction): those before its first other statement,
 * which is the one that waits or comes before it. Null when one comes between two other
 * statements: it applies to the wait only if it comes before the one that waits, which
 * the checks do not say. (In a transaction block a string runs in turn: run.ts.)
 */
function setsBeforeWait(s: SessionRecord, sql: string): string[] | null {
  const statements = splitStatements(sql).map((st) => st.sql);
  if (s.holding.kind !== 'none' || statements.length < 2) return [];
  const others = statements.flatMap((st, i) => (setOrReset(st) ? [] : [i]));
  const first = others[0] ?? statements.length;
  const last = others.at(-1) ?? statements.length;
  if (statements.slice(first, last).some(setOrReset)) return null;
  return statements.slice(0, first);
}

/**
 * A statement that leaves nothing another session could meet while a later statement of
 * its string waits: a setting, or a plain read (no row locks, no advisory locks, no
 * sequence, no data-changing CTE). The ACCESS SHARE lock a read takes is the exception.
 */
function leavesNothing(statement: string): boolean {
  if (['SET', 'RESET', 'SHOW'].includes(leadingKeyword(statement))) return true;
  // A read that takes no lock but ACCESS SHARE (no FOR UPDATE, no data-changing CTE).
  return statementNeeds(statement).mode === 'AccessShareLock' && !leavesTraces.test(statement);
}

/** Functions whose effect outlasts the statement that calls them, before a later one waits. */
const leavesTraces =
  /\b(?:nextval|setval|pg_(?:try_)?advisory\w*|pg_notify|set_config|txid_current|pg_current_xact_id)\s*\(/i;

/**
 * Whether `s`'s `sql`, a string of several outside a transaction block, has more than one
 * statement that leaves something behind: the one that waits may come after another, which
 * on a server has run and holds its locks meanwhile (see `string-part-way`).
 */
function waitsPartWay(s: SessionRecord, sql: string): boolean {
  if (s.holding.kind !== 'none') return false;
  const statements = splitStatements(sql).map((st) => st.sql);
  return statements.filter((st) => !leavesNothing(st)).length > 1;
}

/**
 * A row wait that follows `first` in the same statement: its snapshot is the first's, and
 * the transactions whose changes a recheck must allow for are both waits' holders.
 */
function carriedOn(first: RowWait, next: RowWait): RowWait {
  const keys = { ...first.matched?.keys };
  for (const [rel, more] of Object.entries(next.matched?.keys ?? {})) {
    keys[rel] = [...new Set([...(keys[rel] ?? []), ...more])];
  }
  const columns = first.matched?.columns ?? next.matched?.columns;
  // Keys of one table by the same columns (its primary key), or none kept.
  const sameColumns =
    !first.matched ||
    !next.matched ||
    first.matched.columns.join(',') === next.matched.columns.join(',');
  return {
    snapshot: first.snapshot,
    holderXid: next.holderXid,
    alsoHolders: [
      ...(first.alsoHolders ?? []),
      ...(first.holderXid ? [first.holderXid] : []),
      ...(next.alsoHolders ?? []),
    ],
    holderWrote: [...new Set([...first.holderWrote, ...next.holderWrote])],
    ...(columns && sameColumns ? { matched: { columns, keys } } : {}),
  };
}

/** Statements that write rows: waiting on a row, they hold an XID on a server. */
const writes = new Set(['UPDATE', 'DELETE', 'INSERT', 'MERGE']);

/** Makes `s` wait for `holder` (any parked transaction when null) to end. */
export async function waitFor(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params: unknown[] | undefined,
  wait: WaitOn,
): Promise<Outcome> {
  const { holder } = wait;
  const leadingSets = setsBeforeWait(s, sql);
  if (leadingSets === null) return notExpressible('set-between-statements');
  if (waitsPartWay(s, sql)) return notExpressible('string-part-way');
  s.blockedBy = holder;
  s.waitEventType = 'Lock';
  s.waitEvent = wait.event;
  s.waitByWatchdog = wait.watchdog === true;
  // The snapshot the waiting statement took: outside a transaction or in READ COMMITTED
  // a fresh one, in REPEATABLE READ the transaction's (PortalStart takes it first).
  await loadSettings(ctx, s);
  // A parked transaction's own SETs are not in the backend while it is set aside, nor
  // those a string of several ran before its statement that waits: its timeouts are read
  // with them made, in a transaction rolled back at once.
  const ownSets =
    ctx.resident !== null
      ? []
      : s.holding.kind === 'parked'
        ? s.holding.shape.replay.filter(setOrReset)
        : leadingSets;
  if (ownSets.length > 0) {
    await ctx.backend.exec('BEGIN');
    for (const statement of ownSets) await ctx.backend.run(statement);
  }
  const read = await ctx.backend.run(
    `SELECT pg_catalog.pg_snapshot_xmin(pg_catalog.pg_current_snapshot())::pg_catalog.text,
            extract(epoch FROM pg_catalog.current_setting('deadlock_timeout')::interval) * 1000,
            pg_catalog.pg_current_snapshot()::pg_catalog.text,
            extract(epoch FROM pg_catalog.current_setting('lock_timeout')::interval) * 1000,
            extract(epoch FROM pg_catalog.current_setting('statement_timeout')::interval) * 1000`,
  );
  if (ownSets.length > 0) await ctx.backend.exec('ROLLBACK');
  if (read.error) throw new Error(`reading a waiter's timeouts: ${read.error.message}`);
  const [xmin, deadlockMs, snapshot, lockMs, statementMs] = read.results[0]!.rows[0]!;
  s.waitXmin = xmin ?? null;
  // A wait on a row: when it ends, the statement runs again only if that shows what a
  // server's recheck would (recheck.ts).
  const parked = holder?.holding.kind === 'parked' && !holder.holding.emulatedSnapshot;
  const fresh: RowWait | undefined =
    wait.event === 'transactionid'
      ? {
          snapshot: snapshot!,
          holderXid: parked && holder.holding.kind === 'parked' ? holder.holding.xid : null,
          ...(parked && savepointXidsOf(holder).length > 0
            ? { alsoHolders: savepointXidsOf(holder) }
            : {}),
          holderWrote:
            parked && holder.holding.kind === 'parked'
              ? (ctx.parkedLocksByGid.get(holder.holding.gid) ?? [])
                  .filter((l) => l.mode === 'RowExclusiveLock')
                  .map((l) => l.relname)
              : [],
          ...(wait.matched ? { matched: wait.matched } : {}),
        }
      : undefined;
  const rowWait = fresh && wait.carried ? carriedOn(wait.carried, fresh) : fresh;
  if (rowWait !== fresh) s.waitXmin = rowWait!.snapshot.split(':')[0]!;
  // Its transaction is set aside: parked when it holds an XID or a snapshot (it goes on
  // once the wait ends by being replayed, see resume.ts), else closed. The waiting
  // statement holds its snapshot, which on a server pins the horizon; a parked
  // transaction that takes an XID now stands in for it (emulated), as for one in flight.
  if (ctx.resident === s) await setAside(ctx, s);
  let standIn: Waiter['standIn'];
  if (s.holding.kind === 'none' || s.holding.kind === 'released') {
    if (ctx.resident) await setAside(ctx, ctx.resident);
    // A write that waits on a row has its XID on a server (heap_update, heap_delete and
    // heap_insert take it first); SELECT … FOR UPDATE and a lock on a table take none.
    const owed =
      wait.event === 'transactionid' &&
      splitStatements(sql).some(({ sql: st }) => writes.has(leadingKeyword(st)));
    standIn = await takeStandIn(ctx, s, owed);
  }
  // A wait the watchdog found is on a lock the checks could not foresee: one on a table
  // the statement does not name (a child, a partition, one a foreign key refers to). On a
  // server the statement found that table by looking up part of its plan before the wait
  // and goes on with what it found, so a catalog change made meanwhile is one it would
  // not see, and one run afresh would (wakeWaiters). A table it names it locks before
  // it looks anything up, except VACUUM and ANALYZE: they find every table they are to
  // work on first (a partitioned table's partitions too), then lock one at a time.
  const catalog =
    wait.watchdog || /^\s*(?:VACUUM|ANALY[SZ]E)\b/i.test(sql)
      ? await catalogWrites(ctx)
      : undefined;
  // Held while the holder's transaction is open: parked, or resident again once it was
  // replayed to go on (resume.ts).
  const holderSeq = holder?.xactSeq;
  const held =
    wait.held ??
    (() =>
      holder !== null &&
      ctx.sessions.has(holder.id) &&
      holder.xactSeq === holderSeq &&
      (holder.holding.kind === 'parked' || holder.holding.kind === 'resident'));
  // A wait on a row is a wait on the transaction that holds it (XactLockTableWait).
  const lock =
    wait.lock ??
    (holder?.holding.kind === 'parked' ? `ShareLock on transaction ${holder.holding.xid}` : '');
  // Which row it waits for, where that can be told: a later wait on the same row shows
  // as one on its tuple lock (tuple-locks.ts).
  const row = rowWait && holder ? await waitedRow(ctx, holder, sql) : null;
  const deadlockCheckAt = ctx.now.getTime() + Number(deadlockMs);
  // PGlite never fires these timers itself: the layer ends the wait as a server would.
  const timeouts = [
    Number(lockMs) > 0 && {
      at: ctx.now.getTime() + Number(lockMs),
      error: {
        code: '55P03',
        severity: 'ERROR',
        message: 'canceling statement due to lock timeout',
      },
    },
    Number(statementMs) > 0 && {
      at: (s.queryStart ?? ctx.now).getTime() + Number(statementMs),
      error: {
        code: '57014',
        severity: 'ERROR',
        message: 'canceling statement due to statement timeout',
      },
    },
  ].filter((t) => t !== false);
  const timeout = timeouts.sort((a, b) => a.at - b.at)[0] ?? null;
  const waiter = (answer: (reply: QueryReply) => void): Waiter => ({
    s,
    sql,
    params,
    answer,
    held,
    lock,
    deadlockCheckAt,
    standIn,
    rowWait,
    ...(row ? { row } : {}),
    ...(wait.carried ? { carried: true as const } : {}),
    timeout,
    ...(wait.table ? { table: wait.table } : {}),
    ...(catalog !== undefined ? { catalogWrites: catalog } : {}),
  });
  const reply = new Promise<QueryReply>((answer) => ctx.waiters.push(waiter(answer)));
  await expire(ctx); // sets the timer for its deadlock check
  return { wait: reply };
}

/** Takes `w` off the list of waits; the stand-in for its snapshot is spent. */
export async function removeWaiter(ctx: LayerContext, w: Waiter): Promise<void> {
  const at = ctx.waiters.indexOf(w);
  if (at >= 0) ctx.waiters.splice(at, 1);
  if (w.standIn) releaseStandIn(ctx, w.standIn);
  w.standIn = undefined;
  await rollBackSpentStandIns(ctx);
}

/**
 * Cancels `r`'s statement if it is waiting, as a server's cancel would: the statement
 * fails with 57014, and a transaction block it was in is aborted.
 */
export async function cancelWait(ctx: LayerContext, r: SessionRecord): Promise<boolean> {
  if (ctx.sleepers.has(r.id)) {
    await wake(ctx, r, 'cancel');
    return true;
  }
  return failWait(ctx, r, cancelled);
}

/**
 * Fails `r`'s waiting statement with `reply`'s error. As on a server, a transaction
 * block it was in is aborted and gives up its locks (a parked one rolls back), and the
 * waits those locks held up are tried again.
 */
export async function failWait(
  ctx: LayerContext,
  r: SessionRecord,
  reply: QueryReply,
): Promise<boolean> {
  const waiter = ctx.waiters.find((w) => w.s === r);
  if (!waiter) return false;
  await removeWaiter(ctx, waiter);
  stopWaiting(r);
  if (ctx.resident === r) await setAside(ctx, r);
  const holding = r.holding;
  if (holding.kind === 'parked') await rollbackPrepared(ctx, holding.gid);
  if (holding.kind !== 'none') r.holding = lostWhole(r) ?? { kind: 'failed' };
  setState(ctx, r, r.holding.kind === 'failed' ? 'idle in transaction (aborted)' : 'idle');
  waiter.answer(reply);
  // The locks it gave up: a parked transaction's, or a closed one's reads (`released`),
  // or the tuple lock others wait behind (tuple-locks.ts).
  const gaveUp = holding.kind === 'parked' || holding.kind === 'released';
  if (gaveUp || ctx.waiters.some((w) => w.behind === waiter)) await wakeWaiters(ctx);
  await endIfClosed(ctx, r);
  return true;
}

/** Retries waiting statements, oldest first, after a parked transaction ended. */
export async function wakeWaiters(ctx: LayerContext): Promise<void> {
  for (const waiter of [...ctx.waiters]) {
    const { s, sql, params, answer, rowWait } = waiter;
    // A wake inside this one (a woken statement ended a transaction) may have taken it.
    if (!ctx.waiters.includes(waiter)) continue;
    if (!ctx.sessions.has(s.id) || waiter.held()) continue;
    // Behind another that waits again for the same row, it waits on for the tuple lock:
    // last in line, until that one's wait is over (tuple-locks.ts).
    const ahead = rowAhead(ctx, waiter);
    if (ahead) {
      ctx.waiters.splice(ctx.waiters.indexOf(waiter), 1);
      ctx.waiters.push(waiter);
      waiter.held = () => ctx.waiters.includes(ahead);
      waiter.behind = ahead;
      s.blockedBy = ahead.s;
      continue;
    }
    // Its stand-in is kept until it is known whether the statement waits on (below).
    const { standIn } = waiter;
    waiter.standIn = undefined;
    await removeWaiter(ctx, waiter);
    stopWaiting(s);
    if (waiter.catalogWrites !== undefined) {
      if (ctx.resident) await setAside(ctx, ctx.resident);
      const now = await catalogWrites(ctx);
      if (now === null || now !== waiter.catalogWrites) {
        if (standIn) releaseStandIn(ctx, standIn);
        await rollBackSpentStandIns(ctx);
        finishStatement(ctx, s);
        answer(notExpressible('catalog-changed'));
        await endIfClosed(ctx, s);
        continue;
      }
    }
    let outcome: Outcome;
    try {
      outcome = await runQuery(ctx, s, sql, params, rowWait);
    } catch (error) {
      if (standIn) releaseStandIn(ctx, standIn);
      throw error;
    }
    // Waiting on, for the row another transaction took meanwhile, the statement still holds
    // the snapshot (and, a write, the XID) it took first: its stand-in stays.
    const again = 'wait' in outcome ? ctx.waiters.find((w) => w.s === s) : undefined;
    if (standIn && again?.carried && again.standIn) {
      releaseStandIn(ctx, again.standIn);
      again.standIn = standIn;
    } else if (standIn) releaseStandIn(ctx, standIn);
    await rollBackSpentStandIns(ctx);
    if ('wait' in outcome) outcome.wait.then(answer);
    else {
      finishStatement(ctx, s);
      answer(outcome);
      await endIfClosed(ctx, s);
    }
  }
}

/**
 * Tries again the statements waiting for `holder`'s locks once it gave some up without
 * ending its transaction: ROLLBACK TO SAVEPOINT releases the locks taken since the
 * savepoint, and on a server a statement waiting for one of them goes on at once. One that
 * still waits waits on as before: same place in line, same deadlock check and timeout,
 * and the same stand-in for its snapshot.
 */
export async function retryWaitersOn(ctx: LayerContext, holder: SessionRecord): Promise<void> {
  for (const waiter of ctx.waiters.filter((w) => w.s.blockedBy === holder)) {
    const at = ctx.waiters.indexOf(waiter);
    if (at < 0) continue;
    ctx.waiters.splice(at, 1);
    const { s, sql, params, answer, rowWait } = waiter;
    stopWaiting(s);
    const outcome = await runQuery(ctx, s, sql, params, rowWait);
    const again = 'wait' in outcome ? ctx.waiters.find((w) => w.s === s) : undefined;
    if (again) {
      ctx.waiters.splice(ctx.waiters.indexOf(again), 1);
      ctx.waiters.splice(Math.min(at, ctx.waiters.length), 0, again);
      again.deadlockCheckAt = waiter.deadlockCheckAt;
      again.timeout = waiter.timeout;
      if (again.standIn && waiter.standIn) {
        releaseStandIn(ctx, again.standIn);
        again.standIn = waiter.standIn;
        waiter.standIn = undefined;
      }
    }
    if (waiter.standIn) releaseStandIn(ctx, waiter.standIn);
    if ('wait' in outcome) outcome.wait.then(answer);
    else {
      finishStatement(ctx, s);
      answer(outcome);
      await endIfClosed(ctx, s);
    }
  }
  await rollBackSpentStandIns(ctx);
}
