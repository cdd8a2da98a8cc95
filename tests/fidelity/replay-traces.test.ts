// A parked transaction goes on by being rolled back and run again: PostgreSQL sees its
// statements twice, and the rows the rolled-back original wrote stay behind as dead row
// versions. A server ran it once. What would show that is refused; the rest is answered
// as on a server.
import { describe, expect, it } from 'vitest';
import { NotExpressibleError, type Engine } from '../../src/engine/types';
import { answer, kindOf } from '../support/answer';
import { bothEngines, vacuumTuples } from '../support/both-engines';

/** VACUUM (VERBOSE)'s tuples line, or the refusal's kind. */
async function vacuumed(s: Awaited<ReturnType<Engine['openSession']>>, table: string) {
  try {
    return vacuumTuples((await s.query(`VACUUM (VERBOSE) ${table}`)).notices);
  } catch (e) {
    if (e instanceof NotExpressibleError) return e.kind;
    throw e;
  }
}

/** A updates rows, B reads, A updates more (on PGlite, a replay) and commits. */
async function afterReplay(engine: Engine) {
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  await a.query(
    'DROP TABLE IF EXISTS trace_ledger, trace_other; ' +
      'CREATE TABLE trace_ledger (id int PRIMARY KEY, v int) WITH (autovacuum_enabled = off); ' +
      'INSERT INTO trace_ledger SELECT g, 0 FROM generate_series(1, 10) g; ' +
      'CREATE TABLE trace_other (id int) WITH (autovacuum_enabled = off); ' +
      'INSERT INTO trace_other VALUES (1), (2); DELETE FROM trace_other WHERE id = 1',
  );
  await a.query('BEGIN');
  await a.query('UPDATE trace_ledger SET v = 1 WHERE id <= 3');
  const read = await answer(b, 'SELECT count(*) FROM trace_ledger');
  await a.query('UPDATE trace_ledger SET v = 2 WHERE id = 4');
  await a.query('COMMIT');
  const got = {
    read,
    rows: await answer(b, 'SELECT id, v FROM trace_ledger WHERE v > 0 ORDER BY id'),
    dead: kindOf(
      await answer(b, "SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'trace_ledger'"),
    ),
    ctid: kindOf(await answer(b, 'SELECT ctid FROM trace_ledger WHERE id = 1')),
    costs: kindOf(await answer(b, 'EXPLAIN SELECT * FROM trace_ledger')),
    plan: await answer(b, 'EXPLAIN (COSTS OFF) SELECT * FROM trace_ledger WHERE id = 2'),
    other: await vacuumed(b, 'trace_other'),
    ledger: await vacuumed(b, 'trace_ledger'),
  };
  // A VACUUM frees the room the rolled-back rows took, where new rows may go.
  await b.query('VACUUM trace_ledger');
  await b.query('INSERT INTO trace_ledger VALUES (11, 0), (12, 0)');
  const listed = await answer(b, 'SELECT id FROM trace_ledger WHERE id > 10');
  await a.close();
  await b.close();
  return { ...got, listed: kindOf(listed) };
}

/** B updates a row while A's transaction, which updated another, is parked on PGlite. */
async function scansBeside(engine: Engine) {
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  await a.query(
    'DROP TABLE IF EXISTS trace_scans; CREATE TABLE trace_scans (id int PRIMARY KEY, v int); ' +
      'INSERT INTO trace_scans SELECT g, 0 FROM generate_series(1, 10) g',
  );
  await a.query('BEGIN');
  await a.query('UPDATE trace_scans SET v = 1 WHERE id = 1');
  await b.query('UPDATE trace_scans SET v = 2 WHERE id = 2');
  await a.query('COMMIT');
  for (const s of [a, b]) await s.query('SELECT pg_stat_force_next_flush()');
  const got = await answer(
    b,
    "SELECT seq_scan + idx_scan FROM pg_stat_user_tables WHERE relname = 'trace_scans'",
  );
  await a.close();
  await b.close();
  return got;
}

