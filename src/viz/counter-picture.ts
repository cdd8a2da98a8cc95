/**
 * The bank counter picture's input: plain, JSON-safe data, so a moment can be
 * checkpointed, shared as a URL, or sent across a worker boundary unchanged.
 *
 * The simulation's state is mapped onto this; the drawing reads nothing else. What is
 * real and what is modelled is said per field, because the picture labels it so:
 * seats and the door are modelled (PGlite has one backend; connection slots are counted
 * by the session layer from the engine's own settings), and so are the ages of ledger
 * pages (simulated time), while XIDs, dead tuples and VACUUM's figures come from
 * PostgreSQL.
 */

/** Who a seated (or refused) session belongs to; decides the letter on its token. */
export type SeatRole = 'worker' | 'api' | 'sweeper' | 'clerk' | 'you' | 'other';

/** `pg_stat_activity.state`, exactly as PostgreSQL spells it. */
export type SessionState =
  'active' | 'idle' | 'idle in transaction' | 'idle in transaction (aborted)';

/** One connection: a session sitting in a seat at the counter. */
export interface SeatedSession {
  /** `pg_stat_activity.pid` (synthetic on PGlite); the key that keeps it in its seat. */
  pid: number;
  /** `application_name`, e.g. `worker-7/2` (worker 7, its second connection). */
  name: string;
  role: SeatRole;
  /**
   * Connected as a superuser: only these may take the seats kept by
   * `superuser_reserved_connections` (PostgreSQL's `InitPostgres`, 53300 checks).
   */
  superuser: boolean;
  state: SessionState;
  /**
   * The XID its open transaction holds (`backend_xid`), as text since an XID is a
   * 32-bit unsigned number; for an emulated snapshot, the stand-in's XID. `null` when
   * it holds none: no transaction, or one that has only read.
   */
  xid: string | null;
  /**
   * How long its transaction has been open (`now() - xact_start`), in ms; `null` when
   * no transaction is open. A ledger page is drawn exactly when this is not null.
   */
  xactAgeMs: number | null;
  /**
   * What it waits for as `wait_event_type: wait_event`, e.g. `Lock: transactionid`;
   * `null` when not waiting.
   */
  waiting: string | null;
  /** The pid of the session it waits behind, when known (`pg_blocking_pids`). */
  blockedByPid: number | null;
  /**
   * Its XID stands in for a snapshot (REPEATABLE READ, an open cursor) that PGlite
   * cannot park as such; the picture labels it "emulated: snapshot held".
   */
  emulated: boolean;
}

/** A session that asked for a seat and was refused (modelled, with PostgreSQL's text). */
export interface RefusedSession {
  /** The `application_name` it tried to connect with; unique among those at the door. */
  name: string;
  role: SeatRole;
  /**
   * The FATAL message PostgreSQL 18 sends (SQLSTATE 53300), verbatim, without the
   * `FATAL:` prefix: `sorry, too many clients already`, or `remaining connection slots
   * are reserved for roles with the SUPERUSER attribute`.
   */
  message: string;
}

/** What the last `VACUUM (VERBOSE)` printed for the table it cleaned (real output). */
export interface VacuumReport {
  /** The table it vacuumed, e.g. `jobs`. */
  table: string;
  /** `tuples: N removed`. */
  removed: number;
  /** `K are dead but not yet removable`: the dead tuples the horizon kept. */
  notYetRemovable: number;
  /** `removable cutoff: X`, the horizon VACUUM used; `null` if it printed none. */
  cutoff: string | null;
}

/** VACUUM, the clerk who files dead tuples away, and what stops it (all real). */
export interface ClerkView {
  /** `pg_stat_user_tables.n_dead_tup` of jobs and events, added; `null` before it is read. */
  deadTuples: number | null;
  /**
   * The horizon: the XID of the article's query's first row, the largest
   * `age(COALESCE(backend_xmin, backend_xid))`. `null` when nothing holds it back.
   */
  horizonXid: string | null;
  /** The pid of the session holding that XID, to mark its ledger page; `null` if none. */
  horizonPid: number | null;
  /** The last `VACUUM (VERBOSE)` report, `null` until VACUUM has run. */
  lastVacuum: VacuumReport | null;
}

/** The jobs table in short: counts per status. */
export interface JobsView {
  queued: number;
  running: number;
  done: number;
}

/** Everything the counter picture shows at one moment. */
export interface CounterPicture {
  /** `max_connections` as the engine reports it: the number of seats. */
  maxConnections: number;
  /** `superuser_reserved_connections`: the last seats, kept for superusers. */
  superuserReserved: number;
  /** Connected sessions, in any order; at most `maxConnections` of them are drawn. */
  seats: SeatedSession[];
  /** Refused sessions, in the order they were turned away. */
  door: RefusedSession[];
  clerk: ClerkView;
  jobs: JobsView;
}

/** A counter with no one at it: the starting picture before any session connects. */
export function emptyPicture(maxConnections: number, superuserReserved: number): CounterPicture {
  return {
    maxConnections,
    superuserReserved,
    seats: [],
    door: [],
    clerk: { deadTuples: null, horizonXid: null, horizonPid: null, lastVacuum: null },
    jobs: { queued: 0, running: 0, done: 0 },
  };
}
