// An API process's connection pool, modelled on SQLAlchemy's QueuePool: it keeps up to
// `poolSize` idle connections, opens up to `maxOverflow` more in a burst, and closes an
// overflow connection when it is checked in while the pool already keeps enough.
// With `poolPrePing` every checkout first sends `SELECT 1`, and a connection that fails
// it is thrown away and replaced, as `pool_pre_ping` does. Connections are real sessions.
import { PgError } from '../engine/types';
import type { SimContext } from './context';
import { closeSeat, openSeat, sessionOf } from './seats';
import type { ApiState, SeatSpec } from './state';

/** `api-1/pool-3`: the third connection api-1's pool opened. */
function connectionSpec(api: ApiState, n: number): SeatSpec {
  return { name: `${api.name}/pool-${n}`, actor: api.name, purpose: 'pool', role: 'ordinary' };
}

/**
 * Hands `request` a connection: an idle one, else a new one while the pool may grow.
 * Null when the request must wait: the pool is at its limit, or the new connection was
 * refused a seat and waits at the door.
 */
export async function checkout(
  ctx: SimContext,
  api: ApiState,
  request: number,
): Promise<string | null> {
  const { poolSize, maxOverflow, poolPrePing } = ctx.state.settings;
  for (let idle = idleOf(api); idle; idle = idleOf(api)) {
    idle.request = request;
    if (!poolPrePing || (await ping(ctx, idle.seat)))
      return checkedOut(ctx, api, idle.seat, request);
    api.pool.splice(api.pool.indexOf(idle), 1);
    await closeSeat(ctx, idle.seat, 'pre-ping').catch(() => undefined);
  }
  if (api.pool.length + api.opening >= poolSize + maxOverflow) return null;
  const spec = connectionSpec(api, ++api.nextConnection);
  if (!(await openSeat(ctx, spec))) {
    api.opening++;
    return null;
  }
  api.pool.push({ seat: spec.name, request });
  return checkedOut(ctx, api, spec.name, request);
}

/**
 * Returns `seat` to the pool: kept idle while no more than `poolSize` are idle, else
 * closed (an overflow connection); closed too when the process is stopping.
 */
export async function checkin(ctx: SimContext, api: ApiState, seat: string): Promise<void> {
  const connection = api.pool.find((c) => c.seat === seat);
  if (!connection) return;
  ctx.emit({ type: 'pool-checkin', api: api.name, seat, request: connection.request ?? -1 });
  connection.request = null;
  await settle(ctx, api, seat);
}

/** A connection that was refused at first got its seat: it joins the pool idle. */
export async function joinPool(ctx: SimContext, api: ApiState, seat: string): Promise<void> {
  api.opening = Math.max(0, api.opening - 1);
  api.pool.push({ seat, request: null });
  await settle(ctx, api, seat);
}

/** Closes the process's idle connections (it is stopping). */
export async function closeIdle(ctx: SimContext, api: ApiState): Promise<void> {
  for (const c of api.pool.filter((p) => p.request === null)) {
    api.pool.splice(api.pool.indexOf(c), 1);
    await closeSeat(ctx, c.seat, 'stopped');
  }
}

/** Keeps idle `seat` or closes it, by the pool's rule. */
async function settle(ctx: SimContext, api: ApiState, seat: string): Promise<void> {
  const idle = api.pool.filter((c) => c.request === null).length;
  if (api.status === 'running' && idle <= ctx.state.settings.poolSize) return;
  api.pool.splice(
    api.pool.findIndex((c) => c.seat === seat),
    1,
  );
  await closeSeat(ctx, seat, api.status === 'running' ? 'overflow' : 'stopped');
}

function idleOf(api: ApiState) {
  return api.pool.find((c) => c.request === null);
}

function checkedOut(ctx: SimContext, api: ApiState, seat: string, request: number): string {
  ctx.emit({ type: 'pool-checkout', api: api.name, seat, request });
  return seat;
}

/** `SELECT 1` on a pooled connection: false when the session is no longer usable. */
async function ping(ctx: SimContext, seat: string): Promise<boolean> {
  try {
    await sessionOf(ctx, seat).query('SELECT 1');
    return true;
  } catch (error) {
    if (error instanceof PgError) return false;
    throw error;
  }
}
