// Session-layer figures, measured in Node side by side with bare PGlite from the same
// data directory, each in a worker thread as the Node engine runs it (node.ts), so both
// pay for crossing to the thread and back: statements per second through the layer over
// bare, and the cost of one park (PREPARE TRANSACTION) plus its COMMIT PREPARED.
import '../scripts/resolve-ts.ts';
import { Worker } from 'node:worker_threads';
import type { BareReply, BareRequest } from './bare-worker.ts';

const { createNodePgliteEngine, nodeWorkerHost } = await import('../src/engine/pglite/node.ts');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The statements both sides run: a small write and a small read, as workers do. */
const statements = [
  "UPDATE jobs SET status = 'running' WHERE id = 7",
  "SELECT id, status FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 2",
];
const setup =
  "CREATE TABLE jobs (id int PRIMARY KEY, status text NOT NULL DEFAULT 'queued'); INSERT INTO jobs (id) SELECT generate_series(1, 1000)";

/** Bare PGlite in a worker thread (bare-worker.ts), one statement per message. */
async function startBareWorker() {
  const worker = new Worker(new URL('./bare-worker.ts', import.meta.url));
  const waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  let nextCallId = 0;
  worker.on('message', ({ callId, error }: BareReply) => {
    const call = waiting.get(callId)!;
    waiting.delete(callId);
    if (error === undefined) call.resolve();
    else call.reject(new Error(error));
  });
  const request = (message: BareRequest) =>
    new Promise<void>((resolve, reject) => {
      waiting.set(message.callId, { resolve, reject });
      worker.postMessage(message);
    });
  const artifacts = await nodeWorkerHost.artifacts(() => {});
  await request({ type: 'boot', callId: nextCallId++, artifacts });
  return {
    exec: (sql: string) => request({ type: 'exec', callId: nextCallId++, sql }),
    close: () => worker.terminate(),
  };
}

/**
 * Prints `session-layer-throughput-ratio` and `park-commit-ms`, and what the layer's
 * checkpoints cost under load (`layer-checkpoint-ms`, `sustained-throughput-ratio`).
 */
export async function benchSessionLayer(): Promise<void> {
  const bare = await startBareWorker();
  await bare.exec(setup);
  const engine = await createNodePgliteEngine();
  const session = await engine.openSession();
  await session.query(setup);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Statements per ms of `count` statements in a row on one side. */
  const rate = async (side: 'bare' | 'layer', count: number) => {
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      if (side === 'bare') await bare.exec(statements[i % 2]!);
      else await session.query(statements[i % 2]!);
    }
    return count / (performance.now() - started);
  };

  // Both sides start cold: PGlite's WebAssembly and the layer's JavaScript are compiled
  // again as they grow hot, and in this bench both got about twice as fast over their
  // first 10,000 statements or so. The first statements, in pairs of runs side by side,
  // give the cold figure; the throughput figure is taken once both are warm.
  const pairs = async (count: number, perRun: number) => {
    const ratios: number[] = [];
    const rates = { bare: [] as number[], layer: [] as number[] };
    for (let pair = 0; pair < count; pair++) {
      const order = pair % 2 === 0 ? (['bare', 'layer'] as const) : (['layer', 'bare'] as const);
      const got = { bare: 0, layer: 0 };
      for (const side of order) {
        got[side] = await rate(side, perRun);
        rates[side].push(got[side]);
      }
      ratios.push(got.layer / got.bare);
    }
    return { ratio: median(ratios), rates };
  };
  const cold = await pairs(10, 200);
  console.log(`session-layer-cold-ratio: ${cold.ratio.toFixed(2)}`);
  await rate('bare', 12_000);
  await rate('layer', 12_000);
  // Short runs in turn, many of them, so that a busy moment of the machine falls on both
  // sides alike. Before every tenth pair the layer is given a quiet moment and one more
  // call, so a checkpoint it had due (at a quiet moment, see journal.ts) is taken then,
  // outside the timings: in a page that is when the reader is idle. Its cost under load is
  // measured below.
  const warm = { ratios: [] as number[], bare: [] as number[], layer: [] as number[] };
  for (let group = 0; group < 8; group++) {
    await sleep(80);
    await session.query('SELECT 1');
    const { ratio, rates } = await pairs(10, 100);
    warm.ratios.push(ratio);
    warm.bare.push(...rates.bare);
    warm.layer.push(...rates.layer);
  }
  console.log(`session-layer-statements-per-s: ${(median(warm.layer) * 1000).toFixed(0)}`);
  console.log(`bare-pglite-statements-per-s: ${(median(warm.bare) * 1000).toFixed(0)}`);
  console.log(`session-layer-throughput-ratio: ${median(warm.ratios).toFixed(2)}`);

  // Under load with no quiet moment the layer takes a checkpoint anyway after 4,000 calls
  // (checkpoint.ts, `anyway`): one run long enough to meet one, beside bare PGlite.
  const sustained = 4400;
  await sleep(80);
  await session.query('SELECT 1');
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < sustained; i++) {
    const t = performance.now();
    await session.query(statements[i % 2]!);
    times.push(performance.now() - t);
  }
  const layerSustained = sustained / (performance.now() - started);
  const bareSustained = await rate('bare', sustained);
  console.log(`layer-checkpoint-ms: ${(Math.max(...times) - median(times)).toFixed(0)}`);
  console.log(`sustained-throughput-ratio: ${(layerSustained / bareSustained).toFixed(2)}`);

  // One park and its end: A writes and goes idle, B's statement parks A, A commits.
  const other = await engine.openSession();
  const parkCommit: number[] = [];
  for (let i = 0; i < 30; i++) {
    await session.query(`BEGIN; UPDATE jobs SET status = 'running' WHERE id = ${i + 1}`);
    const started = performance.now();
    await other.query('SELECT 1');
    await session.query('COMMIT');
    parkCommit.push(performance.now() - started);
  }
  console.log(`park-commit-ms: ${median(parkCommit).toFixed(1)}`);
  await engine.close();
  await bare.close();
}
