// Statements whose rows cannot be checked before they are sent (MERGE, INSERT … ON
// CONFLICT, UPDATE … FROM, data-modifying WITH): on PGlite they are sent under the
// watchdog's eye (src/engine/pglite/sessions/run.ts) and, if they wait, run again under
// the recheck's rules (recheck.ts). Each sequence runs the same way on a real
// PostgreSQL 18: PGlite must answer as the server does, or refuse by kind, never differ.
import { describe, expect, it } from 'vitest';
import type { Engine, Session } from '../../src/engine/types';
import { answer, kindOf, within } from '../support/answer';
import { bothEngines } from '../support/both-engines';

/** Opens sessions `a` and `b` over a fresh `ledger` table with rows 1 to 3. */
async function scene(engine: Engine): Promise<Session[]> {
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  await a.query(
    'DROP TABLE IF EXISTS ledger; CREATE TABLE ledger (id int PRIMARY KEY, n int NOT NULL); ' +
      'INSERT INTO ledger SELECT g, 0 FROM generate_series(1, 3) g',
  );
  return [a, b];
}

const merge = (id: number) =>
  `MERGE INTO ledger l USING (SELECT ${id} AS id) s ON s.id = l.id ` +
  'WHEN MATCHED THEN UPDATE SET n = l.n + 100 ' +
  'WHEN NOT MATCHED THEN INSERT VALUES (s.id, 100)';

/** B's MERGE meets none of the rows A holds: it runs at once. */
async function mergeBesideHolder(engine: Engine) {
  const [a, b] = await scene(engine);
  await a!.query('BEGIN; UPDATE ledger SET n = 1 WHERE id = 1');
  const merged = await within(answer(b!, `${merge(2)} RETURNING l.id, l.n`), 5000);
  const upserted = await within(
    answer(b!, 'INSERT INTO ledger VALUES (4, 4) ON CONFLICT (id) DO UPDATE SET n = 9 RETURNING n'),
    5000,
  );
  await a!.query('COMMIT');
  const rows = await answer(b!, 'SELECT id, n FROM ledger ORDER BY id');
  await a!.close();
  await b!.close();
  return { merged, upserted, rows };
}

/**
 * A runs `holds` in a transaction; B sends `waits`, which meets what A holds; A ends with
 * `end`. B's answer before and after, and then what `read` finds.
 */
async function waitThrough(
  engine: Engine,
  { holds, waits, end, read }: { holds: string; waits: string; end: string; read: string },
) {
  const [a, b] = await scene(engine);
  await a!.query(`BEGIN; ${holds}`);
  const waiting = answer(b!, waits);
  // On PGlite the watchdog finds the wait after two seconds.
  const first = await within(waiting, 2500);
  await a!.query(end);
  const after = await within(waiting, 8000);
  const rows = await answer(a!, read);
  await a!.close();
  await b!.close();
  return { first, after, rows };
}

/** B's MERGE meets the row A holds: it waits, and goes on once A rolls back. */
const mergeWaitsForRollback = (engine: Engine) =>
  waitThrough(engine, {
    holds: 'UPDATE ledger SET n = 1 WHERE id = 1',
    waits: `${merge(1)} RETURNING l.id, l.n`,
    end: 'ROLLBACK',
    read: 'SELECT id, n FROM ledger ORDER BY id',
  });

/**
 * B's MERGE waits for the row A changes, and A commits: a server's recheck takes A's
 * version of the row and evaluates the WHEN clauses on it again.
 */
const mergeAfterCommit = (engine: Engine) =>
  waitThrough(engine, {
    holds: 'UPDATE ledger SET n = 50 WHERE id = 1',
    waits:
      'MERGE INTO ledger l USING (SELECT 1 AS id) s ON s.id = l.id ' +
      'WHEN MATCHED AND l.n < 10 THEN UPDATE SET n = -1 ' +
      'WHEN MATCHED THEN UPDATE SET n = l.n * 2 RETURNING l.id, l.n',
    end: 'COMMIT',
    read: 'SELECT id, n FROM ledger ORDER BY id',
  });

/**
 * B's MERGE finds no row 4 and would insert it, but A inserted one: a server's insertion
 * waits for A and then fails; run again, the MERGE would find A's row and update it.
 */
const mergeMeetsInsert = (engine: Engine) =>
  waitThrough(engine, {
    holds: 'INSERT INTO ledger VALUES (4, 4)',
    waits: merge(4),
    end: 'COMMIT',
    read: 'SELECT id, n FROM ledger WHERE id = 4',
  });

/**
 * A moves B's row to another partition and commits while B's UPDATE … FROM waits for it:
 * a server's recheck fails the update; run again, it would not find the row at all.
 */
