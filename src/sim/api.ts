// API processes: uploads arrive at a seeded rate (exponential gaps), each to the next
// running process in turn. A request checks a connection out of its process's pool,
// writes the upload row and its job row in one transaction, holds the connection for
// the rest of the request, and checks it in. A burst beyond the pool opens overflow
// connections; beyond those, requests wait for a checkin.
import { PgError } from '../engine/types';
import { timestampAt } from './clock';
import { now, type SimContext } from './context';
import { checkin, checkout, closeIdle, joinPool } from './pool';
import { enqueueSql } from './queries';
import { leaveDoor, sessionOf } from './seats';
import type { ApiState } from './state';

/** `api-1`: the process's name and its connections' application_name. */
export function apiName(index: number): string {
  return `api-${index}`;
}

export function newApi(name: string): ApiState {
  return { name, status: 'running', pool: [], opening: 0, waiting: [], nextConnection: 0 };
}

/**
 * Starts a new stream of arrivals at the current rate (after a change of rate or of the
 * number of processes); arrivals of the old stream are dropped.
 */
export function restartUploads(ctx: SimContext): void {
  const stream = ++ctx.state.uploadStream;
  scheduleArrival(ctx, stream);
}

function scheduleArrival(ctx: SimContext, stream: number): void {
  const rate = ctx.state.uploadRate;
  if (rate <= 0 || !ctx.state.apis.some((a) => a.status === 'running')) return;
  const gap = ctx.random('uploads').exponentialMs(1000 / rate);
  ctx.schedule(now(ctx) + gap, { kind: 'upload-arrives', stream });
}

/** An upload arrives: the next running process takes it. */
export async function uploadArrives(ctx: SimContext, stream: number): Promise<void> {
  if (stream !== ctx.state.uploadStream) return;
  scheduleArrival(ctx, stream);
  const running = ctx.state.apis.filter((a) => a.status === 'running');
  if (running.length === 0) return;
  const api = running[ctx.state.nextApi++ % running.length]!;
  const request = ctx.state.nextRequest++;
  const seat = await checkout(ctx, api, request);
  if (seat) await handle(ctx, api, seat, request);
  else {
    api.waiting.push(request);
    ctx.emit({ type: 'pool-waiting', api: api.name, request });
  }
}

/** The request is done with its connection: check it in, and serve a waiting request. */
export async function requestEnds(ctx: SimContext, api: ApiState, seat: string): Promise<void> {
  await checkin(ctx, api, seat);
  await serveWaiting(ctx, api);
  if (api.status === 'stopping' && api.pool.length === 0) api.status = 'stopped';
}

/** A pool connection that waited at the door got its seat. */
export async function apiSeated(ctx: SimContext, api: ApiState, seat: string): Promise<void> {
  await joinPool(ctx, api, seat);
  await serveWaiting(ctx, api);
}

/** The process count went down: stop taking uploads, close idle connections. */
export async function stopApi(ctx: SimContext, api: ApiState): Promise<void> {
  if (api.status !== 'running') return;
  api.status = 'stopping';
  api.waiting = [];
  api.opening = 0;
  leaveDoor(ctx, api.name);
  await closeIdle(ctx, api);
  if (api.pool.length === 0) api.status = 'stopped';
}

/** Writes the upload and its job in one transaction, then holds the connection a while. */
async function handle(
  ctx: SimContext,
  api: ApiState,
  seat: string,
  request: number,
): Promise<void> {
  const t = now(ctx);
  const session = sessionOf(ctx, seat);
  try {
    const { results } = await session.query(enqueueSql(`upload-${request}`, timestampAt(t)));
    ctx.emit({
      type: 'upload-accepted',
      api: api.name,
      request,
      uploadId: Number(results[1]?.rows[0]?.[0]),
      jobId: Number(results[2]?.rows[0]?.[0]),
    });
  } catch (error) {
    if (!(error instanceof PgError)) throw error;
    ctx.emit({
      type: 'upload-failed',
      api: api.name,
      request,
      code: error.code,
      message: error.message,
    });
    // The one-string transaction stopped at the error, inside its BEGIN.
    await session.query('ROLLBACK').catch(() => undefined);
  }
  const { requestMinMs, requestMaxMs } = ctx.state.settings;
  const holdMs = ctx.random(api.name).int(requestMinMs, requestMaxMs);
  ctx.schedule(t + holdMs, { kind: 'request-ends', api: api.name, seat, request });
}

async function serveWaiting(ctx: SimContext, api: ApiState): Promise<void> {
  while (api.status === 'running' && api.waiting.length > 0) {
    const request = api.waiting[0]!;
    const seat = await checkout(ctx, api, request);
    if (!seat) return;
    api.waiting.shift();
    await handle(ctx, api, seat, request);
  }
}
