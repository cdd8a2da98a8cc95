// What the page's watchdog sees: each reader statement, numbered, as it goes out and comes back.
import { readerCaps, type BackendReply } from '../backend';
import { toSimNames } from '../sim-schema';
import { standInGids } from './activity';
import type { LayerContext, SessionRecord } from './context';
import type { JournalEntry } from './journal';

/** What the layer tells whoever watches it for hangs (the page's watchdog). */
export interface LayerWatch {
  /** A call finished: it belongs in the journal. */
  journal(entry: JournalEntry): void;
  /**
   * A reader's statement, number `seq`, is about to go to the backend (`guarded`: a parked
   * transaction holds locks, so it might wait), or it came back (`done`).
   */
  statement(event: { seq: number; sessionId: number; guarded: boolean; done: boolean }): void;
}

/**
 * Sends a reader's statement, numbered for the watchdog, under the caps of an answer
 * (`readerCaps`). A number an earlier backend never answered is not sent again: the
 * caller treats it as a wait.
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
  if (ctx.replaying || !watch) return backend.run(toSimNames(sql), params, readerCaps);
  // Only a transaction set aside with PREPARE TRANSACTION can make PGlite's one backend
  // wait: by its locks, or, holding none (a stand-in for a snapshot), by being a running
  // transaction some waits wait out (a DEFERRABLE snapshot, CREATE INDEX CONCURRENTLY).
  const guarded =
    [...ctx.sessions.values()].some((r) => r.holding.kind === 'parked') ||
    standInGids(ctx).length > 0;
  watch.statement({ seq, sessionId: s.id, guarded, done: false });
  try {
    return await backend.run(toSimNames(sql), params, readerCaps);
  } finally {
    watch.statement({ seq, sessionId: s.id, guarded, done: true });
  }
}
