import type { EngineApi } from './core';
import type { CheckpointLimits, JournalEntry, LayerCall, LayerCheckpoint } from './sessions';

/** A method of the engine API that the main thread calls. */
export type Method = Exclude<keyof EngineApi, 'invoke' | 'replay' | 'restore'>;

/**
 * What the worker needs to boot, obtained once per page (fetched and compiled) or once per
 * Node process (read from disk) by the thread that drives it.
 */
export interface BootArtifacts {
  /** pglite.wasm, compiled. */
  wasmModule: WebAssembly.Module;
  /** pglite.data: the files PostgreSQL needs besides its data directory. */
  fsBundle: Blob;
  /**
   * The prepared data directory (see scripts/build-datadir.ts): a tar, gzipped or not, as
   * Node reads the file, or the browser's bytes, gunzipped as they arrived (loader.ts).
   */
  dataDir: Blob | ArrayBuffer;
}

/**
 * Page → loader.ts: download the three files (their addresses, and their size as the build
 * measured it), then, for each later worker, a copy of the data directory.
 */
export type LoaderRequest =
  | {
      type: 'download';
      urls: { wasm: string; fsBundle: string; dataDir: string };
      /** The files' bytes on disk (astro.config.mjs), counted towards when a host compresses. */
      builtBytes: number;
    }
  | { type: 'copy' };

/** loader.ts → page: progress while the files download, then what a worker boots from. */
export type LoaderReply =
  | { type: 'progress'; loadedBytes: number; totalBytes: number }
  /** Every byte arrived; the WASM may still be compiling. */
  | { type: 'downloaded' }
  /** The data directory as bytes, handed over for the first worker's boot. */
  | { type: 'loaded'; artifacts: BootArtifacts & { dataDir: ArrayBuffer } }
  /** A copy of the data directory, handed over for a later worker's boot. */
  | { type: 'copy'; dataDir: ArrayBuffer }
  | { type: 'failed'; message: string };

/** What a replacement worker rebuilds after the watchdog (or Stop) ended a busy one. */
export interface Restore {
  /** Where to start: the last checkpoint, or the prepared data directory when there is none. */
  base?: LayerCheckpoint;
  /** Every call the old worker finished since `base`, in order. */
  journal: JournalEntry[];
  /** Reader statements (by number) that never came back: taken for lock waits. */
  stuck: number[];
  /** Reader statements (by number) the reader stopped: answered 57014, not sent again. */
  cancelled: number[];
}

/**
 * A journal entry as it crosses to the driving thread. A call that thread sent goes as its
 * `tag` (the request's callId) and time only: the thread has the call itself, so the SQL
 * does not cross twice. One the worker made (a timer's tick) goes whole.
 */
export type JournalNote = { tag: number; at: number } | JournalEntry;

/** Main thread → worker. Every message has a `type` and a `callId`. */
export type WorkerRequest =
  | {
      type: 'boot';
      callId: number;
      artifacts: BootArtifacts;
      /** Extra `-c` settings PostgreSQL starts with (e.g. a small `max_connections`). */
      settings?: Record<string, string>;
      /** When the journal is checkpointed, if not by default (tests). */
      checkpoints?: CheckpointLimits;
      restore?: Restore;
    }
  | {
      [M in Method]: { type: 'call'; callId: number; method: M; args: Parameters<EngineApi[M]> };
    }[Method];

/**
 * Worker → main thread: the answer to the request with the same `callId`, or news the
 * watchdog needs, tagged with the `callId` of the call it belongs to (0 for none). Each
 * carries the calls the worker journaled since its last message, which come before it:
 * the watchdog reads the journal only after a guarded statement, whose news carries every
 * call before it, so entries need no message of their own.
 */
export type WorkerReply = (
  | { type: 'done'; callId: number; value: unknown }
  | { type: 'failed'; callId: number; message: string }
  /** Reader statement `seq` is about to go to the backend (see `LayerWatch.statement`). */
  | { type: 'statement'; callId: number; seq: number; sessionId: number; guarded: boolean }
  /** Nothing but what it carries: statements ended with no other message to go with. */
  | { type: 'news'; callId: number }
  /** The journal so far is covered by `checkpoint`: a recovery starts there. */
  | { type: 'checkpoint'; callId: number; checkpoint: LayerCheckpoint }
) & {
  journal?: JournalNote[];
  /**
   * Reader statements (by number) that came back from the backend since the last message,
   * which come before it. An end waits for the next message (most often the call's answer,
   * a moment later) rather than crossing alone, so a statement costs the page two messages.
   */
  ended?: number[];
};

/**
 * About the size of a journaled call as JSON, counted on both sides of the worker (the
 * checkpoint's byte limit, the page's memory figure) for every call, so cheaply: a string
 * counts its length, a number a few bytes, anything else (a statement's parameters, a
 * session's options) its JSON.
 */
export function callBytes(call: LayerCall): number {
  let bytes = 32 + call.method.length;
  for (const arg of call.args as readonly unknown[]) {
    if (typeof arg === 'string') bytes += arg.length + 3;
    else if (typeof arg === 'number') bytes += 8;
    else bytes += JSON.stringify(arg ?? null).length + 1;
  }
  return bytes;
}
