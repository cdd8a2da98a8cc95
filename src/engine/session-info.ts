// What a live engine tells the UI about each of its sessions, as plain data (it crosses
// the worker boundary): the columns of pg_stat_activity the console shows, and whether
// the session's transaction is parked or stood in for.

/** A session's `state` as pg_stat_activity shows it. */
export type SessionStateName =
  'active' | 'idle' | 'idle in transaction' | 'idle in transaction (aborted)';

/** A session as the UI shows it. */
export interface SessionInfo {
  id: number;
  pid: number;
  applicationName: string;
  role: string;
  state: SessionStateName;
  xactStart: string | null;
  query: string;
  waitEventType: string | null;
  waitEvent: string | null;
  blockedByPid: number | null;
  /**
   * The XID its transaction holds (real, whether it is parked with PREPARE TRANSACTION or
   * open in the backend), or, when `emulated`, the XID of the stand-in for its snapshot.
   */
  xid: string | null;
  /** True when that XID stands in for a snapshot (REPEATABLE READ, a cursor). */
  emulated: boolean;
  /**
   * The XID its transaction had before it went on by being replayed in a new transaction
   * (modelled: see src/engine/ARCHITECTURE.md, "Resuming a parked transaction"); null when
   * it never was.
   */
  replayedFrom: string | null;
  /** True when its wait was found by the watchdog rather than by a check. */
  watchdog: boolean;
}
