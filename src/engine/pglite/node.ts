// The PGlite engine in Node, for tests, benchmarks and `npm run spec`: the browser's
// engine (worker-engine.ts) with a worker thread for the Web Worker, so the same watchdog
// keeps a statement that spins on a lock from hanging the process. It boots from the
// same prepared data directory, built first when it is missing.
import { PGlite } from '@electric-sql/pglite';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { ensureDataDir } from './datadir';
import type { BootArtifacts, WorkerReply } from './messages';
import { startParamsWith } from './settings';
import {
  makeWorkerEngine,
  type WorkerEngine,
  type WorkerEngineOptions,
  type WorkerHost,
  type WorkerPort,
} from './worker-engine';

const require = createRequire(import.meta.url);

/** The prepared data directory, built if need be, as PGlite loads it. */
async function dataDirBlob(): Promise<Blob> {
  const { path } = await ensureDataDir();
  return new Blob([await readFile(path)]);
}

let artifacts: Promise<BootArtifacts> | undefined;

/** What a worker boots from, read from PGlite's package and public/engine/ once per process. */
function readArtifacts(): Promise<BootArtifacts> {
  artifacts ??= (async () => {
    const [wasm, fsBundle, dataDir] = await Promise.all([
      readFile(require.resolve('@electric-sql/pglite/pglite.wasm')),
      readFile(require.resolve('@electric-sql/pglite/pglite.data')),
      dataDirBlob(),
    ]);
    return { wasmModule: await WebAssembly.compile(wasm), fsBundle: new Blob([fsBundle]), dataDir };
  })();
  artifacts.catch(() => (artifacts = undefined)); // a failed read may be tried again
  return artifacts;
}

/** A worker thread running node-worker.ts, which loads the resolve hook src/ needs. */
function spawnThread(events: Parameters<WorkerHost['spawn']>[0]): WorkerPort {
  const worker = new Worker(new URL('./node-worker.ts', import.meta.url), { name: 'postgres' });
  let ending = false;
  worker.on('message', (reply: WorkerReply) => events.reply(reply));
  worker.on('error', (error) => events.crash(error.message));
  worker.on('exit', (code) => {
    if (!ending) events.crash(`the worker thread exited with code ${code}`);
  });
  return {
    post: (request) => worker.postMessage(request),
    terminate: () => {
      ending = true;
      return worker.terminate();
    },
  };
}

/** Node's workers: worker threads, booted from files read once per process. */
export const nodeWorkerHost: WorkerHost = { spawn: spawnThread, artifacts: readArtifacts };

/**
 * Starts PGlite in a worker thread from the prepared data directory, with `settings` as
 * extra `-c` flags (e.g. a small `max_connections`). `options.watchdogMs` shortens the
 * watchdog's time, for tests.
 */
export async function createNodePgliteEngine(
  settings: Record<string, string> = {},
  options: Omit<WorkerEngineOptions, 'settings'> = {},
): Promise<WorkerEngine> {
  const engine = makeWorkerEngine(nodeWorkerHost, { ...options, settings });
  await engine.start();
  return engine;
}

/** A bare PGlite in this thread from the prepared data directory, as a worker starts it. */
export async function startNodePglite(settings: Record<string, string> = {}): Promise<PGlite> {
  return PGlite.create({
    loadDataDir: await dataDirBlob(),
    startParams: startParamsWith(settings),
  });
}
