// The browser's PGlite engine: a Web Worker driven from the main thread. The WASM module
// and start files are fetched and compiled once per page and handed to each worker, so a
// restart costs a boot, not a download.
import type { PageEngine, StartProgress } from '../page';
import type { SessionInfo } from '../session-info';
import { EngineGoneError, type Session, type SessionOptions } from '../types';
import { apiSession, type CallApi } from './api-engine';
import { engineAssetUrls } from './assets';
import type { BootArtifacts, Method, Restore, WorkerReply, WorkerRequest } from './messages';
import type { JournalEntry } from './sessions';

/**
 * How long a reader's statement may go unanswered while a parked transaction holds locks
 * before the watchdog takes it for a lock wait. PGlite spins for good on a lock wait (its
 * lock_timeout never fires: src/engine/ARCHITECTURE.md, "Parking"), and from outside a
 * spinning worker a wait looks like long work, so this is a judgement, and the session
 * says it is one.
 */
const watchdogMs = 2000;

type Progress = (p: StartProgress) => void;

/** A copy of `response` whose body reports bytes as they pass through. */
function counted(response: Response, onBytes: (n: number) => void): Response {
  if (!response.ok) throw new Error(`${response.url} answered ${response.status}`);
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      onBytes(chunk.byteLength);
      controller.enqueue(chunk);
    },
  });
  return new Response(response.body!.pipeThrough(counter), { headers: response.headers });
}

let artifacts: Promise<BootArtifacts> | undefined;

/**
 * Fetches what a worker boots from, once per page, compiling the WASM while it streams
 * in. Marks `seat-ledger:downloaded` and `seat-ledger:compiled` for the benchmark.
 */
function loadArtifacts(onProgress: Progress): Promise<BootArtifacts> {
  artifacts ??= (async () => {
    const urls = engineAssetUrls(import.meta.env.BASE_URL);
    const responses = await Promise.all(
      [urls.wasm, urls.fsBundle, urls.dataDir].map((url) => fetch(url)),
    );
    const totalBytes = responses.reduce(
      (sum, r) => sum + Number(r.headers.get('content-length') ?? 0),
      0,
    );
    let loadedBytes = 0;
    let reportedAt = -Infinity;
    const onBytes = (n: number) => {
      loadedBytes += n;
      // Chunks come thousands at a time; ten reports a second are plenty for a reader.
      const now = performance.now();
      if (now - reportedAt >= 100 || loadedBytes === totalBytes) {
        reportedAt = now;
        onProgress({
          step: 'download',
          loadedBytes,
          totalBytes: Math.max(totalBytes, loadedBytes),
        });
      }
      if (loadedBytes === totalBytes) {
        performance.mark('seat-ledger:downloaded');
        onProgress({ step: 'compile' });
      }
    };
    const [wasm, fsBundle, dataDir] = responses.map((r) => counted(r, onBytes));
    const [wasmModule, fsBlob, dataBlob] = await Promise.all([
      // Streaming compilation needs the right content type; some hosts send another.
      wasm!.headers.get('content-type')?.startsWith('application/wasm')
        ? WebAssembly.compileStreaming(wasm!)
        : wasm!.arrayBuffer().then((bytes) => WebAssembly.compile(bytes)),
      fsBundle!.blob(),
      dataDir!.blob(),
    ]);
    performance.mark('seat-ledger:compiled');
    return { wasmModule, fsBundle: fsBlob, dataDir: dataBlob };
  })();
  artifacts.catch(() => (artifacts = undefined)); // a failed download may be retried
  return artifacts;
}

class WorkerEngine implements PageEngine {
  readonly kind = 'pglite' as const;
  private worker: Worker | undefined;
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
    this.stop('The engine was closed.');
    this.booting = undefined;
  }

  /** Starts a worker and boots PostgreSQL in it, from scratch or rebuilding `restore`. */
  private async startWorker(onProgress: Progress, restore?: Restore): Promise<void> {
    const worker = new Worker(new URL('./worker.ts', import.meta.url), {
      type: 'module',
      name: 'postgres',
    });
    this.worker = worker;
    worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      if (this.worker === worker) this.settle(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.worker === worker) {
        this.stop(`The engine crashed: ${event.message || 'the worker failed to load'}.`);
      }
    };
    const loaded = await loadArtifacts(onProgress);
    onProgress({ step: 'boot' });
    const { bootMs } = (await this.request({
      type: 'boot',
      callId: this.nextCallId++,
      artifacts: loaded,
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
      this.worker?.terminate();
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
    this.worker?.terminate();
    this.worker = undefined;
    const generation = this.generation;
    const restore: Restore = { journal: this.journal, stuck: [...this.stuck] };
    const recovering = (async () => {
      await this.startWorker(() => {}, restore);
      for (const [callId, call] of [...this.pending].sort(([a], [b]) => a - b)) {
        if (!this.journaledIds.has(callId)) this.worker!.postMessage(call.request);
      }
    })();
    this.recovering = recovering;
    recovering.then(
      () => {
        if (this.recovering === recovering) this.recovering = undefined;
      },
      (error: unknown) => {
        if (this.generation !== generation) return;
        this.stop(
          `The engine stopped answering and could not rebuild its sessions (${
            error instanceof Error ? error.message : String(error)
          }). Reset starts afresh.`,
        );
      },
    );
  }

  /** Ends the worker; everything still waiting on it fails with `reason`. */
  private stop(reason: string): void {
    this.worker?.terminate();
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
      worker.postMessage(request);
    });
  }

  private settle(response: WorkerReply): void {
    if (response.type === 'journal') {
      this.journal.push(response.entry);
      if (response.entry.tag !== undefined) this.journaledIds.add(response.entry.tag);
      return;
    }
    if (response.type === 'statement') {
      if (this.running) clearTimeout(this.running.timer);
      this.running = null;
      if (!response.done) {
        const { seq } = response;
        const timer = response.guarded
          ? setTimeout(() => {
              if (this.running?.seq === seq) this.recover(seq);
            }, watchdogMs)
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

let pageEngine: WorkerEngine | undefined;

/**
 * The page's one PGlite engine, in a Web Worker; nothing is fetched until a demo calls
 * `start` or opens a session.
 */
export function getPageEngine(): PageEngine {
  pageEngine ??= new WorkerEngine();
  return pageEngine;
}
