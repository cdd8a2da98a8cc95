// Statements in flight: a pg_sleep kept by the layer instead of by the one backend.
import {
  finishStatement,
  setState,
  stopWaiting,
  type LayerContext,
  type SessionRecord,
} from './context';
import { durationMs, enter, plainShape, rollbackPrepared, settle, takeStandIn } from './parking';
import { cancelled, toReply, type QueryReply } from './replies';
import { loadSettings } from './session-settings';
import { expire } from './timers';

/** A statement that only sleeps, `SELECT pg_sleep(n)`: the one kept in flight. */
const inFlightSleep = /^\s*SELECT\s+pg_sleep\s*\(\s*(\d+(?:\.\d+)?)\s*\)\s*;?\s*$/i;

/** A call of pg_sleep, pg_sleep_for or pg_sleep_until. */
const sleepCall = /\bpg_sleep(?:_for|_until)?\s*\(/i;

/** pg_sleep with a literal number of seconds. */
const literalSleep = /\bpg_sleep\s*\(\s*(\d+(?:\.\d+)?)\s*\)/gi;

/**
 * The timeouts a sleep may outlast, each with the refusal it gets and whether it counts
 * from its transaction's start (transaction_timeout) or from the statement's.
 */
const timeouts = [
  { setting: 'statement_timeout', kind: 'statement-timeout', fromTransaction: false },
  { setting: 'transaction_timeout', kind: 'transaction-timeout', fromTransaction: true },
] as const;

/** A timeout a sleep would outlast: its refusal, and its value as SHOW prints it. */
export interface Outlasted {
  kind: (typeof timeouts)[number]['kind'];
  limit: string;
}

/**
 * The timeout `s`'s sleeping statement would outlast, or null. statement_timeout cancels
 * the statement when the time is up (57014); transaction_timeout, counted from the start
 * of its transaction (or of the statement, which is one), ends the session (FATAL 25P04).
 * PGlite's timers run on the thread's event loop, which a statement running in the backend
 * holds, so none interrupts it; and a sleep kept in flight is not cut short either. A sleep whose length is not a literal, or a
 * timeout set in the same string or by SET LOCAL in a parked transaction, counts as
 * outlasting it.
 */
export async function sleepOutlasts(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<Outlasted | null> {
  if (!sleepCall.test(sql)) return null;
  // In a failed transaction the statement fails at once, before it sleeps.
  if (s.holding.kind === 'failed' || (ctx.resident === s && s.status === 'E')) return null;
  const parkedSets = s.holding.kind === 'parked' ? s.holding.shape.replay : [];
  for (const { setting, kind } of timeouts) {
    const named = new RegExp(`\\b${setting}\\b`, 'i');
    if (named.test(sql)) return { kind, limit: 'the one this string sets' };
    if (parkedSets.some((st) => named.test(st))) {
      return { kind, limit: 'the one its transaction set' };
    }
  }
  await enter(ctx, s);
  const shown = await ctx.backend.exec(timeouts.map(({ setting }) => `SHOW ${setting}`).join(';'));
  const literals = [...sql.matchAll(literalSleep)];
  const calls = sql.match(new RegExp(sleepCall.source, 'gi'))?.length ?? 0;
  const sleptMs = literals.reduce((ms, [, seconds]) => ms + Number(seconds) * 1000, 0);
  const unknown = literals.length < calls;
  // The time its transaction has had already; none when the statement begins one.
  const spentMs = s.xactStart ? ctx.now.getTime() - s.xactStart.getTime() : 0;
  for (const [i, { kind, fromTransaction }] of timeouts.entries()) {
    const limit = shown[i]!.rows[0]![0]!;
    const limitMs = durationMs(limit);
    const spent = fromTransaction ? spentMs : 0;
    if (limitMs > 0 && (unknown || spent + sleptMs >= limitMs)) return { kind, limit };
  }
  return null;
}

/**
 * How long `s`'s `sql` sleeps, in ms, when it is to be kept in flight; else null. It is,
 * even with no other session open: one opened during it must get in at once and see it.
 */
export function inFlightMs(s: SessionRecord, sql: string): number | null {
  const sleep = inFlightSleep.exec(sql);
  if (!sleep || s.holding.kind !== 'none') return null;
  return Number(sleep[1]) * 1000;
}

/**
 * Puts `s`'s `SELECT pg_sleep(n)` in flight: a parked transaction that took its XID now
 * stands in for the statement's snapshot (emulated), and the session shows as a server
 * shows a sleeping backend, until `ms` have passed (see `expire`) or it is cancelled.
 */
export async function startSleep(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  ms: number,
): Promise<{ wait: Promise<QueryReply> }> {
  await loadSettings(ctx, s);
  const { gid, xid } = await takeStandIn(ctx, s);
  s.holding = {
    kind: 'parked',
    gid,
    xid,
    emulatedSnapshot: true,
    isolation: 'read committed',
    shape: plainShape(),
  };
  s.xactStart = ctx.now;
  s.waitEventType = 'Timeout';
  s.waitEvent = 'PgSleep';
  const until = ctx.now.getTime() + ms;
  const wait = new Promise<QueryReply>((answer) =>
    ctx.sleepers.set(s.id, { s, sql, until, answer }),
  );
  await expire(ctx); // sets the timer for its end
  return { wait };
}

/** Ends the sleeps whose time is up at `at` (ms); returns when the next one is (or Infinity). */
export async function wakeSleepers(ctx: LayerContext, at: number): Promise<number> {
  let next = Infinity;
  for (const sleeper of [...ctx.sleepers.values()]) {
    if (at >= sleeper.until) await wake(ctx, sleeper.s);
    else next = Math.min(next, sleeper.until);
  }
  return next;
}

/**
 * Ends a statement in flight: its stand-in rolls back, then the statement runs with no
 * time left to sleep, so its answer is PostgreSQL's own; or, cancelled, it gets 57014.
 */
export async function wake(
  ctx: LayerContext,
  s: SessionRecord,
  how: 'done' | 'cancel' = 'done',
): Promise<void> {
  const sleeper = ctx.sleepers.get(s.id)!;
  ctx.sleepers.delete(s.id);
  if (s.holding.kind === 'parked') await rollbackPrepared(ctx, s.holding.gid);
  s.holding = { kind: 'none' };
  s.xactStart = null;
  stopWaiting(s);
  if (how === 'cancel') {
    setState(ctx, s, 'idle');
    sleeper.answer(cancelled);
    return;
  }
  await enter(ctx, s);
  const reply = await ctx.backend.run(sleeper.sql.replace(inFlightSleep, 'SELECT pg_sleep(0)'));
  await settle(ctx, s, reply, sleeper.sql, false);
  finishStatement(ctx, s);
  sleeper.answer(toReply(reply));
}
