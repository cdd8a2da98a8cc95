// The sessions as others see them: the sim schema's pg_stat_activity, its signals, the UI's list.
import type { SessionInfo } from '../../session-info';
import type { LayerContext, SessionRecord } from './context';
import { terminate } from './ending';
import { cancelWait } from './waiting';

/** Statements that read the `sim` schema's view of the sessions, or signal one. */
export const readsSessions =
  /pg_stat_activity|pg_backend_pid|pg_cancel_backend|pg_terminate_backend|pg_isolation_test_session_is_blocked/i;

/** The session table as `sim.sessions()` reads it, with `current` as the querying one. */
export function sessionsJson(ctx: LayerContext, current: SessionRecord): string {
  /**
   * A statement that waits on a row has taken an XID on a server (heap_update and
   * heap_lock_tuple are handed one); its snapshot's stand-in took one as the wait began.
   */
  const rowWaitXid = (r: SessionRecord) =>
    r.waitEvent === 'transactionid'
      ? (ctx.waiters.find((w) => w.s === r)?.standIn?.gid ?? null)
      : null;
  return JSON.stringify(
    [...ctx.sessions.values()].map((r) => ({
      pid: r.pid,
      usename: r.role,
      application_name: r.applicationName,
      backend_start: r.backendStart.toISOString(),
      xact_start: r.xactStart?.toISOString() ?? null,
      query_start: r.queryStart?.toISOString() ?? null,
      state_change: r.stateChange.toISOString(),
      // A server's idle backend waits for its client: Client/ClientRead.
      wait_event_type: r.state.startsWith('idle') ? 'Client' : r.waitEventType,
      wait_event: r.state.startsWith('idle') ? 'ClientRead' : r.waitEvent,
      state: r.state,
      query: r.query,
      gid: r.holding.kind === 'parked' ? r.holding.gid : rowWaitXid(r),
      emulated: r.holding.kind === 'parked' && r.holding.emulatedSnapshot,
      is_current: r === current,
      blocked_by: r.blockedBy?.pid ?? null,
      snapshot_xmin: r.waitXmin,
    })),
  );
}

/** Reads and clears the signals `sim.pg_cancel_backend` and friends recorded. */
export async function takeSignals(ctx: LayerContext): Promise<{ kind: string; pid: number }[]> {
  const [taken] = await ctx.backend.exec(
    "SELECT current_setting('sim.signals', true), set_config('sim.signals', '', false)",
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

/** What the UI shows of every session: state, wait, and the XID it holds if parked. */
export function sessionInfos(ctx: LayerContext): SessionInfo[] {
  return [...ctx.sessions.values()].map((s) => {
    const standIn = ctx.waiters.find((w) => w.s === s)?.standIn;
    return {
      id: s.id,
      pid: s.pid,
      applicationName: s.applicationName,
      role: s.role,
      state: s.state,
      xactStart: s.xactStart?.toISOString() ?? null,
      query: s.query,
      waitEventType: s.waitEventType,
      waitEvent: s.waitEvent,
      blockedByPid: s.blockedBy?.pid ?? null,
      parkedXid: s.holding.kind === 'parked' ? s.holding.xid : (standIn?.xid ?? null),
      emulated:
        (s.holding.kind === 'parked' && s.holding.emulatedSnapshot) || standIn !== undefined,
      watchdog: s.waitByWatchdog,
    };
  });
}
