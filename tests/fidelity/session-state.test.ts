// Session-level state that belongs to a backend: each session keeps its own on a server,
// and on PGlite's one backend the layer keeps it apart or says it cannot.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types';
import { answer, kindOf } from '../support/answer';
import { bothEngines } from '../support/both-engines';

async function preparedStatements(engine: Engine) {
  const [a, b] = [await engine.openSession(), await engine.openSession()];
  const answers = [
    await answer(a, "PREPARE who AS SELECT 'a''s'"),
    await answer(b, 'EXECUTE who'),
    await answer(b, "PREPARE who AS SELECT 'b''s'"),
    await answer(a, 'EXECUTE who'),
    await answer(b, 'EXECUTE who'),
    await answer(a, 'DEALLOCATE who'),
    await answer(b, 'EXECUTE who'),
    await answer(a, 'EXECUTE who'),
  ];
  await a.close();
  await b.close();
  return answers;
}

async function holdCursor(engine: Engine) {
  const [a, b] = [await engine.openSession(), await engine.openSession()];
  const answers = [
    await answer(a, 'DECLARE c CURSOR WITH HOLD FOR SELECT 1'),
    await answer(b, 'FETCH c'),
  ];
  await a.close();
  await b.close();
  return answers;
}

/**
 * What a session makes of the backend's own while it is the only one: a temporary table,
 * a cursor WITH HOLD, a LISTEN, random()'s seed. A session opened later has its own.
 */
async function madeWhileAlone(engine: Engine) {
  const a = await engine.openSession();
  await a.query(
    'CREATE TEMP TABLE alone_tmp (id int); INSERT INTO alone_tmp VALUES (1); ' +
      'DECLARE alone_cur CURSOR WITH HOLD FOR SELECT 7; LISTEN alone_channel; ' +
      'SELECT setseed(0.25)',
  );
  const b = await engine.openSession();
  const seen = {
    table: await answer(b, 'SELECT * FROM alone_tmp'),
    cursor: await answer(b, 'FETCH alone_cur'),
    channels: await answer(b, 'SELECT pg_listening_channels()'),
    drawn: await answer(b, 'SELECT random() >= 0'),
    other: await answer(b, 'SELECT 1'),
  };
  const own = {
    table: await answer(a, 'SELECT * FROM alone_tmp'),
    cursor: await answer(a, 'FETCH alone_cur'),
    drawn: await answer(a, 'SELECT round(random() * 1000000)'),
  };
  await a.close();
  await b.close();
  return { seen, own };
}

/**
 * A session's prepared statement after another session changed what it reads: a server
 * checks it again as it runs; PGlite makes it again when the session gets the backend back.
 */
async function preparedAfterChange(engine: Engine, change: string) {
  const [a, b] = [await engine.openSession(), await engine.openSession()];
  await a.query(
    'DROP TABLE IF EXISTS shelf_p; CREATE TABLE shelf_p (id int PRIMARY KEY, v int); INSERT INTO shelf_p VALUES (1, 1)',
  );
  const answers = [
    await answer(a, 'PREPARE look AS SELECT * FROM shelf_p WHERE id = 1'),
    await answer(a, 'EXECUTE look'),
    await answer(b, change),
    await answer(a, 'EXECUTE look'),
    await answer(a, 'SELECT name FROM pg_prepared_statements'),
    await answer(a, 'DEALLOCATE look'),
  ];
  await a.query('DROP TABLE IF EXISTS shelf_p');
  await a.close();
  await b.close();
  return answers;
}

describe('session-level state on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('a prepared statement belongs to the session that prepared it', async () => {
    const expected = [
      [],
      '26000 prepared statement "who" does not exist',
      [],
      [["a's"]],
      [["b's"]],
      [],
      [["b's"]],
      '26000 prepared statement "who" does not exist',
    ];
    expect(await preparedStatements(engines.server.engine)).toEqual(expected);
    expect(await preparedStatements(engines.pglite)).toEqual(expected);
  });

  it('a prepared statement whose table changed fails as on a server, or is refused', async () => {
    const changes = {
      'ALTER TABLE shelf_p ADD COLUMN w int': '0A000 cached plan must not change result type',
      'DROP TABLE shelf_p': '42P01 relation "shelf_p" does not exist',
      'UPDATE shelf_p SET v = 2': [['1', '2']],
    };
    for (const [change, executed] of Object.entries(changes)) {
      const onServer = await preparedAfterChange(engines.server.engine, change);
      expect(onServer[3], change).toEqual(executed);
      expect(onServer[4]).toEqual([['look']]);
      const onPglite = await preparedAfterChange(engines.pglite, change);
      expect(onPglite.slice(0, 3), change).toEqual(onServer.slice(0, 3));
      // Made again, its counts and prepare_time are new: the view is refused.
      expect(kindOf(onPglite[4]), change).toBe('prepared-remade');
      if (typeof executed === 'string') {
        expect(kindOf(onPglite[3]), change).toBe('prepared-remade');
        expect(kindOf(onPglite[5]), change).toBe('prepared-remade');
      } else {
        expect([onPglite[3], onPglite[5]], change).toEqual([onServer[3], onServer[5]]);
      }
    }
  });

  it('a cursor WITH HOLD is the session’s on a server, and named not expressible on PGlite', async () => {
    expect(await holdCursor(engines.server.engine)).toEqual([
      [],
      '34000 cursor "c" does not exist',
    ]);
    const [declared] = await holdCursor(engines.pglite);
    expect(declared).toMatch(
      /^not expressible \(backend-wide-object\): cursors WITH HOLD and LISTEN belong to the backend/,
    );
  });

  it('a temporary table, a cursor WITH HOLD, LISTEN and a seed made while alone stay the maker’s', async () => {
    const onServer = await madeWhileAlone(engines.server.engine);
    expect(onServer).toEqual({
      seen: {
        table: '42P01 relation "alone_tmp" does not exist',
        cursor: '34000 cursor "alone_cur" does not exist',
        channels: [],
        drawn: [['t']],
        other: [['1']],
      },
      own: { table: [['1']], cursor: [['7']], drawn: [['197264']] },
    });
    const onPglite = await madeWhileAlone(engines.pglite);
    expect({
      table: kindOf(onPglite.seen.table),
      cursor: kindOf(onPglite.seen.cursor),
      channels: kindOf(onPglite.seen.channels),
      drawn: kindOf(onPglite.seen.drawn),
    }).toEqual({
      table: 'temporary-object',
      cursor: 'backend-wide-object',
      channels: 'backend-wide-object',
      drawn: 'shared-random',
    });
    expect(onPglite.seen.other).toEqual(onServer.seen.other);
    expect(onPglite.own).toEqual(onServer.own);
  });
});
