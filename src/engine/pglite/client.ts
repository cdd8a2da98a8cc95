// The browser's PGlite engine: a Web Worker driven from the main thread (worker-engine.ts).
// The WASM module and start files are fetched and compiled once per page (loader.ts) and
// handed to each worker, so a restart costs a boot, not a download.
import { fetchedByWorkerMark } from '../../offline/plan';
import type { PageEngine } from '../page';
import { engineAssetUrls } from './assets';
import type {
  BootArtifacts,
  LoaderReply,
  LoaderRequest,
  WorkerReply,
  WorkerRequest,
} from './messages';
import { makeWorkerEngine, type Progress, type WorkerHost } from './worker-engine';

/** The engine's files, downloaded by loader.ts, which keeps the data directory. */
interface Downloaded {
  /** What the first worker boots from. */
  artifacts: BootArtifacts & { dataDir: ArrayBuffer };
  /** A copy of the data directory's bytes, for a later worker. */
  copy(): Promise<ArrayBuffer>;
}

let download: Promise<Downloaded> | undefined;
/** Whether the downloaded bytes went to a worker: from then on workers get copies. */
let bytesGiven = false;

/**
 * Fetches what workers boot from, once per page, in a worker of its own (loader.ts):
 * counting, gunzipping and compiling there, so the page's thread only hears progress.
 * Marks `seat-ledger:downloaded` and `seat-ledger:compiled` for the benchmark.
 */
function downloadOnce(onProgress: Progress): Promise<Downloaded> {
  download ??= new Promise<Downloaded>((resolve, reject) => {
    const urls = absolute(engineAssetUrls(import.meta.env.BASE_URL));
    const loader = new Worker(new URL('./loader.ts', import.meta.url), {
      type: 'module',
      name: 'engine-files',
    });
    /** Copies asked for and not yet given, in order. */
    const copies: { resolve(bytes: ArrayBuffer): void; reject(error: Error): void }[] = [];
    const fail = (message: string) => {
      loader.terminate();
      download = undefined; // the next start downloads again
      const error = new Error(message);
      reject(error); // nothing, once resolved
      for (const copy of copies.splice(0)) copy.reject(error);
    };
    const copy = () =>
      new Promise<ArrayBuffer>((resolve, reject) => {
        copies.push({ resolve, reject });
        loader.postMessage({ type: 'copy' } satisfies LoaderRequest);
      });
    loader.onmessage = ({ data: reply }: MessageEvent<LoaderReply>) => {
      switch (reply.type) {
        case 'progress':
          onProgress({ step: 'download', ...reply });
          return;
        case 'downloaded':
          performance.mark('seat-ledger:downloaded');
          onProgress({ step: 'compile' });
          return;
        case 'loaded':
          // Fetched by the loader, so not in the page's timeline: reading offline keeps them.
          performance.mark(fetchedByWorkerMark, { detail: { urls: Object.values(urls) } });
          performance.mark('seat-ledger:compiled');
          resolve({ artifacts: reply.artifacts, copy });
          return;
        case 'copy':
          copies.shift()?.resolve(reply.dataDir);
          return;
        case 'failed':
          fail(reply.message);
      }
    };
    loader.onerror = (event) => {
      event.preventDefault();
      fail(`The engine's download failed: ${event.message || 'its worker did not load'}.`);
    };
    loader.postMessage({
      type: 'download',
      urls,
      builtBytes: typeof __ENGINE_BYTES__ === 'number' ? __ENGINE_BYTES__ : 0,
    } satisfies LoaderRequest);
  });
  return download;
}

/**
 * What the next worker boots from. The first gets the downloaded data directory, later
 * ones (a Reset, the watchdog's replacement) a copy made in loader.ts: either way the
 * bytes are handed over with the boot, never copied on the page's thread.
 */
async function loadArtifacts(onProgress: Progress): Promise<BootArtifacts> {
  const { artifacts, copy } = await downloadOnce(onProgress);
  if (bytesGiven) return { ...artifacts, dataDir: await copy() };
  bytesGiven = true;
  return artifacts;
}

/** `urls` resolved against the page, as a worker (whose base is its script) needs them. */
function absolute<T extends Record<string, string>>(urls: T): T {
  const entries = Object.entries(urls).map(([k, url]) => [k, new URL(url, location.href).href]);
  return Object.fromEntries(entries) as T;
}

/** Posts `request` to `worker`; a boot's data directory bytes are handed over, not cloned. */
function postRequest(worker: Worker, request: WorkerRequest): void {
  const bytes = request.type === 'boot' ? request.artifacts.dataDir : undefined;
  worker.postMessage(request, bytes instanceof ArrayBuffer ? [bytes] : []);
}

/** The browser's workers: module Web Workers, booted from files fetched once per page. */
const browserHost: WorkerHost = {
  spawn(events) {
    const worker = new Worker(new URL('./worker.ts', import.meta.url), {
      type: 'module',
      name: 'postgres',
    });
    worker.onmessage = (event: MessageEvent<WorkerReply>) => events.reply(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      events.crash(event.message);
    };
    return { post: (request) => postRequest(worker, request), terminate: () => worker.terminate() };
  },
  artifacts: loadArtifacts,
};

let pageEngine: PageEngine | undefined;

/** The page's engine; nothing is fetched until a demo calls `start` or opens a session. */
export function getPageEngine(): PageEngine {
  pageEngine ??= makeWorkerEngine(browserHost);
  return pageEngine;
}
