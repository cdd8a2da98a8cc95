// Names a reader qualifies with pg_catalog still reach the simulated sessions: qualified,
// they would skip the search path and answer for PGlite's one real backend.
import { afterEach, describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import { toSimNames } from '../../../src/engine/pglite/sim-schema';
import type { WorkerEngine } from '../../../src/engine/pglite/worker-engine';

describe('pg_catalog-qualified names the sim schema shadows', () => {
  let engine: WorkerEngine;
  afterEach(() => engine?.close());

  it('are pointed at sim, and nothing else is', () => {
    expect(toSimNames('SELECT pg_catalog.pg_cancel_backend(4)')).toBe(
      'SELECT sim.pg_cancel_backend(4)',
    );
    expect(toSimNames('SELECT "pg_catalog"."pg_backend_pid"()')).toBe(
      'SELECT sim.pg_backend_pid()',
    );
    for (const other of ['SELECT pg_catalog.now()', 'SELECT x.pg_catalog.pg_stat_activity_x'])
      expect(toSimNames(other)).toBe(other);
  });

  it('show the reader’s sessions and signal them, as the unqualified names do', async () => {
    engine = await createNodePgliteEngine({}, { watchdogMs: 500 });
    const worker = await engine.openSession({ applicationName: 'worker-07' });
    const you = await engine.openSession({ applicationName: 'you' });
    await worker.query('CREATE TABLE jobs (id int); BEGIN; INSERT INTO jobs VALUES (1)');
    const seen = await you.query(
      `SELECT pid, state FROM pg_catalog.pg_stat_activity WHERE application_name = 'worker-07'`,
    );
    expect(seen.results[0]!.rows).toEqual([[String(worker.pid), 'idle in transaction']]);
    // The worker's transaction is parked, prepared in the backend; a server prepared none.
    for (const shown of ['pg_catalog.pg_prepared_xact()', 'pg_catalog.pg_prepared_xacts']) {
      const prepared = await you.query(`SELECT count(*) FROM ${shown}`);
      expect(prepared.results[0]!.rows).toEqual([['0']]);
    }
    const layer = await you.query('SELECT count(*) FROM sim.layer_prepared_xacts()');
    expect(layer.results[0]!.rows).toEqual([['1']]);
    const own = await you.query('SELECT pg_catalog.pg_backend_pid()');
    expect(own.results[0]!.rows).toEqual([[String(you.pid)]]);
    const ended = await you.query(`SELECT pg_catalog.pg_terminate_backend(${worker.pid})`);
    expect(ended.results[0]!.rows).toEqual([['t']]);
    await expect(worker.query('SELECT 1')).rejects.toMatchObject({ code: '57P01' });
  });
});
