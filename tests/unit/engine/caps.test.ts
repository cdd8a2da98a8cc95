// A result far larger than what is kept streams through the worker: the rows past the cap
// are counted from their headers and dropped as they arrive (backend.ts), so the answer
// that crosses to the page holds the first rows and PostgreSQL's count of the rest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import type { WorkerEngine } from '../../../src/engine/pglite/worker-engine';
import { answerCaps, type Session } from '../../../src/engine/types';

describe('a result of millions of rows', { timeout: 180_000 }, () => {
  let engine: WorkerEngine;
  let s: Session;
  beforeAll(async () => {
    engine = await createNodePgliteEngine();
    s = await engine.openSession({ applicationName: 'reader' });
  });
  afterAll(() => engine.close());

  it('keeps the first thousand rows and PostgreSQL’s count of them all', async () => {
    const { results } = await s.query('SELECT generate_series(1, 3000000)');
    const [result] = results;
    expect(result!.rowCount).toBe(3_000_000);
    expect(result!.rows).toHaveLength(answerCaps.rows);
    expect(result!.rows.at(-1)).toEqual([String(answerCaps.rows)]);
    expect(result!.rowsOmitted).toEqual({ count: 3_000_000 - answerCaps.rows, cap: 'rows' });
    // The answer that crossed from the worker is small.
    expect(JSON.stringify(results).length).toBeLessThan(100_000);
  });

  it('keeps each statement’s first rows when a query string has several', async () => {
    const { results } = await s.query(
      'SELECT generate_series(1, 5000); SELECT 1 AS one; SELECT generate_series(1, 10)',
    );
    expect(results.map((r) => [r.rows.length, r.rowCount, r.rowsOmitted?.count ?? 0])).toEqual([
      [1000, 5000, 4000],
      [1, 1, 0],
      [10, 10, 0],
    ]);
  });
});