async function rowMovedWhileWaiting(engine: Engine) {
  const setup = await engine.openSession();
  await setup.query(
    'DROP TABLE IF EXISTS shelves; CREATE TABLE shelves (k int, n int) PARTITION BY RANGE (k); ' +
      'CREATE TABLE shelves1 PARTITION OF shelves FOR VALUES FROM (0) TO (10); ' +
      'CREATE TABLE shelves2 PARTITION OF shelves FOR VALUES FROM (10) TO (20); ' +
      'INSERT INTO shelves VALUES (1, 0)',
  );
  const seen = await waitThrough(engine, {
    holds: 'UPDATE shelves SET k = 11 WHERE k = 1',
    waits:
      'UPDATE shelves SET n = n + 1 FROM (SELECT 1 AS k) s WHERE shelves.k = s.k RETURNING shelves.k',
    end: 'COMMIT',
    read: 'SELECT k, n FROM shelves ORDER BY k',
  });
  await setup.query('DROP TABLE shelves');
  await setup.close();
  return seen;
}

/**
 * A moves the row B's new row refers to into another partition and commits while B's
 * INSERT waits for it in its foreign key check: a server fails the check; run again, the
 * insert would find no row to refer to (a different error).
 */
async function referencedRowMoved(engine: Engine) {
  const setup = await engine.openSession();
  await setup.query(
    'DROP TABLE IF EXISTS slips, racks; CREATE TABLE racks (k int) PARTITION BY RANGE (k); ' +
      'CREATE TABLE racks1 PARTITION OF racks FOR VALUES FROM (0) TO (10); ' +
      'CREATE TABLE racks2 PARTITION OF racks FOR VALUES FROM (10) TO (20); ' +
      'CREATE UNIQUE INDEX ON racks1 (k); INSERT INTO racks VALUES (7); ' +
      'CREATE TABLE slips (k int REFERENCES racks1 (k))',
  );
  const seen = await waitThrough(engine, {
    holds: 'UPDATE racks SET k = 11 WHERE k = 7',
    waits: 'INSERT INTO slips VALUES (7)',
    end: 'COMMIT',
    read: 'SELECT k FROM racks ORDER BY k',
  });
  await setup.query('DROP TABLE slips, racks');
  await setup.close();
  return seen;
}

describe('statements checked only by sending them, on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('a MERGE or an upsert that meets no row another transaction holds runs at once', async () => {
    const expected = {
      merged: [['2', '100']],
      upserted: [['4']],
      rows: [
        ['1', '1'],
        ['2', '100'],
        ['3', '0'],
        ['4', '4'],
      ],
    };
    expect(await mergeBesideHolder(engines.server.engine)).toEqual(expected);
    expect(await mergeBesideHolder(engines.pglite)).toEqual(expected);
  });

  it('a MERGE that meets a held row waits, and goes on once the holder rolls back or commits', async () => {
    // Rolled back, row 1 is 0 and the MERGE adds 100; committed as 50, a server's recheck
    // evaluates the WHEN clauses on 50 and doubles it.
    const expected = {
      first: 'waiting',
      after: [['1', '100']],
      rows: [
        ['1', '100'],
        ['2', '0'],
        ['3', '0'],
      ],
    };
    for (const scenario of [mergeWaitsForRollback, mergeAfterCommit]) {
      expect(await scenario(engines.server.engine)).toEqual(expected);
      expect(await scenario(engines.pglite)).toEqual(expected);
    }
  }, 40_000);

  /**
   * Runs `scenario` on both engines: the server fails the statement that waited with
   * `failure`, PGlite refuses it as `recheck`, and both leave `rows`.
   */
  async function failsHereRefused(
    scenario: (engine: Engine) => Promise<{ first: unknown; after: unknown; rows: unknown }>,
    failure: string,
    rows: string[][],
  ) {
    expect(await scenario(engines.server.engine)).toEqual({
      first: 'waiting',
      after: failure,
      rows,
    });
    const onPglite = await scenario(engines.pglite);
    expect(onPglite.first).toBe('waiting');
    expect(kindOf(onPglite.after)).toBe('recheck');
    expect(onPglite.rows).toEqual(rows);
  }

  it('a MERGE whose insertion met the holder’s new row fails on a server, and is refused here', async () => {
    await failsHereRefused(
      mergeMeetsInsert,
      '23505 duplicate key value violates unique constraint "ledger_pkey"',
      [['4', '4']],
    );
  }, 30_000);

  it('a row moved to another partition while a statement waited fails it on a server, and is refused here', async () => {
    await failsHereRefused(
      rowMovedWhileWaiting,
      '40001 tuple to be locked was already moved to another partition due to concurrent update',
      [['11', '0']],
    );
  }, 30_000);

  it('a foreign key check that waited for a row moved to another partition fails on a server, and is refused here', async () => {
    await failsHereRefused(
      referencedRowMoved,
      '40001 tuple to be locked was already moved to another partition due to concurrent update',
      [['11']],
    );
  }, 30_000);
});
