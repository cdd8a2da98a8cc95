// A worker process: claims a job, works on it for a seeded while, records the result.
// Its first connection runs the claim loop; a second sends heartbeats (claim-close only;
// with one connection the claim loop's sends them); a third stands for the handler's own
// connection, opened at start and held, as an ORM session often is. In the hold shape the claim's transaction stays open, with its
// XID, for the whole job (idle in transaction); in claim-close the claim commits at once
// and the worker holds nothing while it works.
import { timestampAt } from './clock';
import { now, type SimContext } from './context';
import { claimSql, heartbeatSql, holdClaimSql, holdRecordSql, recordSql } from './queries';
import { closeSeat, isSeated, leaveDoor, markTransaction, openSeat, sessionOf } from './seats';
import type { Purpose, SeatSpec, WorkerState } from './state';

/** `worker-07`: the process's name and its connections' application_name. */
export function workerName(index: number): string {
  return `worker-${String(index).padStart(2, '0')}`;
}

const purposes: Purpose[] = ['claim', 'heartbeat', 'handler'];

/** The seats a worker opens, in order: claim loop, heartbeat, handler. */
export function workerSeats(worker: string, connections: number): SeatSpec[] {
  return purposes.slice(0, connections).map((purpose) => ({
    name: `${worker}/${purpose}`,
    actor: worker,
    purpose,
    role: 'ordinary',
  }));
}

/** A worker that has not started yet. */
export function newWorker(name: string): WorkerState {
  return {
    name,
    status: 'seating',
    life: 0,
    jobId: null,
    busyUntilMs: null,
    inTransaction: false,
    stopping: false,
  };
}

/**
 * Opens the worker's seats in order, stopping at one refused (it waits at the door, and
 * this is called again when it sits down); once all are open the worker starts polling.
 */
export async function continueSeating(ctx: SimContext, w: WorkerState): Promise<void> {
  if (w.status !== 'seating') return;
  for (const spec of workerSeats(w.name, ctx.state.settings.connections)) {
    if (isSeated(ctx, spec.name)) continue;
    if (ctx.state.door.some((d) => d.name === spec.name)) return;
    if (!(await openSeat(ctx, spec))) return;
  }
  w.status = 'idle';
  ctx.emit({ type: 'worker-started', worker: w.name });
  // Workers started together would all poll in the same ms; a seeded offset spreads them.
  const offset = ctx.random(w.name).int(0, ctx.state.settings.pollMs - 1);
  ctx.schedule(now(ctx) + offset, { kind: 'worker-poll', worker: w.name, life: w.life });
}

/** Asks for a job; with one, works on it until a seeded moment, else polls again later. */
export async function poll(ctx: SimContext, w: WorkerState): Promise<void> {
  if (w.status !== 'idle') return;
  if (w.stopping) return stopNow(ctx, w);
  const { settings } = ctx.state;
  const t = now(ctx);
  const at = timestampAt(t);
  const claim = sessionOf(ctx, `${w.name}/claim`);
  let row: (string | null)[] | undefined;
  if (settings.shape === 'hold') {
    const claimed = await claim.query(holdClaimSql(w.name, at));
    row = claimed.results[1]?.rows[0];
    if (row) {
      w.inTransaction = true;
      markTransaction(ctx, `${w.name}/claim`, t);
    } else {
      await claim.query('ROLLBACK');
    }
  } else {
    row = (await claim.query(claimSql, [w.name, at])).results[0]?.rows[0];
  }
  if (!row) {
    ctx.schedule(t + settings.pollMs, { kind: 'worker-poll', worker: w.name, life: w.life });
    return;
  }
  const jobId = Number(row[0]);
  const workMs = ctx.random(w.name).int(settings.workMinMs, settings.workMaxMs);
  w.status = 'working';
  w.jobId = jobId;
  w.busyUntilMs = t + workMs;
  ctx.emit({ type: 'job-claimed', worker: w.name, jobId, kind: row[1] ?? '' });
  ctx.schedule(t + workMs, { kind: 'worker-finish', worker: w.name, life: w.life, jobId });
  if (settings.shape === 'claim-close' && settings.heartbeatEveryMs < workMs) {
    ctx.schedule(t + settings.heartbeatEveryMs, {
      kind: 'worker-heartbeat',
      worker: w.name,
      life: w.life,
      jobId,
    });
  }
}

/** Claim-close shape: tells the sweeper the job is still being worked on. */
export async function heartbeat(ctx: SimContext, w: WorkerState, jobId: number): Promise<void> {
  if (w.status !== 'working' || w.jobId !== jobId) return;
  const { settings } = ctx.state;
  const t = now(ctx);
  const seat = settings.connections >= 2 ? `${w.name}/heartbeat` : `${w.name}/claim`;
  await sessionOf(ctx, seat).query(heartbeatSql, [timestampAt(t), jobId, w.name]);
  ctx.emit({ type: 'heartbeat', worker: w.name, jobId });
  const next = t + settings.heartbeatEveryMs;
  if (w.busyUntilMs !== null && next < w.busyUntilMs) {
    ctx.schedule(next, { kind: 'worker-heartbeat', worker: w.name, life: w.life, jobId });
  }
}

