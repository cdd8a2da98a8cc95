// The browser's PGlite engine: a Web Worker driven from the main thread (worker-engine.ts).
// The WASM module and start files are fetched and compiled once per page and handed to
// each worker, so a restart costs a boot, not a download.
import type { PageEngine } from '../page';
import { engineAssetUrls } from './assets';
import type { BootArtifacts, WorkerReply, WorkerRequest } from './messages';
import { makeWorkerEngine, type Progress, type WorkerHost } from './worker-engine';

/** A copy of `response` whose body reports bytes as they pass through, and its end. */
function counted(response: Response, onBytes: (n: number) => void, onEnd: () => void): Response {
  if (!response.ok) throw new Error(`${response.url} answered ${response.status}`);
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      onBytes(chunk.byteLength);
      controller.enqueue(chunk);
    },
    flush: onEnd,
  });
  return new Response(response.body!.pipeThrough(counter), { headers: response.headers });
}

/**
 * The bytes the engine's bodies will hold. A host that compresses them (`Content-Encoding`)
 * sends the compressed length, but the body is read decompressed: then the build's own
 * figure for the three files (astro.config.mjs) is the one to count towards.
 */
function expectedBytes(responses: Response[]): number {
  const encoded = responses.some(
    (r) => (r.headers.get('content-encoding') ?? 'identity') !== 'identity',
  );
  const built = typeof __ENGINE_BYTES__ === 'number' ? __ENGINE_BYTES__ : 0;
  if (encoded && built > 0) return built;
  return responses.reduce((sum, r) => sum + Number(r.headers.get('content-length') ?? 0), 0);
}

/**
 * The data directory's tar, gunzipped as it arrives (when it is gzipped: a host may have
 * unpacked it already, sending it with `Content-Encoding: gzip`), so the worker does not
 * spend its boot on it. Its bytes stay on this thread, and each worker gets a copy with
 * its boot: a Blob would go to the browser's blob store and be read back from there by
 * the worker, 50-150 ms of its boot.
 */
async function plainTar(response: Response): Promise<ArrayBuffer> {
  const reader = response.body!.getReader();
  const first = await reader.read();
  const head = first.value ?? new Uint8Array();
  const whole = new ReadableStream<Uint8Array>({
    start(controller) {
      if (head.byteLength) controller.enqueue(head);
      if (first.done) controller.close();
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const gzipped = head[0] === 0x1f && head[1] === 0x8b;
  // DOM's types take any BufferSource in; these chunks are all Uint8Array.
  const gunzip = new DecompressionStream('gzip') as ReadableWritablePair<Uint8Array, Uint8Array>;
  return new Response(gzipped ? whole.pipeThrough(gunzip) : whole).arrayBuffer();
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
    const totalBytes = expectedBytes(responses);
    let loadedBytes = 0;
    let reportedAt = -Infinity;
    const report = () => {
      reportedAt = performance.now();
      onProgress({ step: 'download', loadedBytes, totalBytes: Math.max(totalBytes, loadedBytes) });
    };
    const onBytes = (n: number) => {
      loadedBytes += n;
      // Chunks come thousands at a time; ten reports a second are plenty for a reader.
      if (performance.now() - reportedAt >= 100) report();
    };
    let bodiesLeft = responses.length;
    const onEnd = () => {
      if (--bodiesLeft > 0) return;
      report();
      performance.mark('seat-ledger:downloaded');
      onProgress({ step: 'compile' });
    };
    const [wasm, fsBundle, dataDir] = responses.map((r) => counted(r, onBytes, onEnd));
    const [wasmModule, fsBlob, dataBlob] = await Promise.all([
      // Streaming compilation needs the right content type; some hosts send another.
      wasm!.headers.get('content-type')?.startsWith('application/wasm')
        ? WebAssembly.compileStreaming(wasm!)
        : wasm!.arrayBuffer().then((bytes) => WebAssembly.compile(bytes)),
      fsBundle!.blob(),
      plainTar(dataDir!),
    ]);
    performance.mark('seat-ledger:compiled');
    return { wasmModule, fsBundle: fsBlob, dataDir: dataBlob };
  })();
  artifacts.catch(() => (artifacts = undefined)); // a failed download may be retried
  return artifacts;
}

/**
 * Posts `request` to `worker`. A boot's data directory (26 MB, kept here for the next
 * worker) goes as a copy the worker takes over, not cloned by the message: cloning it cost
 * the page one frame of 400 ms when the watchdog replaced a worker, where a copy is a
 * memcpy of a few ms.
 */
function postRequest(worker: Worker, request: WorkerRequest): void {
  if (request.type !== 'boot' || !(request.artifacts.dataDir instanceof ArrayBuffer)) {
    worker.postMessage(request);
    return;
  }
  const dataDir = request.artifacts.dataDir.slice(0);
  worker.postMessage({ ...request, artifacts: { ...request.artifacts, dataDir } }, [dataDir]);
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
