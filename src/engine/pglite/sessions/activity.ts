// The sessions as others see them: the sim schema's pg_stat_activity, its signals, the UI's list.
import type { SessionInfo } from '../../session-info';
import type { LayerContext, SessionRecord } from './context';
import type { QueryReply } from './replies';
import { terminate } from './ending';
import { lostWhole } from './parking';
import { shownWait } from './tuple-locks';
import { cancelWait } from './waiting';

/** Statements that read the `sim` schema's view of the sessions, or signal one. */
export const readsSessions =
  /pg_stat_activity|pg_backend_pid|pg_cancel_backend|pg_terminate_backend|pg_isolation_test_session_is_blocked/i;

/** A statement that may create or change a view or function: it could read the sessions. */
const definesObjects = /^\s*(?:CREATE|ALTER|DROP|DO|COMMENT)\b/im;

/**
 * Whether the reader's own views and functions read the session table: a view that depends
 * on sim.pg_stat_activity or a session function, or a function whose body names one (a
 * body is text to PostgreSQL, so no dependency is recorded for it). Then every statement
 * may read the sessions without naming them, and each is sent with them (run.ts). Read
 * again after a statement that may define objects; pg_depend and pg_proc only, which take
 * no lock on the reader's objects.
 */
export async function noteSessionReaders(
  ctx: LayerContext,
  sql: string,
  failed: boolean,
): Promise<void> {
  if (failed || !definesObjects.test(sql)) return;
  const [found] = await ctx.backend.exec(
    `WITH sim_objects AS (
       SELECT 'pg_catalog.pg_class'::pg_catalog.regclass AS classid, c.oid FROM pg_catalog.pg_class c
        WHERE c.relnamespace = 'sim'::pg_catalog.regnamespace AND c.relname = 'pg_stat_activity'
       UNION ALL
       SELECT 'pg_catalog.pg_proc'::pg_catalog.regclass, p.oid FROM pg_catalog.pg_proc p
        WHERE p.pronamespace = 'sim'::pg_catalog.regnamespace AND p.proname ~ $1)
     SELECT EXISTS (
       SELECT FROM pg_catalog.pg_depend d JOIN sim_objects o
           ON d.refclassid = o.classid AND d.refobjid = o.oid
        WHERE d.deptype = 'n'
          AND NOT EXISTS (SELECT FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_class c
                            ON c.oid = r.ev_class
                           WHERE d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
                             AND r.oid = d.objid AND c.relnamespace = 'sim'::pg_catalog.regnamespace)
          AND NOT EXISTS (SELECT FROM pg_catalog.pg_proc p
                           WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
                             AND p.oid = d.objid AND p.pronamespace = 'sim'::pg_catalog.regnamespace))
     OR EXISTS (
       SELECT FROM pg_catalog.pg_proc p
        WHERE p.pronamespace NOT IN ('sim'::pg_catalog.regnamespace,
                                     'pg_catalog'::pg_catalog.regnamespace,
                                     'information_schema'::pg_catalog.regnamespace)
          AND p.prosrc ~* $1)`,
    [readsSessions.source],
  );
  ctx.sessionsReadIndirectly = found!.rows[0]![0] === 't';
}

/** The session table as `sim.sessions()` reads it, with `current` as the querying one. */
export function sessionsJson(ctx: LayerContext, current: SessionRecord): string {
  /**
   * A write that waits on a row has taken an XID on a server (heap_update, heap_delete);
   * its snapshot's stand-in took one as the wait began, and plays it (`StandIn.owed`).
   */
  const rowWaitXid = (r: SessionRecord) => {
    const standIn = ctx.waiters.find((w) => w.s === r)?.standIn;
    return standIn?.owed ? standIn.gid : null;
  };
  return JSON.stringify(
    [...ctx.sessions.values()].map((r) => {
      const shown = shownWait(ctx, r);
      return {
        pid: r.pid,
        usename: r.role,
        application_name: r.applicationName,
        backend_start: r.backendStart.toISOString(),
        // A statement outside a transaction block is its own transaction: it began with it.
        // A block that failed outside any savepoint has no transaction any more, only the
        // block (AbortTransaction reports none); one that failed in a savepoint keeps it.
        xact_start:
          r.state === 'idle in transaction (aborted)' && !lostWhole(r)
            ? null
            : ((r.xactStart ?? (r.state === 'active' ? r.queryStart : null))?.toISOString() ??
              null),
        query_start: r.queryStart?.toISOString() ?? null,
        state_change: r.stateChange.toISOString(),
        // A server's idle backend waits for its client: Client/ClientRead.
        wait_event_type: r.state.startsWith('idle') ? 'Client' : r.waitEventType,
        wait_event: r.state.startsWith('idle') ? 'ClientRead' : shown.event,
        state: r.state,
        query: r.query,
        // One that held only locks has no XID and no snapshot on a server: none is shown.
        gid:
          r.holding.kind === 'parked'
            ? r.holding.locksOnly
              ? null
              : r.holding.gid
            : rowWaitXid(r),
        emulated: r.holding.kind === 'parked' && r.holding.emulatedSnapshot,
        is_current: r === current,
        blocked_by: shown.blockedBy?.pid ?? null,
        snapshot_xmin: r.waitXmin,
      };
    }),
  );
}

