// Deadlocks among waiting sessions, found and ended as a server's deadlock check does.
import type { LayerContext, Waiter } from './context';
import { failWait } from './waiting';

/**
 * Runs the deadlock checks that are due at `at` (ms); returns when the next one is due
 * (Infinity for none).
 */
export async function checkDeadlocks(ctx: LayerContext, at: number): Promise<number> {
  let next = Infinity;
  for (const waiter of [...ctx.waiters]) {
    if (waiter.deadlockCheckAt === null || !ctx.waiters.includes(waiter)) continue;
    if (at >= waiter.deadlockCheckAt) {
      waiter.deadlockCheckAt = null;
      const cycle = deadlockCycle(ctx, waiter);
      if (cycle) await breakDeadlock(ctx, cycle);
    } else next = Math.min(next, waiter.deadlockCheckAt);
  }
  return next;
}

/**
 * The waits that lead from `w` back to its own session, `w` first, when its statement
 * is part of a deadlock; null when it is not.
 */
function deadlockCycle(ctx: LayerContext, w: Waiter): Waiter[] | null {
  const cycle = [w];
  for (let holder = w.s.blockedBy; holder && cycle.every((c) => c.held());) {
    if (holder === w.s) return cycle;
    const next = ctx.waiters.find((x) => x.s === holder);
    if (!next || cycle.includes(next)) return null;
    cycle.push(next);
    holder = next.s.blockedBy;
  }
  return null;
}

/**
 * Ends a deadlock as the server whose check found it does (DeadLockReport in
 * src/backend/storage/lmgr/deadlock.c): the statement of the session that checked
 * fails with 40P01, naming every wait in the cycle.
 */
export async function breakDeadlock(ctx: LayerContext, cycle: Waiter[]): Promise<void> {
  const detail = cycle
    .map(
      (w, i) =>
        `Process ${w.s.pid} waits for ${w.lock}; blocked by process ${cycle[(i + 1) % cycle.length]!.s.pid}.`,
    )
    .join('\n');
  await failWait(ctx, cycle[0]!.s, {
    ok: false,
    error: {
      code: '40P01',
      severity: 'ERROR',
      message: 'deadlock detected',
      detail,
      hint: 'See server log for query details.',
    },
    partial: { results: [], notices: [] },
  });
}
