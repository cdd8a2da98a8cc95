// The state as the counter picture draws it: seats (connections) with their ledger pages
// (transactions and XIDs), the door with each refusal's FATAL, the clerk's last report
// and the job counts. Names, roles and times come from the sim; state and XIDs come only
// from the engine's last observation (observe.ts), never from the sim's own guess.
import type { VacuumReport } from './events';
import type { Observation } from './observe';
import type { DoorEntry, Purpose, SimState, WorkerStatus } from './state';

export interface SeatView {
  name: string;
  actor: string;
  purpose: Purpose;
  role: 'superuser' | 'ordinary';
  pid: number;
  /** Simulated ms when the session opened. */
  sinceMs: number;
  /** pg_stat_activity.state at the last observation (null: not observed since it opened). */
  state: string | null;
  /** backend_xid: the XID of its open ledger page, if it has one. */
  xid: string | null;
  /** backend_xmin: the snapshot it holds, if any. */
  xmin: string | null;
  /** A ledger page is open (xact_start is set); null: not observed since it opened. */
  inTransaction: boolean | null;
  /** A lock wait, `Lock: transactionid`; null when not waiting. */
  waiting: string | null;
  /**
   * Simulated ms when the transaction it keeps open began (a hold worker's claim), for
   * the page's age in simulated time; `now() - xact_start` would be wall-clock time.
   */
  xactSinceMs: number | null;
}

export interface CounterView {
  atMs: number;
  speed: number;
  paused: boolean;
  halted: string | null;
  seats: SeatView[];
  door: DoorEntry[];
  clerk: VacuumReport[];
  workers: { name: string; status: WorkerStatus; jobId: number | null }[];
  apis: { name: string; status: string; inUse: number; idle: number; waiting: number }[];
  /** From the last observation, null before the first. */
  slots: Observation['slots'] | null;
  jobs: Record<string, number> | null;
  deadTuples: Record<string, number> | null;
  observedAtMs: number | null;
  /** The observing session's pid: leave it out when looking for who holds the horizon. */
  observerPid: number | null;
}

/** The picture's view of `state`, with what `observation` read from the engine. */
export function counterView(state: SimState, observation: Observation | null): CounterView {
  const byPid = new Map(observation?.sessions.map((s) => [s.pid, s]));
  return {
    atMs: state.clock.nowMs,
    speed: state.clock.speed,
    paused: state.clock.paused,
    halted: state.halted,
    seats: state.seats.map((seat) => {
      const seen = seat.openedAtMs <= (observation?.atMs ?? -1) ? byPid.get(seat.pid) : undefined;
      return {
        name: seat.name,
        actor: seat.actor,
        purpose: seat.purpose,
        role: seat.role,
        pid: seat.pid,
        sinceMs: seat.openedAtMs,
        state: seen?.state ?? null,
        xid: seen?.xid ?? null,
        xmin: seen?.xmin ?? null,
        inTransaction: seen ? seen.inTransaction : null,
        waiting: seen?.waiting ?? null,
        xactSinceMs: seat.xactSinceMs,
      };
    }),
    door: state.door.map((d) => ({ ...d })),
    clerk: state.clerk.map((r) => ({ ...r })),
    workers: state.workers.map(({ name, status, jobId }) => ({ name, status, jobId })),
    apis: state.apis.map((a) => ({
      name: a.name,
      status: a.status,
      inUse: a.pool.filter((c) => c.request !== null).length,
      idle: a.pool.filter((c) => c.request === null).length,
      waiting: a.waiting.length,
    })),
    slots: observation?.slots ?? null,
    jobs: observation ? { ...observation.jobs } : null,
    deadTuples: observation ? { ...observation.deadTuples } : null,
    observedAtMs: observation?.atMs ?? null,
    observerPid: observation?.observerPid ?? null,
  };
}
