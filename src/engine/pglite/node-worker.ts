// The Node engine's worker thread: PostgreSQL off the thread that drives it (serve.ts),
// so a statement that spins on a lock cannot hang the process. A worker thread does not
// share its parent's module hooks, so the resolve hook that lets Node run src/ comes
// first, and src/ modules load after it, with import().
import '../../../scripts/resolve-ts.ts';
import { parentPort } from 'node:worker_threads';

const { makeWorkerServer } = await import('./serve.ts');
const port = parentPort!;
const serve = makeWorkerServer((reply) => port.postMessage(reply));
port.on('message', serve);
