// A PGlite engine in a worker, driven from the thread that holds the sessions' callers:
// the browser's main thread (client.ts) or a Node thread (node.ts). The worker serves the
// session layer (serve.ts); this side journals every finished call, and its watchdog
// replaces a worker that spins on a lock wait no check foresaw (see `recover`). What
// differs between the two homes, how a worker starts and where its boot files come from,
// is a `WorkerHost`.
import type { PageEngine, StartProgress } from '../page';
import type { SessionInfo } from '../session-info';
import { EngineGoneError, type Session, type SessionOptions } from '../types';
import { apiSession, type CallApi } from './api-engine';
import type { BootArtifacts, Method, Restore, WorkerReply, WorkerRequest } from './messages';
import type { JournalEntry } from './sessions';

/**
 * How long a reader's statement may go unanswered while a parked transaction holds locks
 * before the watchdog takes it for a lock wait. PGlite spins for good on a lock wait (its
 * lock_timeout never fires: src/engine/ARCHITECTURE.md, "Parking"), and from outside a
 * spinning worker a wait looks like long work, so this is a judgement, and the session
 * says it is one.
 */
export const watchdogMs = 2000;

/** Hears each step of a start. */
export type Progress = (p: StartProgress) => void;

/** A PGlite engine in a worker: the page's engine, in a browser or in Node. */
export type WorkerEngine = PageEngine;

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
}

/** A PGlite engine whose worker `host` starts; nothing runs until `start` or a session. */
export function makeWorkerEngine(
  host: WorkerHost,
  options: WorkerEngineOptions = {},
): WorkerEngine {
  return new WatchedWorkerEngine(host, options);
}

class WatchedWorkerEngine implements WorkerEngine {
  readonly kind = 'pglite' as const;
  private readonly host: WorkerHost;
  private readonly settings: Record<string, string> | undefined;
  private readonly watchdogMs: number;
  private worker: WorkerPort | undefined;
  private generation = 0;
  private nextCallId = 1;
  /** Calls sent and not yet answered, with the request, so a replacement worker can get them. */
  private readonly pending = new Map<
    number,
    { request: WorkerRequest; resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  private booting: Promise<void> | undefined;
  /** Every call the worker finished, in order: what a replacement replays (see `recover`). */
  private journal: JournalEntry[] = [];
  private readonly journaledIds = new Set<number>();
  private stuck = new Set<number>();
  /** The reader's statement the worker is running now, and the watchdog's timer for it. */
  private running: { seq: number; timer: ReturnType<typeof setTimeout> | undefined } | null = null;
  /** Set while a replacement worker rebuilds the sessions; new calls wait for it. */
  private recovering: Promise<void> | undefined;

  constructor(host: WorkerHost, options: WorkerEngineOptions) {
    this.host = host;
    this.settings = options.settings;
    this.watchdogMs = options.watchdogMs ?? watchdogMs;
  }

  start(onProgress: Progress = () => {}): Promise<void> {
    this.booting ??= this.boot(onProgress);
    return this.booting;
  }

  restart(onProgress: Progress = () => {}): Promise<void> {
    this.stop('The engine was restarted, so the statement was cancelled and its result lost.');
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

  async close(): Promise<void> {
    const ended = this.stop('The engine was closed.');
    this.booting = undefined;
    await ended;
  }

  /** Starts a worker and boots PostgreSQL in it, from scratch or rebuilding `restore`. */
  private async startWorker(onProgress: Progress, restore?: Restore): Promise<void> {
    const worker: WorkerPort = this.host.spawn({
      reply: (reply) => {
        if (this.worker === worker) this.settle(reply);
      },
      crash: (message) => {
        if (this.worker === worker) {
          this.stop(`The engine crashed: ${message || 'the worker failed to load'}.`);
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
   * The watchdog: statement `seq` got no answer in `watchdogMs` while a parked transaction
   * held locks, so PGlite is taken to be stuck in a lock wait. The worker is replaced by
   * one that replays the journal from the same data directory, which rebuilds every
   * session, transaction and parked XID, and is told never to send `seq` again: its
   * session waits instead, visibly, with a Cancel. Calls the old worker had not finished
   * go to the new one, in the order they were made.
   */
  private recover(seq: number): void {
    this.stuck.add(seq);
    this.running = null;
    void this.worker?.terminate();
    this.worker = undefined;
    const generation = this.generation;
    const restore: Restore = { journal: this.journal, stuck: [...this.stuck] };
    const recovering = (async () => {
      await this.startWorker(() => {}, restore);
      for (const [callId, call] of [...this.pending].sort(([a], [b]) => a - b)) {
        if (!this.journaledIds.has(callId)) this.worker!.post(call.request);
      }
    })();
    this.recovering = recovering;
    recovering.then(
      () => {
        if (this.recovering === recovering) this.recovering = undefined;
      },
      (error: unknown) => {
        if (this.generation !== generation) return;
        void this.stop(
          `The engine stopped answering and could not rebuild its sessions (${
            error instanceof Error ? error.message : String(error)
          }). Reset starts afresh.`,
        );
      },
    );
  }

  /** Ends the worker; everything still waiting on it fails with `reason`. */
  private stop(reason: string): Promise<unknown> {
    const ended = this.worker?.terminate();
    this.worker = undefined;
    this.generation++;
    this.journal = [];
    this.journaledIds.clear();
    this.stuck = new Set();
    if (this.running) clearTimeout(this.running.timer);
    this.running = null;
    this.recovering = undefined;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const call of waiting) call.reject(new EngineGoneError(reason));
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
    if (!worker) return Promise.reject(new EngineGoneError('The engine is not running.'));
    return new Promise((resolve, reject) => {
      this.pending.set(request.callId, { request, resolve, reject });
      worker.post(request);
    });
  }

  private settle(response: WorkerReply): void {
    for (const entry of response.journal ?? []) {
      this.journal.push(entry);
      if (entry.tag !== undefined) this.journaledIds.add(entry.tag);
    }
    if (response.type === 'statement') {
      if (this.running) clearTimeout(this.running.timer);
      this.running = null;
      if (!response.done) {
        const { seq } = response;
        const timer = response.guarded
          ? setTimeout(() => {
              if (this.running?.seq === seq) this.recover(seq);
            }, this.watchdogMs)
          : undefined;
        this.running = { seq, timer };
      }
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
