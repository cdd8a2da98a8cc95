// Stopping a reader's statement as a server's cancel does (57014, "canceling statement due
// to user request"), whatever it is doing. A wait or a pg_sleep the layer keeps is cancelled
// in the layer (waiting.ts, `cancelWait`). A statement PGlite is busy with cannot be
// interrupted from outside the worker, so the page replaces the worker and rebuilds every
// session from the journal, as the watchdog does (worker-engine.ts); the statement is
// numbered as cancelled, and the rebuilt layer answers it 57014 instead of sending it again.
// A statement still queued behind another session's is withdrawn the same way.
import type { BackendReply } from '../backend';
import {
  finishStatement,
  get,
  setState,
  stopWaiting,
  type LayerContext,
  type SessionRecord,
} from './context';
import { enter, rollbackPrepared, settle } from './parking';
import { cancelled, toReply, type QueryReply } from './replies';
import { wakeWaiters } from './waiting';

/**
 * What the backend runs in place of a cancelled statement: PostgreSQL itself fails it with
 * the cancel's SQLSTATE and words, so a transaction block it was in is aborted, as a cancel
 * aborts it on a server.
 */
const cancelStatement =
  "DO $$BEGIN RAISE EXCEPTION USING ERRCODE = 'query_canceled', " +
  "MESSAGE = 'canceling statement due to user request'; END$$";

/** Per layer: sessions whose statement was cancelled in the call running now. */
const cancelledInCall = new WeakMap<LayerContext, Set<number>>();

/**
 * Whether `s`'s statement number `seq` was cancelled, or one before it in this call was:
 * a statement is sometimes sent twice in one call (a NOWAIT probe, then the statement), and
 * once cancelled it must not run at all.
 */
export function isCancelled(ctx: LayerContext, s: SessionRecord, seq: number): boolean {
  let sessions = cancelledInCall.get(ctx);
  if (ctx.cancelled.has(seq)) {
    if (!sessions) cancelledInCall.set(ctx, (sessions = new Set()));
    sessions.add(s.id);
  }
  return sessions?.has(s.id) ?? false;
}

/** Forgets the cancellations of the call that just ended (journal.ts, `serial`). */
export function endCall(ctx: LayerContext): void {
  cancelledInCall.delete(ctx);
}

/** Sends the cancel in place of `s`'s statement, in `s`'s transaction as it stands. */
export function sendCancel(ctx: LayerContext): Promise<BackendReply> {
  return ctx.backend.run(cancelStatement);
}

/**
 * Answers session `id`'s statement `sql`, withdrawn before it started, as a cancel that
 * reached it at once would: 57014, and the transaction block it was in aborted.
 */
export async function withdraw(ctx: LayerContext, id: number, sql: string): Promise<QueryReply> {
  const why = ctx.ended.get(id);
  if (why) return { ok: false, error: why, partial: { results: [], notices: [] } };
  const s = get(ctx, id);
  s.query = sql;
  s.queryStart = ctx.now;
  setState(ctx, s, 'active');
  const holding = s.holding;
  let reply: QueryReply = cancelled;
  if (holding.kind === 'parked') {
    // A parked transaction can only end: aborted, it is rolled back at once (failWait).
    await rollbackPrepared(ctx, holding.gid);
    s.holding = { kind: 'failed' };
    stopWaiting(s);
    setState(ctx, s, 'idle in transaction (aborted)');
    await wakeWaiters(ctx);
    return reply;
  }
  if (holding.kind !== 'none') {
    await enter(ctx, s);
    const sent = await sendCancel(ctx);
    await settle(ctx, s, sent, cancelStatement, false);
    reply = toReply(sent);
  }
  finishStatement(ctx, s);
  return reply;
}
