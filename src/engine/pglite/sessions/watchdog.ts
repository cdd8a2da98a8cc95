// What the page's watchdog sees: each reader statement, numbered, as it goes out and comes back.
import { readerCaps, type BackendReply } from '../backend';
import { toSimNames } from '../sim-schema';
import type { LayerContext, SessionRecord } from './context';
import type { JournalEntry } from './journal';
import type { LayerCheckpoint } from './checkpoint';
import { mayMeetPreparedLock } from './lock-reach';
import { isCancelled, sendCancel } from './stop';

/** What the layer tells whoever watches it for hangs (the page's watchdog). */
export interface LayerWatch {
  /** A call finished: it belongs in the journal. */
  journal(entry: JournalEntry): void;
  /**
   * A reader's statement, number `seq`, is about to go to the backend (`guarded`: it could
   * meet a lock a parked transaction holds, so it might wait), or it came back (`done`).
   */
  statement(event: { seq: number; sessionId: number; guarded: boolean; done: boolean }): void;
  /** The journal so far is no longer needed: a recovery starts from `checkpoint`. */
  checkpoint?(checkpoint: LayerCheckpoint): void;
}

/**
 * Sends a reader's statement, numbered for the watchdog, under the caps of an answer
 * (`readerCaps`). A number an earlier backend never answered is not sent again: the
 * caller treats it as a wait. One the reader stopped is answered as a cancel (stop.ts).
 */
export async function runReader(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params?: unknown[],
): Promise<BackendReply | 'stuck'> {
  const { backend, watch } = ctx;
  const seq = ++ctx.statementSeq;
  if (ctx.stuck.has(seq)) return 'stuck';
  if (isCancelled(ctx, s, seq)) return sendCancel(ctx);
  if (ctx.replaying || !watch) return backend.run(toSimNames(sql), params, readerCaps);
  // Only a lock held by a transaction set aside with PREPARE TRANSACTION can make PGlite's
  // one backend wait (the waits a transaction without locks would make are refused before:
  // a DEFERRABLE snapshot, CREATE INDEX CONCURRENTLY). Every statement's news crosses, so
  // the page knows which one to stop; only a guarded one sets the watchdog's timer.
  const guarded = await mayMeetPreparedLock(ctx, s, sql);
  watch.statement({ seq, sessionId: s.id, guarded, done: false });
  try {
    return await backend.run(toSimNames(sql), params, readerCaps);
  } finally {
    watch.statement({ seq, sessionId: s.id, guarded, done: true });
  }
}