/** Records the finished job, then polls again at once (or stops, if asked to). */
export async function finish(ctx: SimContext, w: WorkerState, jobId: number): Promise<void> {
  if (w.status !== 'working' || w.jobId !== jobId) return;
  const claim = sessionOf(ctx, `${w.name}/claim`);
  let recorded: boolean;
  if (ctx.state.settings.shape === 'hold') {
    await claim.query('COMMIT');
    w.inTransaction = false;
    markTransaction(ctx, `${w.name}/claim`, null);
    recorded = (await claim.query(holdRecordSql(jobId, w.name))).results[0]?.rowCount === 1;
  } else {
    recorded = (await claim.query(recordSql, [jobId, w.name])).results[0]?.rowCount === 1;
  }
  ctx.emit({ type: recorded ? 'job-recorded' : 'record-lost', worker: w.name, jobId });
  w.status = 'idle';
  w.jobId = null;
  w.busyUntilMs = null;
  if (w.stopping) return stopNow(ctx, w);
  ctx.schedule(now(ctx), { kind: 'worker-poll', worker: w.name, life: w.life });
}

/**
 * Ends the worker's sessions as a crash does on a server: an open claim rolls back. Its
 * supervisor starts it again after `restartMs`.
 */
export async function kill(ctx: SimContext, w: WorkerState): Promise<void> {
  if (w.status === 'down' || w.status === 'stopped') return;
  ctx.emit({
    type: 'worker-killed',
    worker: w.name,
    jobId: w.status === 'working' ? w.jobId : null,
  });
  await endLife(ctx, w, 'killed');
  if (w.stopping) {
    w.status = 'stopped';
    ctx.emit({ type: 'worker-stopped', worker: w.name });
    return;
  }
  w.status = 'down';
  ctx.schedule(now(ctx) + ctx.state.settings.restartMs, {
    kind: 'worker-restart',
    worker: w.name,
    life: w.life,
  });
}

/** The supervisor starts a killed worker again: new sessions, new pids. */
export async function restart(ctx: SimContext, w: WorkerState): Promise<void> {
  if (w.status !== 'down') return;
  w.status = 'seating';
  await continueSeating(ctx, w);
}

/** The worker count went down: stop now if idle, else after recording the current job. */
export async function requestStop(ctx: SimContext, w: WorkerState): Promise<void> {
  w.stopping = true;
  if (w.status === 'working') return;
  if (w.status === 'down') {
    w.life++;
    w.status = 'stopped';
    ctx.emit({ type: 'worker-stopped', worker: w.name });
    return;
  }
  if (w.status !== 'stopped') await stopNow(ctx, w);
}

/** The worker count went up again: a stopped or stopping worker comes back. */
export async function requestStart(ctx: SimContext, w: WorkerState): Promise<void> {
  w.stopping = false;
  if (w.status !== 'stopped') return;
  w.status = 'seating';
  await continueSeating(ctx, w);
}

/**
 * After an error in one of the worker's statements: ends an open claim (a failed
 * transaction cannot go on) and polls again later. The error itself is in the event log.
 */
export async function recover(ctx: SimContext, w: WorkerState): Promise<void> {
  if (w.inTransaction && isSeated(ctx, `${w.name}/claim`)) {
    await sessionOf(ctx, `${w.name}/claim`)
      .query('ROLLBACK')
      .catch(() => undefined);
  }
  w.inTransaction = false;
  markTransaction(ctx, `${w.name}/claim`, null);
  if (w.status === 'working' || w.status === 'idle') {
    w.status = 'idle';
    w.jobId = null;
    w.busyUntilMs = null;
    ctx.schedule(now(ctx) + ctx.state.settings.pollMs, {
      kind: 'worker-poll',
      worker: w.name,
      life: w.life,
    });
  }
}

async function stopNow(ctx: SimContext, w: WorkerState): Promise<void> {
  await endLife(ctx, w, 'stopped');
  w.status = 'stopped';
  ctx.emit({ type: 'worker-stopped', worker: w.name });
}

/** Closes the worker's seats and leaves the door; actions of this life are dropped. */
async function endLife(ctx: SimContext, w: WorkerState, why: 'killed' | 'stopped'): Promise<void> {
  w.life++;
  w.jobId = null;
  w.busyUntilMs = null;
  w.inTransaction = false;
  leaveDoor(ctx, w.name);
  for (const spec of workerSeats(w.name, ctx.state.settings.connections)) {
    await closeSeat(ctx, spec.name, why);
  }
}