/** A's replay writes row 3 again after B's committed row 5; then rows are listed. */
async function listedAfter(engine: Engine) {
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  await a.query(
    'DROP TABLE IF EXISTS trace_order CASCADE; CREATE TABLE trace_order (id int PRIMARY KEY, tag text); ' +
      "INSERT INTO trace_order SELECT g, 'a' FROM generate_series(1, 6) g; " +
      "CREATE VIEW trace_marked AS SELECT id FROM trace_order WHERE tag = 'x'",
  );
  await a.query("BEGIN; UPDATE trace_order SET tag = 'x' WHERE id = 3");
  await b.query("UPDATE trace_order SET tag = 'x' WHERE id = 5");
  const got = {
    ordered: await answer(a, "SELECT id FROM trace_order WHERE tag = 'x' ORDER BY id"),
    counted: await answer(a, "SELECT count(*) FROM trace_order WHERE tag = 'x'"),
    asTheyLie: kindOf(await answer(a, "SELECT id FROM trace_order WHERE tag = 'x'")),
    // Tied on tag, rows fall in the order they lie; broken by the key, they do not.
    tied: kindOf(await answer(a, 'SELECT id FROM trace_order WHERE id IN (3, 5) ORDER BY tag')),
    untied: await answer(a, 'SELECT id FROM trace_order WHERE id IN (3, 5) ORDER BY tag, id'),
    // Whatever else follows the order rows are met in: an aggregate, an alias, a view.
    joined: kindOf(
      await answer(a, "SELECT string_agg(id::text, ',') FROM trace_order WHERE tag = 'x'"),
    ),
    alias: kindOf(
      await answer(a, "SELECT id AS n, tag AS id FROM trace_order WHERE tag = 'x' ORDER BY id"),
    ),
    view: kindOf(await answer(a, 'SELECT * FROM trace_marked')),
    oneByKey: await answer(a, "UPDATE trace_order SET tag = 'y' WHERE id = 3 RETURNING id, tag"),
  };
  await a.query('COMMIT');
  await a.query('DROP VIEW trace_marked');
  await a.close();
  await b.close();
  return got;
}

/** A's replay writes row 1 again after B's row 2, and `sql` is what makes A go on. */
async function firstAfterReplay(engine: Engine, sql: string) {
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  await a.query(
    'DROP TABLE IF EXISTS trace_first; CREATE TABLE trace_first (id int PRIMARY KEY, s text); ' +
      "INSERT INTO trace_first SELECT g, 'q' FROM generate_series(1, 3) g",
  );
  await a.query("BEGIN; UPDATE trace_first SET s = 'r' WHERE id = 1");
  await b.query("UPDATE trace_first SET s = 'r' WHERE id = 2");
  const got = await answer(a, sql);
  await a.query('ROLLBACK');
  await a.close();
  await b.close();
  return got;
}

describe('what a replay leaves behind', () => {
  const engines = bothEngines();

  it('counts no scans a server never made: refused once the layer read a parked table', async () => {
    expect(await scansBeside(engines.server.engine)).toEqual([[expect.stringMatching(/^\d+$/)]]);
    expect(kindOf(await scansBeside(engines.pglite))).toBe('replay-traces');
  });

  it.each([
    ["SELECT id FROM trace_first WHERE s = 'r'", 'listed'],
    ["UPDATE trace_first SET s = 't' WHERE s = 'r' RETURNING id", 'returned'],
    ["SELECT id FROM trace_first WHERE s = 'r' ORDER BY id", 'ordered'],
  ])('the statement that makes it go on is asked about too: %s', async (sql, shape) => {
    const onServer = await firstAfterReplay(engines.server.engine, sql);
    expect(onServer).toEqual([['1'], ['2']]);
    const onPglite = await firstAfterReplay(engines.pglite, sql);
    if (shape === 'ordered') expect(onPglite).toEqual(onServer);
    else expect(kindOf(onPglite)).toBe('replay-traces');
  });

  it('lists rows a replay wrote after others’ only in an order asked for, with no ties', async () => {
    const server = await listedAfter(engines.server.engine);
    expect(server).toEqual({
      ordered: [['3'], ['5']],
      counted: [['2']],
      asTheyLie: [['3'], ['5']],
      tied: [['3'], ['5']],
      untied: [['3'], ['5']],
      joined: [['3,5']],
      alias: [
        ['3', 'x'],
        ['5', 'x'],
      ],
      view: [['3'], ['5']],
      oneByKey: [['3', 'y']],
    });
    expect(await listedAfter(engines.pglite)).toEqual({
      ...server,
      asTheyLie: 'replay-traces',
      tied: 'replay-traces',
      joined: 'replay-traces',
      alias: 'replay-traces',
      view: 'replay-traces',
    });
  });

  it('is refused where it would show, and the rest answered as on a server', async () => {
    const server = await afterReplay(engines.server.engine);
    expect(server.ledger).toMatch(/^tuples: 4 removed, 10 remain/);
    expect(server.other).toMatch(/^tuples: 1 removed, 1 remain/);
    expect(server.listed).toEqual([['11'], ['12']]);
    expect(server.ctid).toEqual([['(0,11)']]);
    expect(server.plan).toEqual([
      ['Index Scan using trace_ledger_pkey on trace_ledger'],
      ['  Index Cond: (id = 2)'],
    ]);
    const pglite = await afterReplay(engines.pglite);
    expect(pglite).toEqual({
      read: server.read,
      rows: server.rows,
      dead: 'replay-traces',
      ctid: 'replay-traces',
      costs: 'replay-traces',
      plan: server.plan,
      other: server.other,
      ledger: 'replay-traces',
      listed: 'replay-traces',
    });
  });
});
