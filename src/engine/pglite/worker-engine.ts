// A PGlite engine in a worker, driven from the thread that holds the sessions' callers:
// the browser's main thread (client.ts) or a Node thread (node.ts). The worker serves the
// session layer (serve.ts); this side journals every finished call, and its watchdog
// replaces a worker that spins on a lock wait no check foresaw (see `replace`); Stop
// replaces one that is busy with the statement to stop. What differs between the two
// homes, how a worker starts and where its boot files come from, is a `WorkerHost`.
import type { PageEngine, StartProgress, StopOutcome } from '../page';
import type { SessionInfo } from '../session-info';
import { EngineGoneError, type EngineGoneKind, type Session, type SessionOptions } from '../types';
import { apiSession, type CallApi } from './api-engine';
import {
  callBytes,
  type BootArtifacts,
  type JournalNote,
  type Method,
  type Restore,
  type WorkerReply,
  type WorkerRequest,
} from './messages';
import type { CheckpointLimits, JournalEntry, LayerCheckpoint } from './sessions';

/**
 * How long a reader's statement may go unanswered, when it could meet a lock a parked
 * transaction holds, before the watchdog takes it for a lock wait. PGlite spins for good on
 * a lock wait (its lock_timeout never fires: src/engine/ARCHITECTURE.md, "Parking"), and
 * from outside a spinning worker a wait looks like long work, so this is a judgement, and
 * the session says it is one. A statement that could meet no such lock is never judged.
 */
export const watchdogMs = 2000;

/**
 * The watchdog's recoveries are bounded: past this many within `recoveryWindowMs`, with no
 * statement answered between them, the engine stops and says so (Reset starts afresh)
 * instead of replacing its worker again.
 */
export const maxRecoveries = 3;
export const recoveryWindowMs = 60_000;

/**
 * How long Stop lets a statement that has just started run before replacing the worker
 * for it: most statements end well within it, and a replacement costs a replay.
 */
const stopGraceMs = 300;

/** Hears each step of a start. */
export type Progress = (p: StartProgress) => void;

/** What the engine's page-side structures hold, for the soak and the tests. */
export interface EngineMemory {
  /** Calls journaled since the last checkpoint, and about their size as JSON. */
  journalEntries: number;
  journalBytes: number;
  /** Bytes of the last checkpoint's data directory (0 before the first). */
  checkpointBytes: number;
  checkpoints: number;
  /** Calls sent and not yet answered (waiting statements among them). */
  pending: number;
  /** Times the worker was replaced (watchdog or Stop). */
  replacements: number;
}

/** A PGlite engine in a worker: the page's engine, in a browser or in Node. */
export interface WorkerEngine extends PageEngine {
  memory(): EngineMemory;
}

/** One running worker, as the engine drives it. */
export interface WorkerPort {
  post(request: WorkerRequest): void;
  /** Ends the worker at once, even while it spins. */
  terminate(): void | Promise<unknown>;
}

/** Where a worker runs: how one starts, and what it boots from. */
export interface WorkerHost {
  /** Starts a worker running serve.ts; it answers through `reply`, and `crash` if it fails. */
  spawn(events: { reply(reply: WorkerReply): void; crash(message: string): void }): WorkerPort;
  /** What a worker boots from; fetched or read once and handed to every worker. */
  artifacts(onProgress: Progress): Promise<BootArtifacts>;
}

/** How the engine is set up; every part has a default. */
export interface WorkerEngineOptions {
  /** Extra `-c` settings PostgreSQL starts with. */
  settings?: Record<string, string>;
  /** The watchdog's time (default `watchdogMs`); tests shorten it. */
  watchdogMs?: number;
  /** When the journal is checkpointed (the layer's default: thousands of calls); tests. */
  checkpoints?: CheckpointLimits;
}

/** A PGlite engine whose worker `host` starts; nothing runs until `start` or a session. */
export function makeWorkerEngine(
  host: WorkerHost,
  options: WorkerEngineOptions = {},
): WorkerEngine {
  return new WatchedWorkerEngine(host, options);
}

