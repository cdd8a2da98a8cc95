// The simulation's whole state as JSON-safe data: clock, generator states, actors, seats,
// the door, the agenda. Live engine sessions are kept beside it (see context.ts), keyed
// by seat name, so the state itself can be copied, shown and compared.
import type { ClockState } from './clock';
import type { Role, ScriptCommand, VacuumReport } from './events';
import type { CounterSettings } from './settings';

/** What a seat is for. */
export type Purpose = 'claim' | 'heartbeat' | 'handler' | 'pool' | 'sweeper' | 'clerk' | 'traffic';

/** A connection asked for: which actor, for what, as which role. */
export interface SeatSpec {
  /** Unique in the sim: `worker-07/claim`, `api-1/pool-3`, `clerk`. */
  name: string;
  /** The process it belongs to, also its application_name: `worker-07`, `api-1`, `clerk`. */
  actor: string;
  purpose: Purpose;
  role: Role;
}

/** An open session: a seat at the counter. */
export interface Seat extends SeatSpec {
  pid: number;
  openedAtMs: number;
  /**
   * Simulated ms when the transaction it keeps open between actions began (a hold
   * worker's claim), else null. Whether it is open is for pg_stat_activity to say.
   */
  xactSinceMs: number | null;
}

/** A session refused a seat, waiting to try again, with the engine's FATAL word for word. */
export interface DoorEntry extends SeatSpec {
  code: string;
  message: string;
  sinceMs: number;
  retryAtMs: number;
  tries: number;
}

export type WorkerStatus = 'seating' | 'idle' | 'working' | 'down' | 'stopped';

export interface WorkerState {
  name: string;
  status: WorkerStatus;
  /** Bumped when the worker is killed or stopped: actions of an older life are dropped. */
  life: number;
  jobId: number | null;
  /** When the current job's work is done. */
  busyUntilMs: number | null;
  /** In the hold shape: the claim's transaction is open on the worker's claim seat. */
  inTransaction: boolean;
  /** Finish the current job, then stop (the worker count was lowered). */
  stopping: boolean;
}

/** One pooled connection of an API process. */
export interface PooledConnection {
  seat: string;
  /** The request using it, or null when it is idle in the pool. */
  request: number | null;
}

export interface ApiState {
  name: string;
  status: 'running' | 'stopping' | 'stopped';
  pool: PooledConnection[];
  /** Connections asked for and refused, now at the door. */
  opening: number;
  /** Requests waiting for a connection, oldest first. */
  waiting: number[];
  nextConnection: number;
}

/** Something to do at a simulated moment. */
export type Action =
  | { kind: 'door-retry'; seat: string }
  | { kind: 'worker-poll'; worker: string; life: number }
  | { kind: 'worker-heartbeat'; worker: string; life: number; jobId: number }
  | { kind: 'worker-finish'; worker: string; life: number; jobId: number }
  | { kind: 'worker-restart'; worker: string; life: number }
  | { kind: 'upload-arrives'; stream: number }
  | { kind: 'request-ends'; api: string; seat: string; request: number }
  | { kind: 'sweep' }
  | { kind: 'vacuum' }
  | { kind: 'traffic' };

export interface AgendaItem {
  atMs: number;
  /** Order among items due at the same ms: the order they were scheduled in. */
  seq: number;
  action: Action;
}

export interface ScriptEntry {
  atMs: number;
  command: ScriptCommand;
}

export interface SimState {
  settings: CounterSettings;
  clock: ClockState;
  /** Generator states by stream label (random.ts). */
  random: Record<string, number>;
  agenda: AgendaItem[];
  nextSeq: number;
  seats: Seat[];
  door: DoorEntry[];
  workers: WorkerState[];
  apis: ApiState[];
  /** Uploads arrive while this matches `uploadStream` (bumped when the rate changes). */
  uploadStream: number;
  uploadRate: number;
  nextRequest: number;
  nextApi: number;
  trafficTicks: number;
  /** The clerk's latest report per table. */
  clerk: VacuumReport[];
  /** Readers' commands with their moments, and how many have been carried out. */
  script: ScriptEntry[];
  scriptDone: number;
  /** Set when the engine went away. */
  halted: string | null;
}
