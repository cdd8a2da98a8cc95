// The bank-counter simulation: workers, API processes, a sweeper, site traffic and the
// clerk, each acting at simulated moments on real sessions of one engine. Everything it
// does is awaited in turn, in an order fixed by the seed, the settings and the readers'
// commands, so a run can be replayed: a checkpoint is those three and a moment.
//
// Driving it: a real-time loop asks `ticksOwed(sim.state.clock, elapsedMs, carry)`
// (clock.ts) how many `step()`s are due at the chosen speed, then calls `observe()` for
// the engine's own account (pg_stat_activity, dead tuples, jobs) and draws `view()`.
// The event log (`events()`) is what happened; `view()` is how it stands.
import {
  EngineGoneError,
  NotExpressibleError,
  PgError,
  type Engine,
  type Session,
} from '../engine/types';
import { takeDue, schedule } from './agenda';
import {
  apiName,
  apiSeated,
  newApi,
  requestEnds,
  restartUploads,
  stopApi,
  uploadArrives,
} from './api';
import { clampSpeed, createClock } from './clock';
import { clerkSeat, fileLedgers } from './clerk';
import type { SimContext } from './context';
import type { ScriptCommand, SimEvent } from './events';
import { observe, type Observation } from './observe';
import { randomStream } from './random';
import { createSchema } from './schema';
import { openSeat, retryAtDoor } from './seats';
import { clampSetting, normaliseSettings, type CounterSettings } from './settings';
import type { Action, ScriptEntry, SimState } from './state';
import { sweep, sweeperSeat } from './sweeper';
import { bump, trafficSeat } from './traffic';
import { counterView, type CounterView } from './view';
import {
  continueSeating,
  finish,
  heartbeat,
  kill,
  newWorker,
  poll,
  recover,
  requestStart,
  requestStop,
  restart,
  workerName,
} from './worker';

/** "This moment", as plain data: replaying the script from the seed comes back to it. */
export interface Checkpoint {
  version: 1;
  settings: CounterSettings;
  script: ScriptEntry[];
  atMs: number;
  speed: number;
  paused: boolean;
}

/** Told how far a replay has come, e.g. to draw a progress bar; may pause the replay. */
export type Progress = (atMs: number, targetMs: number) => void | Promise<void>;

/**
 * Events the log keeps: the most recent ones. An hour at 8× makes hundreds of thousands;
 * the picture and its words need only the last few, and the rest are counted.
 */
export const eventLogLimit = 5000;

/** A replay to a moment was cancelled (its `signal` aborted) before it got there. */
export class ReplayCancelled extends Error {
  constructor() {
    super('The replay to the moment was cancelled.');
    this.name = 'ReplayCancelled';
  }
}

export interface CounterSim {
  /** The settings the run started with, after `normaliseSettings`. */
  readonly settings: CounterSettings;
  /** What was wrong with the settings given, one sentence each. */
  readonly problems: string[];
  /** The live state (plain data); read it, do not change it. */
  readonly state: SimState;
  /** The events so far: the last `eventLogLimit` of them, or up to twice as many. */
  events(): readonly SimEvent[];
  /** How many older events the log no longer keeps. */
  eventsDropped(): number;
  /** Moves the clock one tick, running what falls due; returns the tick's events. */
  step(): Promise<SimEvent[]>;
  /** Moves the clock by `ms` (whole ticks); returns the events. */
  advance(ms: number): Promise<SimEvent[]>;
  /**
   * Moves the clock to `atMs` at full speed, reporting progress after each tick; throws
   * ReplayCancelled when `signal` aborts first.
   */
  runUntil(atMs: number, onProgress?: Progress, signal?: AbortSignal): Promise<void>;
  pause(): void;
  resume(): void;
  /** Sets the speed a real-time driver should run at (clamped to 0.25×–8×). */
  setSpeed(speed: number): void;
  /** Ends `worker`'s sessions mid-job, as a crash does; it restarts after `restartMs`. */
  killWorker(worker: string): Promise<void>;
  /** Starts or stops workers (stopping ones finish their job first). */
  setWorkers(count: number): Promise<void>;
  setApi(count: number): Promise<void>;
  setUploadRate(perSecond: number): Promise<void>;
  /** Reads pg_stat_activity, dead tuples and job counts from the engine now. */
  observe(): Promise<Observation>;
  /** The picture's view, with the last observation's states and XIDs. */
  view(): CounterView;
  checkpoint(): Checkpoint;
  /** Closes every session the sim opened. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Called with every event as it happens. */
  onEvent?: (event: SimEvent) => void;
  /** Commands to replay at their moments (from a checkpoint). */
  script?: ScriptEntry[];
  /** Ends a replay early (see `restoreCounterSim`). */
  signal?: AbortSignal;
  /** Events the log keeps (default `eventLogLimit`); tests and the soak take fewer. */
  eventLogLimit?: number;
}

