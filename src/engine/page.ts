// The page's live engine as the UI sees it: what a demo may ask of it, and where to get
// it. Components import this file, never the PGlite client behind it, so the engine
// underneath may change without them.
import type { SessionInfo } from './session-info';
import type { Engine, Session, SessionOptions } from './types';

export { getPageEngine } from './pglite/client';

/** How far the engine's start has got, for the loading placeholder. */
export type StartProgress =
  | { step: 'download'; loadedBytes: number; totalBytes: number }
  | { step: 'compile' }
  | { step: 'boot' }
  | { step: 'ready' };

/**
 * What Stop did to a session's statement. Either way the statement failed with 57014, as
 * a server's cancel fails it, and a transaction block it was in is aborted.
 */
export type StopOutcome =
  /** It waited for a lock or slept in pg_sleep: the engine cancelled it, nothing else changed. */
  | { kind: 'cancelled' }
  /**
   * PostgreSQL was busy with it (or, `queued`, with other work it waited its turn behind)
   * and cannot be interrupted inside the browser: the engine's worker was replaced and
   * every session rebuilt from the journal, as after the watchdog; the statement was not
   * run again (a statement it waited behind starts again).
   */
  | { kind: 'replaced'; queued: boolean }
  /** It had ended by the time Stop reached it. */
  | { kind: 'not-running' };

/** The page's one engine: started on first need, shared by every demo on the page. */
export interface PageEngine extends Engine {
  /** Starts the engine (idempotent); `onProgress` hears each step. */
  start(onProgress?: (p: StartProgress) => void): Promise<void>;
  /** Replaces the engine with a fresh one; calls in flight reject with EngineGoneError. */
  restart(onProgress?: (p: StartProgress) => void): Promise<void>;
  openSession(options?: SessionOptions): Promise<Session>;
  /** Every open session's state, wait and parked XID, for the console's tabs. */
  listSessions(): Promise<SessionInfo[]>;
  /** Cancels a session's waiting statement; resolves false when it was not waiting. */
  cancel(session: Session): Promise<boolean>;
  /**
   * Stops a session's statement, whatever it is doing (waiting, sleeping, or working in
   * PostgreSQL), as a server's cancel does (57014).
   */
  stop(session: Session): Promise<StopOutcome>;
}
