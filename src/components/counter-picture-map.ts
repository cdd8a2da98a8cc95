// From the simulation's view (and the engine's own observation) to the picture's input.
// Everything shown as PostgreSQL's comes from the observation: states, XIDs, waits, the
// horizon, dead tuples and VACUUM's figures. Seats and the door are the session layer's
// model of connection slots, and the picture labels them so.
import type { Observation } from '../sim/observe';
import type { Purpose } from '../sim/state';
import type { CounterView } from '../sim/view';
import type { CounterPicture, SeatedSession, SeatRole, SessionState } from '../viz/counter-picture';

const roleOf: Record<Purpose, SeatRole> = {
  claim: 'worker',
  heartbeat: 'worker',
  handler: 'worker',
  pool: 'api',
  sweeper: 'sweeper',
  clerk: 'clerk',
  traffic: 'other',
};

const states = new Set<string>([
  'active',
  'idle',
  'idle in transaction',
  'idle in transaction (aborted)',
]);

const asState = (state: string | null): SessionState =>
  state && states.has(state) ? (state as SessionState) : 'idle';

/**
 * The picture at the sim's moment. Sessions the sim did not open come from the
 * observation; the reader's own (the demo's `reader`, the console's `you`) are drawn as
 * the reader's.
 */
export function counterPicture(
  view: CounterView,
  observation: Observation | null,
  readerPids: ReadonlySet<number> = new Set(),
): CounterPicture | null {
  if (!view.slots || !observation) return null;
  const simPids = new Set(view.seats.map((s) => s.pid));
  const seats: SeatedSession[] = view.seats.map((seat) => ({
    pid: seat.pid,
    name: seat.name,
    role: roleOf[seat.purpose],
    superuser: seat.role === 'superuser',
    state: asState(seat.state),
    xid: seat.xid,
    // The page's age in simulated time from when the sim opened it; a page the sim did
    // not open itself (a waiting statement's snapshot) is as old as the observation.
    xactAgeMs: seat.inTransaction
      ? Math.max(0, view.atMs - (seat.xactSinceMs ?? observation.atMs))
      : null,
    waiting: seat.waiting,
    blockedByPid: null,
    emulated: false,
  }));
  for (const s of observation.sessions) {
    if (simPids.has(s.pid)) continue;
    seats.push({
      pid: s.pid,
      name: s.applicationName || `pid ${s.pid}`,
      // The console beside the counter on /lab/counter/ opens its first session as `you`.
      role: readerPids.has(s.pid) || s.applicationName === 'you' ? 'you' : 'other',
      superuser: true,
      state: asState(s.state),
      xid: s.xid,
      // Not the sim's, so it has no simulated age: drawn as just opened.
      xactAgeMs: s.inTransaction ? 0 : null,
      waiting: s.waiting,
      blockedByPid: null,
      emulated: false,
    });
  }
  // The article's query, in its order: the first row not the observer's own holds the
  // horizon furthest back.
  const holder = observation.horizon.find((h) => h.pid !== observation.observerPid);
  const held = holder && observation.sessions.find((s) => s.pid === holder.pid);
  const last = view.clerk.at(-1);
  return {
    maxConnections: view.slots.maxConnections,
    superuserReserved: view.slots.superuserReserved,
    seats,
    door: view.door.map((d) => ({ name: d.name, role: roleOf[d.purpose], message: d.message })),
    clerk: {
      deadTuples: view.deadTuples
        ? (view.deadTuples.jobs ?? 0) + (view.deadTuples.events ?? 0)
        : null,
      horizonXid: held ? (held.xmin ?? held.xid) : null,
      horizonPid: held ? held.pid : null,
      lastVacuum: last
        ? {
            table: last.table,
            removed: last.removed,
            notYetRemovable: last.notYetRemovable,
            cutoff: last.cutoff,
          }
        : null,
    },
    jobs: {
      queued: view.jobs?.queued ?? 0,
      running: view.jobs?.running ?? 0,
      done: view.jobs?.done ?? 0,
    },
  };
}