/** A call sent to the worker and not yet answered. */
interface Pending {
  request: WorkerRequest;
  /** When it was sent (performance.now()). */
  sentAt: number;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/** The reader's statement the worker is running now, and the watchdog's timer for it. */
interface Running {
  seq: number;
  sessionId: number;
  since: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Why a worker is replaced: which statement is taken for a wait, cancelled or withdrawn. */
interface Replacement {
  stuck?: number;
  cancelled?: number;
  /** A pending query call to answer as cancelled instead of running it. */
  withdrawn?: number;
}

class WatchedWorkerEngine implements WorkerEngine {
  readonly kind = 'pglite' as const;
  private readonly host: WorkerHost;
  private readonly settings: Record<string, string> | undefined;
  private readonly watchdogMs: number;
  private readonly checkpointLimits: CheckpointLimits | undefined;
  private worker: WorkerPort | undefined;
  private generation = 0;
  private nextCallId = 1;
  /** Calls sent and not yet answered, with the request, so a replacement worker can get them. */
  private readonly pending = new Map<number, Pending>();
  private booting: Promise<void> | undefined;
  /** Where a replacement starts: the last checkpoint, if any. */
  private base: LayerCheckpoint | undefined;
  private checkpoints = 0;
  /** Every call the worker finished since `base`, in order: what a replacement replays. */
  private journal: JournalEntry[] = [];
  private journalBytes = 0;
  private readonly journaledIds = new Set<number>();
  private stuck = new Set<number>();
  private cancelled = new Set<number>();
  private running: Running | null = null;
  /** When the watchdog replaced the worker, within the last `recoveryWindowMs`. */
  private recoveries: number[] = [];
  private replacements = 0;
  /** Set while a replacement worker rebuilds the sessions; new calls wait for it. */
  private recovering: Promise<void> | undefined;

  constructor(host: WorkerHost, options: WorkerEngineOptions) {
    this.host = host;
    this.settings = options.settings;
    this.watchdogMs = options.watchdogMs ?? watchdogMs;
    this.checkpointLimits = options.checkpoints;
  }

  start(onProgress: Progress = () => {}): Promise<void> {
    this.booting ??= this.boot(onProgress);
    return this.booting;
  }

  restart(onProgress: Progress = () => {}): Promise<void> {
    this.shutDown(
      'The engine was restarted, so the statement was cancelled and its result lost.',
      'restarted',
    );
    this.booting = this.boot(onProgress);
    return this.booting;
  }

  async openSession(options: SessionOptions = {}): Promise<Session> {
    await this.start();
    const generation = this.generation;
    const opened = await this.call('openSession', options);
    return apiSession(this.call, opened, () => generation === this.generation);
  }

  listSessions(): Promise<SessionInfo[]> {
    return this.call('listSessions');
  }

  cancel(session: Session): Promise<boolean> {
    return this.call('cancel', session.id);
  }

  async stop(session: Session): Promise<StopOutcome> {
    for (let look = 0; ; look++) {
      await this.recovering;
      const query = this.pendingQuery(session.id);
      if (!query) return { kind: 'not-running' };
      const running = this.running;
      const own = running?.sessionId === session.id ? running : null;
      // Journaled and unanswered: waiting for a lock or sleeping in the layer.
      if (!own && this.journaledIds.has(query.callId)) break;
      // With no news of its statement, the call is running (its first statement goes out
      // quietly, see watchdog.ts, `runReader`) unless another session's statement is, or
      // a call sent before it is unfinished: then it is queued behind that work, and a
      // cancel call would wait behind it too. Either way it is withdrawn, which is what
      // cancelling its first statement does.
      const queued = !own && (running !== null || this.unfinishedBefore(query.callId));
      // A statement that has only just started (or been sent) is let run a moment: most
      // end within it, and a replacement costs a replay.
      const left = stopGraceMs - (performance.now() - (own ? own.since : query.sentAt));
      if (look === 0 && left > 0) {
        await new Promise((resolve) => setTimeout(resolve, left));
        continue;
      }
      if (own) this.replace({ cancelled: own.seq });
      else this.replace({ withdrawn: query.callId });
      return { kind: 'replaced', queued };
    }
    // Waiting for a lock or sleeping in the layer: the layer cancels it.
    const cancelled = await this.call('cancel', session.id);
    return cancelled ? { kind: 'cancelled' } : { kind: 'not-running' };
  }

  memory(): EngineMemory {
    return {
      journalEntries: this.journal.length,
      journalBytes: this.journalBytes,
      checkpointBytes: this.base?.dataDir.size ?? 0,
      checkpoints: this.checkpoints,
      pending: this.pending.size,
      replacements: this.replacements,
    };
  }

  async close(): Promise<void> {
    const ended = this.shutDown('The engine was closed.', 'closed');
    this.booting = undefined;
    await ended;
  }

