// The sweeper: a superuser session that puts back a running job whose heartbeat is
// older than the limit, so that another worker can take it. It locks with SKIP LOCKED,
// so it never waits for a worker that still holds its row.
import { timestampAt } from './clock';
import { now, type SimContext } from './context';
import { sweepSql } from './queries';

export const sweeperSeat = {
  name: 'sweeper',
  actor: 'sweeper',
  purpose: 'sweeper',
  role: 'superuser',
} as const;

/** One sweep; the next is scheduled first, so an error does not end the sweeping. */
export async function sweep(ctx: SimContext): Promise<void> {
  const { settings } = ctx.state;
  const t = now(ctx);
  ctx.schedule(t + settings.sweepEveryMs, { kind: 'sweep' });
  const session = ctx.sessions.get(sweeperSeat.name);
  if (!session) return; // still at the door
  const before = timestampAt(t - settings.heartbeatLimitMs);
  const rows = (await session.query(sweepSql, [before])).results[0]?.rows ?? [];
  // RETURNING follows the plan's order; sorted, the event is the same on every engine.
  const jobIds = rows.map(([id]) => Number(id)).sort((a, b) => a - b);
  if (jobIds.length > 0) ctx.emit({ type: 'jobs-swept', jobIds });
}
