// How a session ends: closed by its client, or terminated by the server with a FATAL.
import type { PgErrorFields } from '../../types';
import { get, type LayerContext, type SessionRecord } from './context';
import { noteAdvisory } from './advisory-locks';
import { rollbackPrepared } from './parking';
import { removeWaiter, wakeWaiters } from './waiting';

/** Ends `r` as the server would on a FATAL; a statement it has waiting gets the FATAL. */
export async function terminate(
  ctx: LayerContext,
  r: SessionRecord,
  code: string,
  message: string,
): Promise<void> {
  const fatal = { code, severity: 'FATAL', message };
  // A statement it had running reads the FATAL now; else its next statement does.
  if (await endAnswering(ctx, r, fatal)) ctx.ended.delete(r.id);
  await wakeWaiters(ctx);
}

/**
 * Ends session `id` as a disconnect would: its transaction rolls back, its state goes. A
 * server's backend notices a closed connection only when it next reads from it, so a
 * statement waiting for a lock waits on, runs once it has the lock (outside a transaction
 * block it commits), and only then does the session end (`endIfClosed`); its caller's
 * call ends now. A sleep in flight ends now: it changes nothing.
 */
export async function closeSession(ctx: LayerContext, id: number): Promise<void> {
  if (ctx.ended.delete(id)) return;
  const r = get(ctx, id);
  const closed = { code: '08003', severity: 'ERROR', message: 'the session is closed' };
  const waiter = ctx.waiters.find((w) => w.s === r);
  if (waiter) {
    if (r.closing) return;
    r.closing = true;
    const caller = waiter.answer;
    waiter.answer = () => {}; // no one reads it now
    caller({ ok: false, error: closed, partial: { results: [], notices: [] } });
    return;
  }
  await endAnswering(ctx, r, closed);
  ctx.ended.delete(id);
  await wakeWaiters(ctx);
}

/**
 * Ends `r` with `why`, which a statement of its still running (a wait, a sleep in flight)
 * gets as its answer; whether one did.
 */
async function endAnswering(
  ctx: LayerContext,
  r: SessionRecord,
  why: PgErrorFields,
): Promise<boolean> {
  const running = ctx.waiters.find((w) => w.s === r) ?? ctx.sleepers.get(r.id);
  ctx.sleepers.delete(r.id);
  await end(ctx, r, why);
  running?.answer({ ok: false, error: why, partial: { results: [], notices: [] } });
  return running !== undefined;
}

/** Rolls back whatever transaction `r` has, wherever it is, and forgets the session. */
async function end(ctx: LayerContext, r: SessionRecord, why: PgErrorFields): Promise<void> {
  const { backend } = ctx;
  ctx.sessions.delete(r.id);
  const waiting = ctx.waiters.find((w) => w.s === r);
  if (waiting) await removeWaiter(ctx, waiting);
  noteAdvisory(ctx, r, [{ fn: 'unlock_all', key: '' }]);
  ctx.ended.set(r.id, why);
  if (ctx.resident === r) {
    await backend.exec('ROLLBACK');
    ctx.resident = null;
  }
  if (r.holding.kind === 'parked') await rollbackPrepared(ctx, r.holding.gid);
  if (ctx.loaded === r) {
    // DISCARD ALL drops temp tables, settings, prepared statements and session
    // advisory locks, as a backend's exit does.
    await backend.exec('DISCARD ALL');
    ctx.loaded = null;
  }
}

/** Ends `r` once its statement has answered, if its client closed it meanwhile. */
export async function endIfClosed(ctx: LayerContext, r: SessionRecord): Promise<void> {
  if (!r.closing || !ctx.sessions.has(r.id) || ctx.waiters.some((w) => w.s === r)) return;
  await closeSession(ctx, r.id);
}
