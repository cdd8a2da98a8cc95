/// <reference lib="webworker" />
// Downloads what the browser engine boots from, off the page's thread: counting the bytes
// as they arrive, gunzipping the data directory, compiling the WASM. On the page's thread
// these cost tasks of 80-320 ms while a demo was drawing its first frames (long animation
// frames attributed to the stream's reads, measured on /embed/counter/). The page gets
// progress reports and, at the end, the artifacts: the compiled module and the Blob are
// handles, and the data directory's bytes are handed over, not copied (a copy of 26 MB took
// the page's thread 100 ms). This worker lives on with the data directory, and makes each
// later engine worker (Reset, the watchdog's replacement) a copy of its own to take over:
// a Blob of it instead cost the first boot 250 ms (made while the engine booted) or each
// later boot a read from the browser's blob store.
import type { BootArtifacts, LoaderReply, LoaderRequest } from './messages';

declare const self: DedicatedWorkerGlobalScope;

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
 * figure for the three files (`builtBytes`, astro.config.mjs) is the one to count towards.
 */
function expectedBytes(responses: Response[], builtBytes: number): number {
  const encoded = responses.some(
    (r) => (r.headers.get('content-encoding') ?? 'identity') !== 'identity',
  );
  if (encoded && builtBytes > 0) return builtBytes;
  return responses.reduce((sum, r) => sum + Number(r.headers.get('content-length') ?? 0), 0);
}

/**
 * The data directory's tar, gunzipped as it arrives (when it is gzipped: a host may have
 * unpacked it already, sending it with `Content-Encoding: gzip`), so the engine's worker
 * does not spend its boot on it: its chunks, as they came.
 */
async function plainTar(response: Response): Promise<Uint8Array<ArrayBuffer>[]> {
  const reader = response.body!.getReader();
  const first = await reader.read();
  // A fetched body's chunks are plain ArrayBuffer views; DOM's types leave that open.
  const head = (first.value ?? new Uint8Array()) as Uint8Array<ArrayBuffer>;
  const whole = new ReadableStream<Uint8Array<ArrayBuffer>>({
    start(controller) {
      if (head.byteLength) controller.enqueue(head);
      if (first.done) controller.close();
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value as Uint8Array<ArrayBuffer>);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const gzipped = head[0] === 0x1f && head[1] === 0x8b;
  const gunzip = new DecompressionStream('gzip') as ReadableWritablePair<
    Uint8Array<ArrayBuffer>,
    Uint8Array<ArrayBuffer>
  >;
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  for await (const chunk of gzipped ? whole.pipeThrough(gunzip) : whole) chunks.push(chunk);
  return chunks;
}

/** `chunks` end to end, in one buffer. */
function joined(chunks: Uint8Array<ArrayBuffer>[]): ArrayBuffer {
  const whole = new Uint8Array(chunks.reduce((sum, c) => sum + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole.buffer;
}

/** Fetches the three files, reporting through `post`, and returns what a worker boots from. */
async function download(
  { urls, builtBytes }: LoaderRequest & { type: 'download' },
  post: (reply: LoaderReply) => void,
): Promise<{
  artifacts: BootArtifacts & { dataDir: ArrayBuffer };
  tar: Uint8Array<ArrayBuffer>[];
}> {
  const responses = await Promise.all(
    [urls.wasm, urls.fsBundle, urls.dataDir].map((u) => fetch(u)),
  );
  const totalBytes = expectedBytes(responses, builtBytes);
  let loadedBytes = 0;
  let reportedAt = -Infinity;
  const report = () => {
    reportedAt = performance.now();
    post({ type: 'progress', loadedBytes, totalBytes: Math.max(totalBytes, loadedBytes) });
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
    post({ type: 'downloaded' });
  };
  const [wasm, fsBundle, dataDir] = responses.map((r) => counted(r, onBytes, onEnd));
  const [wasmModule, fsBlob, tar] = await Promise.all([
    // Streaming compilation needs the right content type; some hosts send another.
    wasm!.headers.get('content-type')?.startsWith('application/wasm')
      ? WebAssembly.compileStreaming(wasm!)
      : wasm!.arrayBuffer().then((bytes) => WebAssembly.compile(bytes)),
    fsBundle!.blob(),
    plainTar(dataDir!),
  ]);
  return { artifacts: { wasmModule, fsBundle: fsBlob, dataDir: joined(tar) }, tar };
}

const post = (reply: LoaderReply) => self.postMessage(reply);

/** The data directory's chunks, once downloaded: each later worker gets a copy. */
let kept: Uint8Array<ArrayBuffer>[] | undefined;

self.onmessage = async ({ data: request }: MessageEvent<LoaderRequest>) => {
  if (request.type === 'copy') {
    const dataDir = joined(kept!);
    self.postMessage({ type: 'copy', dataDir } satisfies LoaderReply, [dataDir]);
    return;
  }
  try {
    const { artifacts, tar } = await download(request, post);
    kept = tar;
    self.postMessage({ type: 'loaded', artifacts } satisfies LoaderReply, [artifacts.dataDir]);
  } catch (error) {
    post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
};
