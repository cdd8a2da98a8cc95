// Site traffic: the rest of a busy application. Every tick it bumps one counter row of
// `events` (in turn), and each bump leaves a dead tuple, so the clerk always has filing
// to do, on a table no worker ever touches.
import { timestampAt } from './clock';
import { now, type SimContext } from './context';
import { bumpSql } from './queries';
import { eventNames } from './schema';

export const trafficSeat = {
  name: 'site-traffic',
  actor: 'site-traffic',
  purpose: 'traffic',
  role: 'ordinary',
} as const;

/** One bump; the next is scheduled a tick later. */
export async function bump(ctx: SimContext): Promise<void> {
  const t = now(ctx);
  ctx.schedule(t + ctx.state.clock.tickMs, { kind: 'traffic' });
  const session = ctx.sessions.get(trafficSeat.name);
  if (!session) return;
  const id = (ctx.state.trafficTicks++ % eventNames.length) + 1;
  await session.query(bumpSql, [timestampAt(t), id]);
}
