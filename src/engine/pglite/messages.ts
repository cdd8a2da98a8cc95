import type { EngineApi } from './core';

/** A method of the engine API that the worker serves. */
export type Method = keyof EngineApi;

/** What the worker needs to boot, fetched and compiled once per page by the main thread. */
export interface BootArtifacts {
  /** pglite.wasm, compiled. */
  wasmModule: WebAssembly.Module;
  /** pglite.data: the files PostgreSQL needs besides its data directory. */
  fsBundle: Blob;
  /** The prepared data directory (see scripts/build-datadir.ts), gzipped tar. */
  dataDir: Blob;
}

/** Main thread → worker. Every message has a `type` and a `callId`. */
export type WorkerRequest =
  | { type: 'boot'; callId: number; artifacts: BootArtifacts }
  | {
      [M in Method]: { type: 'call'; callId: number; method: M; args: Parameters<EngineApi[M]> };
    }[Method];

/** Worker → main thread: the answer to the request with the same `callId`. */
export type WorkerReply =
  | { type: 'done'; callId: number; value: unknown }
  | { type: 'failed'; callId: number; message: string };
