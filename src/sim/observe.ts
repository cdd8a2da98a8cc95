// What the reader's psql would show at this moment, asked of the engine itself (never
// computed by the sim): connection slots, the article's pg_stat_activity query, each
// session's state and XID, dead tuples, and the jobs by status. Run on the clerk's
// superuser seat (the sweeper's while the clerk waits at the door).
import type { Session } from '../engine/types';
import { now, type SimContext } from './context';
import { clerkSeat } from './clerk';
import { horizonSql } from './queries';
import { sweeperSeat } from './sweeper';

export interface Observation {
  atMs: number;
  /** The pid of the session that asked: it shows in its own answers with a snapshot. */
  observerPid: number;
  /** max_connections and the seats reserved, read with current_setting. */
  slots: { maxConnections: number; superuserReserved: number; reserved: number };
  /** The article's query, row by row: who holds the horizon back, by how many XIDs. */
  horizon: {
    pid: number;
    applicationName: string;
    state: string | null;
    holdingBackBy: number | null;
    /** `now() - xact_start` as PostgreSQL prints an interval (wall-clock time, not simulated). */
    openFor: string | null;
  }[];
  /** Every session of this database, as pg_stat_activity shows it. */
  sessions: {
    pid: number;
    applicationName: string;
    state: string | null;
    xid: string | null;
    xmin: string | null;
    /** `xact_start IS NOT NULL`: a ledger page is open. */
    inTransaction: boolean;
    /** A lock wait as `wait_event_type: wait_event` (e.g. `Lock: transactionid`), else null. */
    waiting: string | null;
  }[];
  /** n_dead_tup by table after `pg_stat_force_next_flush()` (other sessions' may lag). */
  deadTuples: Record<string, number>;
  /** Jobs by status as a new snapshot sees them (a held claim's row still reads `queued`). */
  jobs: Record<string, number>;
}

// Only lock waits: an idle backend waits on Client: ClientRead, which is no wait in the
// picture's sense.
const sessionsSql = `SELECT pid, application_name, state, backend_xid::text, backend_xmin::text,
       xact_start IS NOT NULL,
       CASE WHEN wait_event_type = 'Lock' THEN wait_event_type || ': ' || wait_event END
  FROM pg_stat_activity WHERE datname = current_database() ORDER BY pid`;

const deadTuplesSql = `SELECT relname, n_dead_tup FROM pg_stat_user_tables
 WHERE relname IN ('jobs', 'uploads', 'events') ORDER BY relname`;

/** Reads the observation from the engine. */
export async function observe(ctx: SimContext): Promise<Observation> {
  const session = ctx.sessions.get(clerkSeat.name) ?? ctx.sessions.get(sweeperSeat.name);
  if (!session)
    throw new Error('no superuser seat to observe from: clerk and sweeper are at the door');
  const [slots] = await rows(
    session,
    "SELECT current_setting('max_connections'), current_setting('superuser_reserved_connections'), current_setting('reserved_connections')",
  );
  const horizon = await rows(session, horizonSql);
  const sessions = await rows(session, sessionsSql);
  await session.query('SELECT pg_stat_force_next_flush()');
  const dead = await rows(session, deadTuplesSql);
  const jobs = await rows(
    session,
    'SELECT status, count(*) FROM jobs GROUP BY status ORDER BY status',
  );
  return {
    atMs: now(ctx),
    observerPid: session.pid,
    slots: {
      maxConnections: Number(slots![0]),
      superuserReserved: Number(slots![1]),
      reserved: Number(slots![2]),
    },
    horizon: horizon.map(([pid, name, state, by, openFor]) => ({
      pid: Number(pid),
      applicationName: name ?? '',
      state,
      holdingBackBy: by === null || by === undefined ? null : Number(by),
      openFor: openFor ?? null,
    })),
    sessions: sessions.map(([pid, name, state, xid, xmin, inTransaction, waiting]) => ({
      pid: Number(pid),
      applicationName: name ?? '',
      state: state ?? null,
      xid: xid ?? null,
      xmin: xmin ?? null,
      inTransaction: inTransaction === 't',
      waiting: waiting ?? null,
    })),
    deadTuples: Object.fromEntries(dead.map(([table, n]) => [table!, Number(n)])),
    jobs: Object.fromEntries(jobs.map(([status, n]) => [status!, Number(n)])),
  };
}

async function rows(session: Session, sql: string): Promise<(string | null)[][]> {
  return (await session.query(sql)).results[0]?.rows ?? [];
}
