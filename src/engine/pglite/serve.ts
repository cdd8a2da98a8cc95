// The worker's side of the engine: one PostgreSQL backend, off the thread that drives it,
// so a statement that spins never freezes that thread. It serves the calls of
// `makeEngineApi`, journals them for the driver's watchdog (worker-engine.ts), and
// rebuilds a stuck worker's sessions on boot. The browser's Web Worker (worker.ts) and
// Node's worker thread (node-worker.ts) are its two homes.
import { PGlite, protocol } from '@electric-sql/pglite';
import { makeEngineApi, type EngineApi } from './core';
import { isGzip, PreparedDataDirFS, readTar } from './datadir-fs';
import type { BootArtifacts, JournalNote, WorkerReply, WorkerRequest } from './messages';
import type { LayerCall } from './sessions';
import { startParamsWith } from './settings';

// The smallest valid WebAssembly module. initdb never runs when a data directory is
// loaded, but PGlite prefetches initdb.wasm unless it is handed a module for it.
const unusedInitdbModule = new WebAssembly.Module(
  new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]),
);

/**
 * PGlite from what the driving thread handed over, as every worker boots it. A data
 * directory already gunzipped (the browser's, see client.ts) goes straight into the file
 * system (datadir-fs.ts); a gzipped one (Node's) through PGlite's own `loadDataDir`.
 */
export async function bootPglite(
  { wasmModule, fsBundle, dataDir }: BootArtifacts,
  settings?: Record<string, string>,
): Promise<PGlite> {
  const tar = new Uint8Array(dataDir instanceof Blob ? await dataDir.arrayBuffer() : dataDir);
  const db = new PGlite({
    pgliteWasmModule: wasmModule,
    initdbWasmModule: unusedInitdbModule,
    fsBundle,
    ...(isGzip(tar)
      ? { loadDataDir: new Blob([tar]) }
      : { fs: new PreparedDataDirFS(readTar(tar)) }),
    startParams: startParamsWith(settings),
  });
  // The last step of PGlite's start reads every array type from pg_type, for the parsers
  // of its `query()`: the backend's first query, 0.2-0.4 s of a worker's boot in Chromium
  // (a quarter to a third of it). The engine reads PostgreSQL's replies off the wire itself
  // (backend.ts) and never parses through PGlite, so this instance skips it. (The step
  // runs after PGlite's first await, so the instance's own method is the one called.)
  (db as unknown as { _initArrayTypes(): Promise<void> })._initArrayTypes = async () => {};
  await db.waitReady;
  // The backend's first query costs a few hundred ms, however small (cold caches, code run
  // for the first time), and the first session's first call paid it. A `SELECT 1` pays
  // most of it now, once the caller has its answer and while the page draws the demo: the
  // first call then took about 45 ms rather than 225-360 in Chromium. It runs only while
  // no transaction is open (a replay may have begun one), so no session can see it.
  setTimeout(() => void warmUp(db).catch(() => {}), 0);
  return db;
}

/** Runs `SELECT 1` on the backend, unless a transaction is open or the engine has closed. */
function warmUp(db: PGlite): Promise<unknown> {
  return db.runExclusive(async () => {
    if (!db.ready || db.isInTransaction()) return;
    await db.execProtocol(protocol.serialize.query('SELECT 1'), { throwOnError: false });
  });
}

/** Serves requests from the driving thread, answering each through `send`. */
export function makeWorkerServer(send: (reply: WorkerReply) => void) {
  let api: EngineApi | undefined;
  /** Calls journaled since the last message; they go with the next one (see WorkerReply). */
  let journal: JournalNote[] = [];
  /** Reader statements ended since the last message; they too go with the next one. */
  let ended: number[] = [];
  let flush: ReturnType<typeof setTimeout> | undefined;
  const post = (reply: WorkerReply) => {
    send({
      ...reply,
      ...(journal.length ? { journal } : {}),
      ...(ended.length ? { ended } : {}),
    });
    journal = [];
    ended = [];
    clearTimeout(flush);
    flush = undefined;
  };
  /** Sends what is noted (ends, the journal) now, if anything is. */
  const sendNoted = () => {
    if (ended.length || journal.length) post({ type: 'news', callId: 0 });
  };
  /**
   * An end waits for the next message, which most often follows within the same turn of
   * the event loop (the call's answer); a call left waiting sends what is noted at once
   * (`waiting`). The end of a statement the page had news of goes alone by the next turn
   * if nothing went first, so the page never takes an ended statement for a running one;
   * that of a quiet one (most statements) sets no timer, which cost about 0.05 of the
   * layer's throughput ratio (bench/session-layer.ts): the page never took it for the one
   * running.
   */
  const noteEnded = (seq: number, quiet: boolean) => {
    ended.push(seq);
    // `post` clears the timer, so when it fires the ends are still waiting.
    if (!quiet) flush ??= setTimeout(() => post({ type: 'news', callId: 0 }), 0);
  };

  async function handle(request: WorkerRequest): Promise<unknown> {
    if (request.type === 'boot') {
      const started = performance.now();
      const { restore } = request;
      // A recovery starts from the last checkpoint's data directory when there is one.
      const artifacts = restore?.base
        ? { ...request.artifacts, dataDir: restore.base.dataDir }
        : request.artifacts;
      const db = await bootPglite(artifacts, request.settings);
      api = makeEngineApi(db, {
        stuck: new Set(restore?.stuck),
        cancelled: new Set(restore?.cancelled),
        ...(request.checkpoints ? { checkpoints: request.checkpoints } : {}),
        watch: {
          // A call the driving thread sent goes as its tag: that thread has the call.
          journal: (entry) =>
            journal.push(entry.tag === undefined ? entry : { tag: entry.tag, at: entry.at }),
          // A statement's news crosses so the page knows which one Stop must end; only a
          // guarded one sets the watchdog's timer. A quiet one sends none, but what is
          // waiting goes first: the page must not take an ended statement for the one
          // running, nor a call waiting in the layer for a busy one.
          statement: (event) => {
            if (event.done) noteEnded(event.seq, event.quiet ?? false);
            else if (!event.quiet) {
              const { seq, sessionId, guarded } = event;
              post({ type: 'statement', callId: 0, seq, sessionId, guarded });
            } else sendNoted();
          },
          checkpoint: (checkpoint) => post({ type: 'checkpoint', callId: 0, checkpoint }),
          // The page learns of the wait from the journal (a Stop then cancels it in the layer).
          waiting: sendNoted,
        },
      });
      if (restore) {
        if (restore.base) await api.restore(restore.base);
        // Calls still waiting when the old worker stuck answer from here, under their ids.
        await api.replay(restore.journal, (callId, value) => post({ type: 'done', callId, value }));
      }
      return { bootMs: performance.now() - started };
    }
    if (!api) throw new Error('The engine has not started yet.');
    // Only listing reads; every other call changes sessions and goes through the journal.
    if (request.method === 'listSessions') return api.listSessions();
    return api.invoke({ method: request.method, args: request.args } as LayerCall, request.callId);
  }

  return (request: WorkerRequest): void => {
    handle(request).then(
      (value) => post({ type: 'done', callId: request.callId, value }),
      (error: unknown) =>
        post({
          type: 'failed',
          callId: request.callId,
          message: error instanceof Error ? error.message : String(error),
        }),
    );
  };
}
