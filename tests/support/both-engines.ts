// The pair every fidelity test compares: PGlite through the session layer and a real
// PostgreSQL 18, started with the same settings for the tests of one `describe`.
import { afterAll, beforeAll } from 'vitest';
import { createNodePgliteEngine } from '../../src/engine/pglite/node';
import { startTestServer, type TestServer } from '../../src/engine/server/server';
import type { Engine, Notice } from '../../src/engine/types';

/** Starts both engines before the tests and stops them after; read them in the tests. */
export function bothEngines(settings: Record<string, string> = {}): {
  server: TestServer;
  pglite: Engine;
} {
  const engines = {} as { server: TestServer; pglite: Engine };
  beforeAll(async () => {
    [engines.server, engines.pglite] = await Promise.all([
      startTestServer(settings),
      createNodePgliteEngine(settings),
    ]);
  });
  afterAll(async () => {
    await engines.pglite?.close();
    await engines.server?.stop();
  });
  return engines;
}

/** The `tuples:` line of VACUUM (VERBOSE) for the table itself (its toast table comes later). */
export function vacuumTuples(notices: Notice[]): string | undefined {
  return notices.flatMap((n) => n.message.split('\n')).find((line) => line.startsWith('tuples:'));
}