/** The gids of the parked transactions that only stand in for a snapshot (sim.standins). */
export function standInGids(ctx: LayerContext): string[] {
  return [
    ...[...ctx.sessions.values()].flatMap((r) =>
      r.holding.kind === 'parked' && r.holding.emulatedSnapshot ? [r.holding.gid] : [],
    ),
    // A write's (`owed`) plays the XID it holds on a server: that one counts.
    ...ctx.waiters.flatMap((w) => (w.standIn && !w.standIn.owed ? [w.standIn.gid] : [])),
    ...ctx.spentStandIns,
    ...[...ctx.snapshotPins.values()].map((pin) => pin.gid),
  ];
}

/** The isolation tester's lock-wait probe, as the spec runner sends it. */
const testerProbe = /^SELECT pg_isolation_test_session_is_blocked\(\$1, '\{([\d,]*)\}'\)$/;

/**
 * Answers the isolation tester's lock-wait probe from a session with no transaction open,
 * without the backend. The answer is the session table's either way (the sim schema's
 * function reads it); sent to the backend, the probe would first set aside whatever
 * transaction is open there, which on a server it never touches. Null for anything else.
 */
export function answerTesterProbe(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params: unknown[] | undefined,
): QueryReply | null {
  const probe = testerProbe.exec(sql);
  if (!probe || s.holding.kind !== 'none' || params?.length !== 1) return null;
  const interesting = probe[1]!.split(',').map(Number);
  const target = [...ctx.sessions.values()].find((r) => r.pid === Number(params[0]));
  const blocked = target?.blockedBy ? interesting.includes(target.blockedBy.pid) : false;
  return {
    ok: true,
    result: {
      results: [
        {
          command: 'SELECT',
          rowCount: 1,
          // bool, as pg_isolation_test_session_is_blocked returns it
          fields: [{ name: 'pg_isolation_test_session_is_blocked', dataTypeID: 16 }],
          rows: [[blocked ? 't' : 'f']],
        },
      ],
      notices: [],
    },
  };
}

/** Reads and clears the signals `sim.pg_cancel_backend` and friends recorded. */
export async function takeSignals(ctx: LayerContext): Promise<{ kind: string; pid: number }[]> {
  const [taken] = await ctx.backend.exec(
    "SELECT pg_catalog.current_setting('sim.signals', true), pg_catalog.set_config('sim.signals', '', false)",
  );
  return (taken!.rows[0]![0] ?? '')
    .split(',')
    .filter(Boolean)
    .map((signal) => {
      const [kind, pid] = signal.split(':');
      return { kind: kind!, pid: Number(pid) };
    });
}

/** Carries out pg_cancel_backend and pg_terminate_backend once the statement ended. */
export async function carryOut(
  ctx: LayerContext,
  signals: { kind: string; pid: number }[],
): Promise<void> {
  for (const { kind, pid } of signals) {
    const target = [...ctx.sessions.values()].find((r) => r.pid === pid);
    if (kind === 'cancel' && target) await cancelWait(ctx, target);
    if (kind === 'terminate' && target) {
      // The FATAL a client reads when its backend is terminated (ProcessInterrupts).
      await terminate(ctx, target, '57P01', 'terminating connection due to administrator command');
    }
  }
}

/** What the UI shows of every session: state, wait, and the XID it holds. */
export function sessionInfos(ctx: LayerContext): SessionInfo[] {
  return [...ctx.sessions.values()].map((s) => {
    const standIn = ctx.waiters.find((w) => w.s === s)?.standIn;
    const shown = shownWait(ctx, s);
    return {
      id: s.id,
      pid: s.pid,
      applicationName: s.applicationName,
      role: s.role,
      state: s.state,
      xactStart: s.xactStart?.toISOString() ?? null,
      query: s.query,
      waitEventType: s.waitEventType,
      waitEvent: shown.event,
      blockedByPid: shown.blockedBy?.pid ?? null,
      xid:
        s.holding.kind === 'parked'
          ? s.holding.locksOnly
            ? null // as a server has it: locks, and neither XID nor snapshot
            : s.holding.xid
          : (standIn?.xid ?? (s.holding.kind === 'resident' ? s.xid : null)),
      emulated:
        (s.holding.kind === 'parked' && s.holding.emulatedSnapshot && !s.holding.locksOnly) ||
        standIn !== undefined,
      watchdog: s.waitByWatchdog,
      replayedFrom: s.replayedFrom,
    };
  });
}
