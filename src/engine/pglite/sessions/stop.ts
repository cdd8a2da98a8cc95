// Stopping a reader's statement as a server's cancel does (57014, "canceling statement due
// to user request"), whatever it is doing. A wait or a pg_sleep the layer keeps is cancelled
// in the layer (waiting.ts, `cancelWait`). A statement PGlite is busy with cannot be
// interrupted from outside the worker, so the page replaces the worker and rebuilds every
// session from the journal, as the watchdog does (worker-engine.ts); the statement is
// numbered as cancelled, and the rebuilt layer answers it 57014 instead of sending it again
// (watchdog.ts). A statement still queued behind another session's is withdrawn: here.
import { finishStatement, get, setState, stopWaiting, type LayerContext } from './context';
import { enter, rollbackPrepared, settle } from './parking';
import { cancelled, toReply, type QueryReply } from './replies';
import { wakeWaiters } from './waiting';
import { cancelStatement, sendCancel } from './watchdog';

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
