// Deadlines (timeouts, sleeps, deadlock checks), met as each call starts or when a timer ticks.
import type { LayerContext } from './context';
import { checkDeadlocks } from './deadlocks';
import { terminate } from './ending';
import { wakeSleepers } from './in-flight';
import { dispatch } from './journal';
import { failWait } from './waiting';

/**
 * The longest delay a timer takes: setTimeout keeps delays in 32 bits, and one longer than
 * 2^31 - 1 ms fires at once, which for a `pg_sleep(3e6)` or a `lock_timeout = '30d'` would
 * tick without end. A deadline further off is met by a tick on the way, which sets the
 * timer again.
 */
export const longestTimerMs = 2 ** 31 - 1;

/**
 * Whether anything can fall due: a wait, a sleep, or a session with a timeout set. Most
 * calls meet none, and `expire` is then only the clearing of a timer that is not set.
 */
export function mayFallDue(ctx: LayerContext): boolean {
  if (ctx.waiters.length > 0 || ctx.sleepers.size > 0) return true;
  for (const r of ctx.sessions.values()) {
    if (r.timeouts.idleMs || r.timeouts.transactionMs || r.timeouts.sessionMs) return true;
  }
  return false;
}

/**
 * Does what is due by the call's time: ends timed-out sessions, wakes sleeps, checks
 * waits for deadlocks; then sets a timer for the next deadline, so that it also happens
 * while no call comes.
 * (A new kind of deadline here belongs in `mayFallDue` too.)
 */
export async function expire(ctx: LayerContext): Promise<void> {
  const at = ctx.now.getTime();
  const nextTimeout = await endTimedOut(ctx, at);
  const nextWake = await wakeSleepers(ctx, at);
  const nextCheck = await checkDeadlocks(ctx, at);
  const nextWaitEnd = await endOverdueWaits(ctx, at);
  const next = Math.min(nextTimeout, nextWake, nextCheck, nextWaitEnd);
  clearTimeout(ctx.timer);
  if (next !== Infinity && !ctx.replaying) {
    const tick = () => void dispatch(ctx, { method: 'tick', args: [] });
    ctx.timer = setTimeout(tick, Math.min(longestTimerMs, Math.max(0, next - at) + 1));
    (ctx.timer as { unref?: () => void }).unref?.();
  }
}

/**
 * Fails the waits whose lock_timeout or statement_timeout ran out by `at` (ms), as a
 * server cancels the statement; returns when the next runs out (or Infinity).
 */
async function endOverdueWaits(ctx: LayerContext, at: number): Promise<number> {
  let next = Infinity;
  for (const waiter of [...ctx.waiters]) {
    if (!waiter.timeout || !ctx.waiters.includes(waiter)) continue;
    if (at >= waiter.timeout.at) {
      await failWait(ctx, waiter.s, {
        ok: false,
        error: waiter.timeout.error,
        partial: { results: [], notices: [] },
      });
    } else next = Math.min(next, waiter.timeout.at);
  }
  return next;
}

/**
 * Ends sessions whose idle_in_transaction_session_timeout or transaction_timeout ran
 * out by `at` (ms), with the FATAL a server sends (ProcessInterrupts in
 * src/backend/tcop/postgres.c); returns when the next runs out (or Infinity).
 */
async function endTimedOut(ctx: LayerContext, at: number): Promise<number> {
  let next = Infinity;
  for (const r of [...ctx.sessions.values()]) {
    const idleSince = r.state.startsWith('idle in transaction') ? r.stateChange.getTime() : null;
    const idleEnds =
      r.timeouts.idleMs && idleSince !== null ? idleSince + r.timeouts.idleMs : Infinity;
    const xactEnds =
      r.timeouts.transactionMs && r.xactStart
        ? r.xactStart.getTime() + r.timeouts.transactionMs
        : Infinity;
    const sessionEnds =
      r.timeouts.sessionMs && r.state === 'idle'
        ? r.stateChange.getTime() + r.timeouts.sessionMs
        : Infinity;
    if (at >= xactEnds) {
      await terminate(ctx, r, '25P04', 'terminating connection due to transaction timeout');
    } else if (at >= idleEnds) {
      await terminate(ctx, r, '25P03', 'terminating connection due to idle-in-transaction timeout');
    } else if (at >= sessionEnds) {
      await terminate(ctx, r, '57P05', 'terminating connection due to idle-session timeout');
    } else next = Math.min(next, idleEnds, xactEnds, sessionEnds);
  }
  return next;
}
