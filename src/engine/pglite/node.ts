// A PGlite engine in the current Node thread, for tests, benchmarks and `npm run spec`.
// It serves the same API as the browser's worker, from the same prepared data directory.
import { PGlite } from '@electric-sql/pglite';
import { readFile } from 'node:fs/promises';
import type { Engine } from '../types';
import { apiSession, type CallApi } from './api-engine';
import { makeEngineApi } from './core';
import { ensureDataDir } from './datadir';
import type { Method } from './messages';
import { engineStartParams } from './settings';

/**
 * Starts PGlite from the prepared data directory (built first when it is missing), with
 * `settings` as extra `-c` flags (e.g. a small `max_connections`).
 */
export async function createNodePgliteEngine(
  settings: Record<string, string> = {},
): Promise<Engine> {
  const db = await startNodePglite(settings);
  const api = makeEngineApi(db);
  const call = ((method: Method, ...args: unknown[]) =>
    (api[method] as (...a: unknown[]) => Promise<unknown>)(...args)) as CallApi;
  return {
    kind: 'pglite',
    async openSession(options = {}) {
      const opened = await call('openSession', options);
      return apiSession(call, opened, () => !db.closed);
    },
    close: () => db.close(),
  };
}

/** A bare PGlite from the prepared data directory, as the worker starts it. */
export async function startNodePglite(settings: Record<string, string> = {}): Promise<PGlite> {
  const dataDir = await readFile((await ensureDataDir()).path);
  return PGlite.create({
    loadDataDir: new Blob([dataDir]),
    startParams: [
      ...engineStartParams,
      ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ],
  });
}
