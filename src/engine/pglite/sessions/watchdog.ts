// What the page's watchdog sees: each reader statement, numbered, as it goes out and comes back.
import { readerCaps, type BackendReply } from '../backend';
import { toSimNames } from '../sim-schema';
import type { LayerContext, SessionRecord } from './context';
import type { JournalEntry, LayerCall } from './journal';
import type { LayerCheckpoint } from './checkpoint';
import { mayMeetPreparedLock } from './lock-reach';

/** What the layer tells whoever watches it for hangs (the page's watchdog). */
export interface LayerWatch {
  /** A call finished: it belongs in the journal. */
  journal(entry: JournalEntry): void;
  /**
   * A reader's statement, number `seq`, is about to go to the backend (`guarded`: it could
   * meet a lock a parked transaction holds, so it might wait), or it came back (`done`).
   * A `quiet` statement needs no news of its own, of its start or of its end (see
   * `runReader`): the page never took it for the one running.
   */
  statement(event: {
    seq: number;
    sessionId: number;
    guarded: boolean;
    done: boolean;
    quiet?: boolean;
  }): void;
  /** The journal so far is no longer needed: a recovery starts from `checkpoint`. */
  checkpoint?(checkpoint: LayerCheckpoint): void;
  /**
   * A query call is left waiting (for a lock, or asleep), answered later: what was noted
   * for the page so far (ends of statements, the journal) should cross now.
   */
  waiting?(): void;
}

/**
 * What the backend runs in place of a cancelled statement: PostgreSQL itself fails it with
 * the cancel's SQLSTATE and words, so a transaction block it was in is aborted, as a cancel
 * aborts it on a server.
 */
export const cancelStatement =
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

/**
 * Per layer: the session whose query call is running, until the call's first reader
 * statement goes out (`runReader`).
 */
const callSession = new WeakMap<LayerContext, number>();

/** Notes the call that starts now (journal.ts, `serial`). */
export function beginCall(ctx: LayerContext, call: LayerCall | undefined): void {
  if (call?.method === 'query') callSession.set(ctx, call.args[0]);
  else callSession.delete(ctx);
}

/** Forgets the cancellations of the call that just ended (journal.ts, `serial`). */
export function endCall(ctx: LayerContext): void {
  cancelledInCall.delete(ctx);
  callSession.delete(ctx);
}

/** Sends the cancel in place of `s`'s statement, in `s`'s transaction as it stands. */
export function sendCancel(ctx: LayerContext): Promise<BackendReply> {
  return ctx.backend.run(cancelStatement);
}

/** Notes on `sent` whether PostgreSQL failed it, and passes its reply on. */
function noteFailure(sent: NonNullable<LayerContext['lastSent']>, reply: BackendReply) {
  sent.failed = reply.error !== undefined;
  return reply;
}

/**
 * Sends a reader's statement, numbered for the watchdog, under the caps of an answer
 * (`readerCaps`). A number an earlier backend never answered is not sent again: the
 * caller treats it as a wait. One the reader stopped is answered as a cancel (stop.ts).
 * `before` is the layer's last query before it, if any (snapshot-import.ts needs that).
 */
export async function runReader(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params?: unknown[],
  before?: () => Promise<void>,
): Promise<BackendReply | 'stuck'> {
  const { backend, watch } = ctx;
  const seq = ++ctx.statementSeq;
  s.lastSeq = seq;
  if (ctx.backendUsers !== s.id) ctx.backendUsers = ctx.backendUsers === 'none' ? s.id : 'shared';
  const sent: NonNullable<LayerContext['lastSent']> = { sessionId: s.id, sql };
  ctx.lastSent = sent;
  if (ctx.stuck.has(seq)) return 'stuck';
  if (isCancelled(ctx, s, seq)) return sendCancel(ctx);
  if (ctx.replaying || !watch) {
    if (before) await before();
    return noteFailure(sent, await backend.run(toSimNames(sql), params, readerCaps));
  }
  // Only a lock held by a transaction set aside with PREPARE TRANSACTION can make PGlite's
  // one backend wait (the waits a transaction without locks would make are refused before:
  // a DEFERRABLE snapshot, CREATE INDEX CONCURRENTLY). A statement's news crosses so the
  // page knows which one to stop; only a guarded one sets the watchdog's timer.
  const guarded = await mayMeetPreparedLock(ctx, s, sql);
  // The first statement of a session's own call is quiet unless guarded: Stop takes a call
  // it has no news of, and that nothing unfinished was sent before, for the one running,
  // and withdraws it (worker-engine.ts), which is what cancelling its first statement does.
  // Most calls are one statement, so most cost the page one message, not two.
  const quiet = !guarded && callSession.get(ctx) === s.id;
  callSession.delete(ctx);
  if (before) await before();
  watch.statement({ seq, sessionId: s.id, guarded, done: false, quiet });
  try {
    return noteFailure(sent, await backend.run(toSimNames(sql), params, readerCaps));
  } finally {
    watch.statement({ seq, sessionId: s.id, guarded, done: true, quiet });
  }
}