  /** Whether a layer call sent before `callId` has neither been answered nor journaled. */
  private unfinishedBefore(callId: number): boolean {
    for (const [id, { request }] of this.pending) {
      if (id >= callId || request.type !== 'call' || request.method === 'listSessions') continue;
      if (!this.journaledIds.has(id)) return true;
    }
    return false;
  }

  /** Session `id`'s query call not yet answered, if it has one. */
  private pendingQuery(id: number): { callId: number; sentAt: number } | undefined {
    for (const [callId, { request, sentAt }] of this.pending) {
      if (request.type === 'call' && request.method === 'query' && request.args[0] === id) {
        return { callId, sentAt };
      }
    }
    return undefined;
  }

  /** Starts a worker and boots PostgreSQL in it, from scratch or rebuilding `restore`. */
  private async startWorker(onProgress: Progress, restore?: Restore): Promise<void> {
    const worker: WorkerPort = this.host.spawn({
      reply: (reply) => {
        if (this.worker === worker) this.settle(reply);
      },
      crash: (message) => {
        if (this.worker === worker) {
          this.shutDown(
            `The engine crashed: ${message || 'the worker failed to load'}.`,
            'crashed',
          );
        }
      },
    });
    this.worker = worker;
    const loaded = await this.host.artifacts(onProgress);
    onProgress({ step: 'boot' });
    const { bootMs } = (await this.request({
      type: 'boot',
      callId: this.nextCallId++,
      artifacts: loaded,
      ...(this.settings ? { settings: this.settings } : {}),
      ...(this.checkpointLimits ? { checkpoints: this.checkpointLimits } : {}),
      ...(restore ? { restore } : {}),
    })) as { bootMs: number };
    performance.mark(restore ? 'seat-ledger:recovered' : 'seat-ledger:booted', {
      detail: { bootMs },
    });
    onProgress({ step: 'ready' });
  }

  private async boot(onProgress: Progress): Promise<void> {
    const booting = this.booting;
    try {
      // The worker's own script loads while the engine files download.
      await this.startWorker(onProgress);
    } catch (error) {
      void this.worker?.terminate();
      this.worker = undefined;
      if (this.booting === booting) this.booting = undefined; // let a later start retry
      throw error;
    }
  }

  /**
   * The watchdog fired for statement `seq`: it got no answer in `watchdogMs` though it
   * could meet a parked transaction's lock, so PGlite is taken to be stuck in a lock wait.
   * Past `maxRecoveries` within `recoveryWindowMs` with no statement answered between, the
   * engine stops instead.
   */
  private watchdogFired(seq: number): void {
    const now = performance.now();
    this.recoveries = this.recoveries.filter((at) => now - at < recoveryWindowMs);
    if (this.recoveries.length >= maxRecoveries) {
      void this.shutDown(
        `PostgreSQL stopped answering ${maxRecoveries + 1} times in a row within ` +
          `${recoveryWindowMs / 1000} seconds, so the engine stopped rebuilding its sessions. ` +
          'Reset starts a fresh database.',
        'recoveries',
      );
      return;
    }
    this.recoveries.push(now);
    this.replace({ stuck: seq });
  }

  /**
   * Replaces the worker by one that boots from the last checkpoint and replays the journal
   * since, which rebuilds every session, transaction and parked XID (one backend fed the
   * same statements in the same order answers the same). A statement taken for a lock wait
   * (`stuck`) is not sent again: its session waits instead, visibly, with a Cancel. One the
   * reader stopped (`cancelled`) is answered 57014; a query call not yet started
   * (`withdrawn`) is answered so instead of running. Calls the old worker had not finished
   * go to the new one, in the order they were made.
   */
  private replace(why: Replacement): void {
    if (why.stuck !== undefined) this.stuck.add(why.stuck);
    if (why.cancelled !== undefined) this.cancelled.add(why.cancelled);
    const withdrawn = why.withdrawn === undefined ? undefined : this.pending.get(why.withdrawn);
    if (withdrawn?.request.type === 'call' && withdrawn.request.method === 'query') {
      const [id, sql] = withdrawn.request.args;
      withdrawn.request = { ...withdrawn.request, method: 'withdraw', args: [id, sql] };
    }
    if (this.running) clearTimeout(this.running.timer);
    this.running = null;
    this.replacements++;
    void this.worker?.terminate();
    this.worker = undefined;
    const generation = this.generation;
    const restore: Restore = {
      ...(this.base ? { base: this.base } : {}),
      journal: this.journal,
      stuck: [...this.stuck],
      cancelled: [...this.cancelled],
    };
    const recovering = (async () => {
      await this.startWorker(() => {}, restore);
      // None of these had finished, so their order is free: a withdrawn one goes first, so
      // that it is answered before a statement it was queued behind starts again.
      const unfinished = [...this.pending]
        .filter(([callId]) => !this.journaledIds.has(callId))
        .sort(([a], [b]) => (a === why.withdrawn ? -1 : b === why.withdrawn ? 1 : a - b));
      for (const [, call] of unfinished) this.worker!.post(call.request);
    })();
    this.recovering = recovering;
    recovering.then(
      () => {
        if (this.recovering === recovering) this.recovering = undefined;
      },
      (error: unknown) => {
        if (this.generation !== generation) return;
        void this.shutDown(
          `The engine stopped answering and could not rebuild its sessions (${
            error instanceof Error ? error.message : String(error)
          }). Reset starts afresh.`,
          'crashed',
        );
      },
    );
  }

