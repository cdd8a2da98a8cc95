import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advisoryCalls } from '../../../src/engine/pglite/advisory';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import { NotExpressibleError, type Engine, type Session } from '../../../src/engine/types';

describe('advisoryCalls', () => {
  it('reads exclusive session-level calls with literal keys, in order', () => {
    expect(
      advisoryCalls(
        'SELECT pg_advisory_lock(0), pg_try_advisory_lock(1, -2), pg_advisory_unlock( 0 )',
      ),
    ).toEqual([
      { fn: 'lock', key: '0' },
      { fn: 'try', key: '1,-2' },
      { fn: 'unlock', key: '0' },
    ]);
    expect(advisoryCalls('SELECT pg_advisory_unlock_all()')).toEqual([
      { fn: 'unlock_all', key: '' },
    ]);
  });

  it('leaves out transaction-level calls and gives up on shared locks or computed keys', () => {
    expect(advisoryCalls('SELECT pg_advisory_xact_lock(5)')).toEqual([]);
    expect(advisoryCalls('SELECT pg_advisory_lock_shared(5)')).toBeNull();
    expect(advisoryCalls('SELECT pg_advisory_lock(id) FROM jobs')).toBeNull();
  });
});

describe('session-level advisory locks on one backend', () => {
  let engine: Engine;
  let a: Session;
  let b: Session;
  const refusal = (s: Session, sql: string) =>
    s.query(sql).then(
      () => 'ran',
      (e: unknown) => (e instanceof NotExpressibleError ? e.message : String(e)),
    );

  beforeEach(async () => {
    engine = await createNodePgliteEngine();
    a = await engine.openSession({ applicationName: 'worker-a' });
    b = await engine.openSession({ applicationName: 'worker-b' });
  });
  afterEach(() => engine.close());

  it('stay with the session that took them', async () => {
    expect((await a.query('SELECT pg_advisory_lock(7)')).results[0]!.rows).toEqual([['']]);
    expect(await refusal(b, 'SELECT 1 WHERE pg_advisory_lock(7) IS NOT NULL')).toMatch(
      /would wait, part-way through, for advisory lock 7 that worker-a \(pid \d+\) holds/,
    );
    expect(await refusal(b, 'SELECT pg_try_advisory_lock(7)')).toMatch(
      /would answer true where a server answers false/,
    );
    // The holder may take it again; another key is free for anyone.
    expect(await refusal(a, 'SELECT pg_advisory_lock(7)')).toBe('ran');
    expect(await refusal(b, 'SELECT pg_advisory_lock(8)')).toBe('ran');
  });

  it('make a lone pg_advisory_lock wait until every hold is given back, or the holder closes', async () => {
    await a.query('SELECT pg_advisory_lock(7); SELECT pg_advisory_lock(7)');
    await a.query('SELECT pg_advisory_unlock(7)');
    let done = false;
    const waiting = refusal(b, 'SELECT pg_advisory_lock(7)').finally(() => (done = true));
    const watcher = await engine.openSession();
    const { results } = await watcher.query(
      "SELECT wait_event_type, wait_event FROM pg_stat_activity WHERE application_name = 'worker-b'",
    );
    expect(results[0]!.rows).toEqual([['Lock', 'advisory']]);
    expect(done).toBe(false);
    expect((await a.query('SELECT pg_advisory_unlock(7)')).results[0]!.rows).toEqual([['t']]);
    expect(await waiting).toBe('ran');
    const again = refusal(a, 'SELECT pg_advisory_lock(7)');
    await b.close();
    expect(await again).toBe('ran');
  });

  it('follow a prepared statement to where it is executed', async () => {
    await a.query('PREPARE take AS SELECT pg_advisory_lock(9)');
    expect(await refusal(b, 'SELECT pg_advisory_lock(9)')).toBe('ran');
    expect(await refusal(a, 'BEGIN; EXECUTE take; COMMIT')).toMatch(
      /would wait, part-way through, for advisory lock 9 that worker-b/,
    );
  });
});
