// What happened in a run, as plain data. The same seed, settings and script give the
// same list on the same engine; between engines only pids and XIDs differ.

/** How a session connects: `superuser` may use the reserved seats, `ordinary` may not. */
export type Role = 'superuser' | 'ordinary';

/** A change a reader made while the sim ran; replayed at the same moment on restore. */
export type ScriptCommand =
  | { kind: 'kill-worker'; worker: string }
  | { kind: 'workers'; count: number }
  | { kind: 'api'; count: number }
  | { kind: 'upload-rate'; perSecond: number };

/** One VACUUM (VERBOSE) of one table, as the clerk read it from the notices. */
export interface VacuumReport {
  table: string;
  removed: number;
  remain: number;
  /** "Z are dead but not yet removable": dead, but some snapshot might still see them. */
  notYetRemovable: number;
  /** `removable cutoff`: VACUUM removed only what was deleted before this XID. */
  cutoff: string;
  /** "which was M XIDs old when operation ended". */
  cutoffAge: number;
  /** The application_name of the session holding that XID (or snapshot), if one is. */
  heldBy: string | null;
}

/** An event without its time; `emit` adds the clock's. */
export type SimEventBody =
  | { type: 'session-opened'; seat: string; actor: string; role: Role; pid: number }
  /** Refused a seat: the engine's FATAL, word for word. */
  | {
      type: 'session-refused';
      seat: string;
      actor: string;
      role: Role;
      code: string;
      message: string;
      retryAtMs: number;
    }
  | {
      type: 'session-closed';
      seat: string;
      actor: string;
      pid: number;
      why: 'killed' | 'overflow' | 'stopped' | 'pre-ping';
    }
  | { type: 'worker-started'; worker: string }
  | { type: 'worker-stopped'; worker: string }
  | { type: 'worker-killed'; worker: string; jobId: number | null }
  | { type: 'job-claimed'; worker: string; jobId: number; kind: string }
  | { type: 'heartbeat'; worker: string; jobId: number }
  | { type: 'job-recorded'; worker: string; jobId: number }
  /** The job was swept while the worker still worked on it: its result is not written. */
  | { type: 'record-lost'; worker: string; jobId: number }
  | { type: 'jobs-swept'; jobIds: number[] }
  | { type: 'pool-checkout'; api: string; seat: string; request: number }
  | { type: 'pool-checkin'; api: string; seat: string; request: number }
  | { type: 'pool-waiting'; api: string; request: number }
  | { type: 'upload-accepted'; api: string; request: number; uploadId: number; jobId: number }
  | { type: 'upload-failed'; api: string; request: number; code: string; message: string }
  | ({ type: 'vacuum' } & VacuumReport)
  | { type: 'command'; command: ScriptCommand }
  | { type: 'error'; actor: string; code: string; message: string }
  /** The in-browser engine refused to show this honestly (see NotExpressibleError). */
  | { type: 'not-expressible'; actor: string; message: string }
  /** The engine went away; the sim stops. */
  | { type: 'halted'; message: string };

/** An event at its simulated moment `t` (ms). */
export type SimEvent = SimEventBody & { t: number };