/**
 * Creates the tables, seats the clerk, the sweeper, site traffic and the workers at
 * time 0, and returns the sim there; time moves only when it is stepped.
 */
export async function startCounterSim(
  engine: Engine,
  input: unknown,
  options: StartOptions = {},
): Promise<CounterSim> {
  const { settings, problems } = normaliseSettings(input);
  const state: SimState = {
    settings,
    clock: createClock(settings.tickMs, settings.speed),
    random: {},
    agenda: [],
    nextSeq: 0,
    seats: [],
    door: [],
    workers: [],
    apis: [],
    uploadStream: 0,
    uploadRate: settings.uploadRate,
    nextRequest: 1,
    nextApi: 0,
    trafficTicks: 0,
    clerk: [],
    script: [...(options.script ?? [])].sort((a, b) => a.atMs - b.atMs),
    scriptDone: 0,
    halted: null,
  };
  const log: SimEvent[] = [];
  /** Events dropped from the front of `log`: an event's place in the run is `dropped + i`. */
  let dropped = 0;
  const keep = options.eventLogLimit ?? eventLogLimit;
  const sessions = new Map<string, Session>();
  const ctx: SimContext = {
    engine,
    state,
    sessions,
    emit(body) {
      const event = { ...body, t: state.clock.nowMs } as SimEvent;
      log.push(event);
      // Trimmed in batches, so that keeping the last `keep` costs little per event.
      if (log.length >= 2 * keep) {
        const cut = log.length - keep;
        log.splice(0, cut);
        dropped += cut;
      }
      options.onEvent?.(event);
    },
    schedule: (atMs, action) => schedule(state, atMs, action),
    random: (label) => randomStream(state.random, settings.seed, label),
  };
  let lastObservation: Observation | null = null;

  // Every engine call the sim makes runs inside `exclusive`, one at a time.
  let queue: Promise<unknown> = Promise.resolve();
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  }

  const setup = await engine.openSession({ applicationName: 'setup', role: 'ordinary' });
  try {
    await createSchema(setup, settings.initialJobs);
  } finally {
    await setup.close();
  }

  await openSeat(ctx, clerkSeat);
  await openSeat(ctx, sweeperSeat);
  await openSeat(ctx, trafficSeat);
  await scaleWorkers(settings.workers);
  await scaleApi(settings.api);
  ctx.schedule(settings.tickMs, { kind: 'traffic' });
  ctx.schedule(settings.sweepEveryMs, { kind: 'sweep' });
  ctx.schedule(settings.vacuumEveryMs, { kind: 'vacuum' });
  await applyDueScript();

  async function scaleWorkers(count: number): Promise<void> {
    for (let i = 1; i <= Math.max(count, state.workers.length); i++) {
      let w = state.workers[i - 1];
      if (i > count) {
        if (w) await requestStop(ctx, w);
      } else if (!w) {
        w = newWorker(workerName(i));
        state.workers.push(w);
        await continueSeating(ctx, w);
      } else await requestStart(ctx, w);
    }
  }

  async function scaleApi(count: number): Promise<void> {
    for (let i = 1; i <= Math.max(count, state.apis.length); i++) {
      const api = state.apis[i - 1];
      if (i > count) {
        if (api) await stopApi(ctx, api);
      } else if (!api) state.apis.push(newApi(apiName(i)));
      else api.status = 'running';
    }
    restartUploads(ctx);
  }

  async function apply(command: ScriptCommand): Promise<void> {
    ctx.emit({ type: 'command', command });
    switch (command.kind) {
      case 'kill-worker': {
        const w = state.workers.find((x) => x.name === command.worker);
        if (w) await guarded(command.worker, () => kill(ctx, w));
        return;
      }
      case 'workers':
        return scaleWorkers(command.count);
      case 'api':
        return scaleApi(command.count);
      case 'upload-rate':
        state.uploadRate = command.perSecond;
        restartUploads(ctx);
        return;
    }
  }

  async function applyDueScript(): Promise<void> {
    while (state.scriptDone < state.script.length) {
      const entry = state.script[state.scriptDone]!;
      if (entry.atMs > state.clock.nowMs) return;
      state.scriptDone++;
      await apply(entry.command);
    }
  }

  async function command(command: ScriptCommand): Promise<void> {
    return exclusive(async () => {
      state.script.push({ atMs: state.clock.nowMs, command });
      await applyDueScript();
    });
  }

  /** Runs one due action, turning Postgres's refusals into events. */
  async function perform(action: Action): Promise<void> {
    const worker =
      'worker' in action ? state.workers.find((w) => w.name === action.worker) : undefined;
    if (worker && 'life' in action && action.life !== worker.life) return; // from a life that ended
    switch (action.kind) {
      case 'worker-poll':
        return guarded(worker!.name, () => poll(ctx, worker!), worker);
      case 'worker-heartbeat':
        return guarded(worker!.name, () => heartbeat(ctx, worker!, action.jobId), worker);
      case 'worker-finish':
        return guarded(worker!.name, () => finish(ctx, worker!, action.jobId), worker);
      case 'worker-restart':
        return guarded(worker!.name, () => restart(ctx, worker!), worker);
      case 'door-retry':
        return guarded(action.seat, async () => {
          const seated = await retryAtDoor(ctx, action.seat);
          if (!seated) return;
          const { actor, purpose, name } = seated.spec;
          const w = state.workers.find((x) => x.name === actor);
          if (w) await continueSeating(ctx, w);
          const api = purpose === 'pool' ? state.apis.find((a) => a.name === actor) : undefined;
          if (api) await apiSeated(ctx, api, name);
        });
      case 'upload-arrives':
        return guarded('uploads', () => uploadArrives(ctx, action.stream));
      case 'request-ends': {
        const api = state.apis.find((a) => a.name === action.api);
        if (api) await guarded(api.name, () => requestEnds(ctx, api, action.seat));
        return;
      }
      case 'sweep':
        return guarded(sweeperSeat.name, () => sweep(ctx), undefined, sweeperSeat.name);
      case 'vacuum':
        return guarded(clerkSeat.name, () => fileLedgers(ctx));
      case 'traffic':
        return guarded(trafficSeat.name, () => bump(ctx));
    }
  }

  /**
   * Runs `fn` for `actor`. A PgError or a NotExpressibleError becomes an event and the
   * actor recovers (a worker ends its claim and polls later; the sweeper rolls back);
   * EngineGoneError halts the sim. Anything else is a bug and is thrown.
   */
  async function guarded(
    actor: string,
    fn: () => Promise<void>,
    worker?: SimState['workers'][number],
    rollbackSeat?: string,
  ): Promise<void> {
    try {
      await fn();
    } catch (error) {
      if (error instanceof EngineGoneError) {
        state.halted = error.message;
        ctx.emit({ type: 'halted', message: error.message });
        throw error;
      }
      if (error instanceof PgError) {
        ctx.emit({ type: 'error', actor, code: error.code, message: error.message });
      } else if (error instanceof NotExpressibleError) {
        ctx.emit({ type: 'not-expressible', actor, message: error.message });
      } else throw error;
      if (worker) await recover(ctx, worker);
      const seat = rollbackSeat ? sessions.get(rollbackSeat) : undefined;
      if (seat) await seat.query('ROLLBACK').catch(() => undefined);
    }
  }

  async function tick(): Promise<void> {
    if (state.halted) throw new EngineGoneError(state.halted);
    await applyDueScript();
    const end = state.clock.nowMs + state.clock.tickMs;
    for (let item = takeDue(state, end); item; item = takeDue(state, end)) {
      state.clock.nowMs = Math.max(state.clock.nowMs, item.atMs);
      await perform(item.action);
    }
    state.clock.nowMs = end;
  }

  /** The events since `from` (a place in the run, as `dropped + log.length` gives it). */
  const since = (from: number) => log.slice(Math.max(0, from - dropped));
  const sim: CounterSim = {
    settings,
    problems,
    state,
    events: () => log,
    eventsDropped: () => dropped,
    step: () =>
      exclusive(async () => {
        const from = dropped + log.length;
        await tick();
        return since(from);
      }),
    advance: (ms) =>
      exclusive(async () => {
        const from = dropped + log.length;
        const target = state.clock.nowMs + Math.max(0, ms);
        while (state.clock.nowMs < target) await tick();
        return since(from);
      }),
    runUntil: (atMs, onProgress, signal) =>
      exclusive(async () => {
        while (state.clock.nowMs < atMs) {
          if (signal?.aborted) throw new ReplayCancelled();
          await tick();
          await onProgress?.(state.clock.nowMs, atMs);
        }
        await applyDueScript();
      }),
    pause() {
      state.clock.paused = true;
    },
    resume() {
      state.clock.paused = false;
    },
    setSpeed(speed) {
      state.clock.speed = clampSpeed(speed);
    },
    async killWorker(worker) {
      if (!state.workers.some((w) => w.name === worker)) {
        throw new Error(
          `no worker named ${worker} (workers are worker-01 to ${workerName(state.workers.length)})`,
        );
      }
      await command({ kind: 'kill-worker', worker });
    },
    setWorkers: (count) => command({ kind: 'workers', count: clampSetting('workers', count) }),
    setApi: (count) => command({ kind: 'api', count: clampSetting('api', count) }),
    setUploadRate: (perSecond) =>
      command({ kind: 'upload-rate', perSecond: clampSetting('uploadRate', perSecond) }),
    observe: () =>
      exclusive(async () => {
        lastObservation = await observe(ctx);
        return lastObservation;
      }),
    view: () => counterView(state, lastObservation),
    checkpoint: () => ({
      version: 1,
      settings: { ...settings },
      script: state.script.map((e) => ({ atMs: e.atMs, command: { ...e.command } })),
      atMs: state.clock.nowMs,
      speed: state.clock.speed,
      paused: state.clock.paused,
    }),
    stop: () =>
      exclusive(async () => {
        state.agenda = [];
        state.door = [];
        for (const seat of [...state.seats].reverse()) {
          const session = sessions.get(seat.name);
          sessions.delete(seat.name);
          await session?.close().catch(() => undefined);
        }
        state.seats = [];
      }),
  };
  return sim;
}

/**
 * Comes back to a checkpoint's moment on a fresh engine: starts from its settings and
 * replays its script at full speed up to its moment. When `options.signal` aborts first,
 * the sim's sessions are closed and it throws ReplayCancelled, so nothing of it is left
 * on the engine.
 */
export async function restoreCounterSim(
  engine: Engine,
  checkpoint: Checkpoint,
  onProgress?: Progress,
  options: Omit<StartOptions, 'script'> = {},
): Promise<CounterSim> {
  if (checkpoint.version !== 1)
    throw new Error(`unknown checkpoint version ${String(checkpoint.version)}`);
  const sim = await startCounterSim(engine, checkpoint.settings, {
    ...options,
    script: checkpoint.script,
  });
  try {
    if (options.signal?.aborted) throw new ReplayCancelled();
    await sim.runUntil(checkpoint.atMs, onProgress, options.signal);
  } catch (error) {
    await sim.stop();
    throw error;
  }
  sim.setSpeed(checkpoint.speed);
  if (checkpoint.paused) sim.pause();
  return sim;
}
