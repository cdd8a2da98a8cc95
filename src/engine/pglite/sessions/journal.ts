// The layer's calls, run one at a time and journaled, and the replay that makes them again.
import type { SessionOptions } from '../../types';
import { callBytes } from '../messages';
import { disarmBackendTimers } from './backend-timers';
import { checkpointDue, noteJournaled, takeCheckpoint } from './checkpoint';
import { get, type LayerContext } from './context';
import type { Outcome, QueryReply } from './replies';
import { closeSession } from './ending';
import { query } from './run';
import { openSession } from './slots';
import { withdraw } from './stop';
import { expire, mayFallDue } from './timers';
import { cancelWait } from './waiting';
import { beginCall, endCall } from './watchdog';

/** One call to the layer as its journal keeps it: enough to make it again, in order. */
export type LayerCall =
  | { method: 'openSession'; args: [options?: SessionOptions] }
  | { method: 'query'; args: [id: number, sql: string, params?: unknown[]] }
  | { method: 'closeSession'; args: [id: number] }
  | { method: 'cancel'; args: [id: number] }
  /** A query the reader stopped before it started: answered 57014 (stop.ts, `withdraw`). */
  | { method: 'withdraw'; args: [id: number, sql: string] }
  /** A timeout's timer fired. */
  | { method: 'tick'; args: [] };

/**
 * A call that changed the layer's state, with the time it ran at and the caller's tag
 * (the worker's callId). Replaying the journal on a fresh backend from the same data
 * directory rebuilds every session, transaction and parked XID, because one backend fed
 * the same statements in the same order answers the same (see `replay`).
 */
export interface JournalEntry {
  call: LayerCall;
  /** When it ran, in milliseconds since the epoch. */
  at: number;
  tag?: number;
}

/**
 * Runs `fn` after every call before it, once what is due by its time has been done. A
 * call that changes state is journaled once it has run, with its time and `tag`; `at`
 * replays a recorded time.
 */
export function serial<T>(
  ctx: LayerContext,
  fn: () => Promise<T>,
  call?: LayerCall,
  tag?: number,
  at?: Date,
): Promise<T> {
  const run = async () => {
    ctx.now = at ?? ctx.clock();
    beginCall(ctx, call);
    try {
      if (mayFallDue(ctx)) await expire(ctx);
      else clearTimeout(ctx.timer);
      return await fn();
    } finally {
      if (ctx.loaded?.armsTimers) await disarmBackendTimers(ctx);
      endCall(ctx);
      if (call && !ctx.replaying && ctx.watch) {
        ctx.watch.journal({ call, at: ctx.now.getTime(), tag });
        noteJournaled(ctx, callBytes(call));
        checkpointWhenDue(ctx);
      }
    }
  };
  const next = ctx.queue.then(run, run);
  ctx.queue = next.catch(() => {});
  return next;
}

/** Layers with a checkpoint queued. */
const checkpointQueued = new WeakSet<LayerContext>();
/** How long the layer must go without a call for a moment to count as quiet. */
const quietMs = 50;
/** Per layer: when its last journaled call ended (Date.now()). */
const lastCallAt = new WeakMap<LayerContext, number>();
/** Layers with a timer waiting for a quiet moment. */
const waitingForQuiet = new WeakSet<LayerContext>();

/**
 * After a journaled call: queues a checkpoint if one is due at once, or waits for a quiet
 * moment (`quietMs` with no further call) if one is due then. A busy run
 * of calls (a counter at 8×, a loop of statements) so pays for a dump only once the
 * journal is long, and a reader at the console never waits behind one they did not cause.
 * A call only notes its time: one timer looks for the quiet moment (`waitForQuiet`),
 * rather than each call setting a timer of its own and clearing the last one's.
 */
function checkpointWhenDue(ctx: LayerContext): void {
  lastCallAt.set(ctx, Date.now());
  const due = checkpointDue(ctx);
  if (due === 'now') checkpointSoon(ctx);
  else if (due === 'quiet' && !waitingForQuiet.has(ctx)) waitForQuiet(ctx, quietMs);
}

/** In `ms`, takes a checkpoint if the layer has had no call for `quietMs`, else waits on. */
function waitForQuiet(ctx: LayerContext, ms: number): void {
  waitingForQuiet.add(ctx);
  const timer = setTimeout(() => {
    const idle = Date.now() - (lastCallAt.get(ctx) ?? 0);
    if (idle < quietMs) return waitForQuiet(ctx, quietMs - idle);
    waitingForQuiet.delete(ctx);
    if (checkpointDue(ctx)) checkpointSoon(ctx);
  }, ms);
  (timer as { unref?: () => void }).unref?.();
}

/**
 * Queues a checkpoint (checkpoint.ts) after the calls queued now. It runs as a tick: what
 * its start did to the sessions (a timeout due, say) is journaled like a tick's, in the
 * journal that follows the checkpoint or, when none could be taken, in the one before.
 */
function checkpointSoon(ctx: LayerContext): void {
  if (checkpointQueued.has(ctx)) return;
  checkpointQueued.add(ctx);
  const taking = serial(
    ctx,
    async () => {
      const checkpoint = await takeCheckpoint(ctx);
      if (checkpoint) ctx.watch?.checkpoint?.(checkpoint);
    },
    { method: 'tick', args: [] },
  );
  void taking.finally(() => checkpointQueued.delete(ctx)).catch(() => {});
}

/** Makes one journaled call, now (`at` undefined) or again at its recorded time. */
export function dispatch(
  ctx: LayerContext,
  call: LayerCall,
  tag?: number,
  at?: Date,
): Promise<unknown> {
  const journaled = <T>(fn: () => Promise<T>) => serial(ctx, fn, call, tag, at);
  switch (call.method) {
    case 'openSession':
      return journaled(() => openSession(ctx, call.args[0] ?? {}));
    case 'query':
      return answer(
        ctx,
        journaled(() => query(ctx, ...call.args)),
      );
    case 'closeSession':
      return journaled(() => closeSession(ctx, call.args[0]));
    case 'cancel':
      return journaled(() => cancelWait(ctx, get(ctx, call.args[0])));
    case 'withdraw':
      return journaled(() => withdraw(ctx, ...call.args));
    case 'tick':
      return journaled(async () => {});
  }
}

/**
 * A query's answer: now, or when its statement's wait ends (after later calls have run),
 * telling the watch that the call is left waiting.
 */
async function answer(ctx: LayerContext, outcome: Promise<Outcome>): Promise<QueryReply> {
  const settled = await outcome;
  if (!('wait' in settled)) return settled;
  if (!ctx.replaying) ctx.watch?.waiting?.();
  return settled.wait;
}

/**
 * Makes a journal's calls again, in order and at their recorded times, with nothing
 * journaled or watched. A replayed call that is still waiting at the end answers
 * through `answer` with its tag when it completes, as the original would have.
 */
export async function replay(
  ctx: LayerContext,
  entries: JournalEntry[],
  answer: (tag: number, value: unknown) => void,
): Promise<void> {
  ctx.replaying = true;
  try {
    for (const { call, at, tag } of entries) {
      const done = dispatch(ctx, call, tag, new Date(at));
      if (tag !== undefined)
        done.then(
          (value) => answer(tag, value),
          () => {},
        );
    }
    await serial(ctx, async () => {});
  } finally {
    ctx.replaying = false;
  }
  // Timers were not set while replaying; a tick sets them for what is still open.
  void dispatch(ctx, { method: 'tick', args: [] });
}
