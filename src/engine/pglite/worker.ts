/// <reference lib="webworker" />
// The browser engine's Web Worker: PostgreSQL off the main thread (serve.ts), so a long
// statement never freezes the page.
import type { WorkerReply, WorkerRequest } from './messages';
import { makeWorkerServer } from './serve';

declare const self: DedicatedWorkerGlobalScope;

const serve = makeWorkerServer((reply: WorkerReply) => self.postMessage(reply));
self.onmessage = (event: MessageEvent<WorkerRequest>) => serve(event.data);
