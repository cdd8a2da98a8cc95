// Bare PGlite in a worker thread, booted as the engine's worker boots it (serve.ts), for
// bench/session-layer.ts: each message runs one statement, with no session layer, so
// the layer's figure and this one both pay for crossing to a thread and back.
import '../scripts/resolve-ts.ts';
import { parentPort } from 'node:worker_threads';
import type { BootArtifacts } from '../src/engine/pglite/messages.ts';

const { bootPglite } = await import('../src/engine/pglite/serve.ts');

/** Bench thread → bare worker; every message has a `type` and a `callId`. */
export type BareRequest =
  | { type: 'boot'; callId: number; artifacts: BootArtifacts }
  | { type: 'exec'; callId: number; sql: string };

/**
 * Bare worker → bench thread: the request with this `callId` is done, with what PGlite
 * returned (sent back as the engine's worker sends its results), or failed.
 */
export type BareReply = { callId: number; value?: unknown; error?: string };

const port = parentPort!;
let db: Awaited<ReturnType<typeof bootPglite>> | undefined;

port.on('message', (request: BareRequest) => {
  const done =
    request.type === 'boot'
      ? bootPglite(request.artifacts).then((booted) => void (db = booted))
      : db!.exec(request.sql);
  done.then(
    (value) => port.postMessage({ callId: request.callId, value } satisfies BareReply),
    (error: unknown) => port.postMessage({ callId: request.callId, error: String(error) }),
  );
});