  /** Ends the worker; everything still waiting on it fails with `reason`. */
  private shutDown(reason: string, kind: EngineGoneKind): Promise<unknown> {
    const ended = this.worker?.terminate();
    this.worker = undefined;
    this.generation++;
    this.base = undefined;
    this.journal = [];
    this.journalBytes = 0;
    this.journaledIds.clear();
    this.stuck = new Set();
    this.cancelled = new Set();
    this.recoveries = [];
    if (this.running) clearTimeout(this.running.timer);
    this.running = null;
    this.recovering = undefined;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const call of waiting) call.reject(new EngineGoneError(reason, kind));
    return Promise.resolve(ended);
  }

  // One generic signature for every method; the worker checks nothing, so the types here
  // are the contract (`WorkerRequest` is derived from `EngineApi`).
  private readonly call = (async (method: Method, ...args: unknown[]) => {
    await this.start();
    await this.recovering;
    return this.request({ type: 'call', callId: this.nextCallId++, method, args } as WorkerRequest);
  }) as CallApi;

  private request(request: WorkerRequest): Promise<unknown> {
    const worker = this.worker;
    if (!worker) {
      return Promise.reject(new EngineGoneError('The engine is not running.', 'closed'));
    }
    return new Promise((resolve, reject) => {
      this.pending.set(request.callId, { request, sentAt: performance.now(), resolve, reject });
      worker.post(request);
    });
  }

  /** The journal entry a note stands for: a call this side sent is its request's. */
  private journalEntry(note: JournalNote): JournalEntry {
    if ('call' in note) return note;
    const request = this.pending.get(note.tag)?.request;
    if (request?.type !== 'call') {
      throw new Error(`The worker journaled call ${note.tag}, which this engine never sent.`);
    }
    const { method, args } = request;
    return { call: { method, args } as JournalEntry['call'], at: note.at, tag: note.tag };
  }

  private settle(response: WorkerReply): void {
    for (const note of response.journal ?? []) {
      const entry = this.journalEntry(note);
      this.journal.push(entry);
      this.journalBytes += callBytes(entry.call);
      if (entry.tag !== undefined) this.journaledIds.add(entry.tag);
    }
    if (response.ended?.length) {
      if (this.running && response.ended.includes(this.running.seq)) {
        clearTimeout(this.running.timer);
        this.running = null;
      }
      // A statement answered since the last recovery is progress: the bound on recoveries
      // is for a backend that keeps sticking with nothing answered between (each lock wait
      // the watchdog finds is answered, so a run of specs may meet many).
      this.recoveries = [];
    }
    if (response.type === 'checkpoint') {
      // Everything journaled so far is in the checkpoint; calls it covers stay marked, so
      // a replacement does not send them again.
      this.base = response.checkpoint;
      this.checkpoints++;
      this.journal = [];
      this.journalBytes = 0;
      return;
    }
    if (response.type === 'news') return;
    if (response.type === 'statement') {
      if (this.running) clearTimeout(this.running.timer);
      const { seq, sessionId } = response;
      const timer = response.guarded
        ? setTimeout(() => {
            if (this.running?.seq === seq) this.watchdogFired(seq);
          }, this.watchdogMs)
        : undefined;
      this.running = { seq, sessionId, since: performance.now(), timer };
      return;
    }
    const call = this.pending.get(response.callId);
    if (!call) return;
    this.pending.delete(response.callId);
    this.journaledIds.delete(response.callId);
    if (response.type === 'done') call.resolve(response.value);
    else call.reject(new Error(response.message));
  }
}
