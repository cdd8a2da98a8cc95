// The session layer: many sessions on PGlite's one backend, assembled from the modules beside it.
import type { SessionInfo } from '../../session-info';
import type { SessionOptions } from '../../types';
import type { Backend } from '../backend';
import { sessionInfos } from './activity';
import { restoreCheckpoint, type LayerCheckpoint } from './checkpoint';
import { makeContext, type LayerOptions } from './context';
import { dispatch, replay, serial, type JournalEntry, type LayerCall } from './journal';
import type { OpenReply, QueryReply } from './replies';

export type { LayerCheckpoint } from './checkpoint';
export type { CheckpointLimits, LayerOptions } from './context';
export type { JournalEntry, LayerCall } from './journal';
export type { OpenReply, QueryReply } from './replies';
export { seatRefusal } from './slots';
export type { LayerWatch } from './watchdog';

/**
 * The session layer over one backend; every call runs alone, in the order it came. The
 * backend holds at most one open transaction, the resident's. When another session needs
 * the backend, the resident's transaction is set aside (parking.ts):
 * - holding an XID, it is parked with PREPARE TRANSACTION: it keeps its XID and locks,
 *   so other sessions meet them for real, and it can later only COMMIT or ROLLBACK;
 * - holding a snapshot but no XID (REPEATABLE READ, SERIALIZABLE, an open cursor), it is
 *   parked after taking an XID, a stand-in that pins the horizon where the snapshot did;
 * - READ COMMITTED that only read holds nothing on a server either: it is closed in the
 *   backend and reopened at the session's next statement;
 * - a failed transaction is closed and recreated as failed at the next statement.
 * Why, and which module holds what: src/engine/ARCHITECTURE.md.
 */
export function makeSessionLayer(backend: Backend, options: LayerOptions = {}) {
  const ctx = makeContext(backend, options);
  return {
    openSession: (options: SessionOptions = {}): Promise<OpenReply> =>
      dispatch(ctx, { method: 'openSession', args: [options] }) as Promise<OpenReply>,
    query: (id: number, sql: string, params?: unknown[]): Promise<QueryReply> =>
      dispatch(ctx, { method: 'query', args: [id, sql, params] }) as Promise<QueryReply>,
    closeSession: (id: number): Promise<void> =>
      dispatch(ctx, { method: 'closeSession', args: [id] }) as Promise<void>,
    /** Cancels session `id`'s waiting statement (the console's Cancel button). */
    cancel: (id: number): Promise<boolean> =>
      dispatch(ctx, { method: 'cancel', args: [id] }) as Promise<boolean>,
    /** Answers session `id`'s query `sql`, stopped before it started, as cancelled (stop.ts). */
    withdraw: (id: number, sql: string): Promise<QueryReply> =>
      dispatch(ctx, { method: 'withdraw', args: [id, sql] }) as Promise<QueryReply>,
    /** Any of the calls above as data, journaled with the caller's `tag`. */
    invoke: (call: LayerCall, tag?: number): Promise<unknown> => dispatch(ctx, call, tag),
    /** Makes a journal's calls again on this layer's fresh backend (see `replay`). */
    replay: (entries: JournalEntry[], answer: (tag: number, value: unknown) => void) =>
      replay(ctx, entries, answer),
    /** Takes up a checkpoint's records on a backend booted from its data directory. */
    restore: (checkpoint: Omit<LayerCheckpoint, 'dataDir'>) => restoreCheckpoint(ctx, checkpoint),
    /** What the UI shows of every session: state, wait, and the XID it holds if parked. */
    list: (): Promise<SessionInfo[]> => serial(ctx, async () => sessionInfos(ctx)),
  };
}
