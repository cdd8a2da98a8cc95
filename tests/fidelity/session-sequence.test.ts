// currval() and lastval() are a session's own on a server: what its last nextval() gave.
// PGlite's one backend keeps one last value per sequence for every session it serves, so
// once another session's statements have run there, they are refused, never answered.
import { describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../src/engine/pglite/node';
import type { Engine } from '../../src/engine/types';
import { answer, kindOf } from '../support/answer';
import { bothEngines } from '../support/both-engines';

async function twoSessions(engine: Engine) {
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  await a.query('DROP SEQUENCE IF EXISTS ticket; CREATE SEQUENCE ticket');
  const got = [await answer(a, "SELECT nextval('ticket')")];
  got.push(await answer(b, "SELECT nextval('ticket')"));
  got.push(await answer(a, "SELECT currval('ticket')"));
  got.push(await answer(a, 'SELECT lastval()'));
  await a.close();
  await b.close();
  return got;
}

/**
 * The API's upload: a row, then a row that refers to it by currval(), right after, while
 * another session draws from the same sequence; and currval() after an unrelated INSERT.
 */
async function afterInsert(engine: Engine) {
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  await a.query(
    'DROP TABLE IF EXISTS parcel, label, note; CREATE TABLE parcel (id serial PRIMARY KEY, name text); ' +
      'CREATE TABLE label (id serial PRIMARY KEY, parcel int); CREATE TABLE note (body text)',
  );
  await b.query("INSERT INTO parcel (name) VALUES ('b0')");
  const inBlock = await answer(
    a,
    "BEGIN; INSERT INTO parcel (name) VALUES ('a1'); " +
      "INSERT INTO label (parcel) VALUES (currval('parcel_id_seq')) RETURNING parcel, lastval(); COMMIT",
  );
  await b.query("INSERT INTO parcel (name) VALUES ('b1')");
  const implicit = await answer(
    a,
    "INSERT INTO parcel (name) VALUES ('a2'); SELECT currval('parcel_id_seq')",
  );
  await b.query("INSERT INTO parcel (name) VALUES ('b2')");
  const unrelated = await answer(
    a,
    "INSERT INTO note (body) VALUES ('x'); SELECT currval('parcel_id_seq')",
  );
  await a.close();
  await b.close();
  return { inBlock, implicit, unrelated };
}

describe('currval() and lastval() with several sessions', () => {
  const engines = bothEngines();

  it('answer the session’s own last value on a server, and are refused on PGlite', async () => {
    expect(await twoSessions(engines.server.engine)).toEqual([[['1']], [['2']], [['1']], [['1']]]);
    const [first, second, currval, lastval] = await twoSessions(engines.pglite);
    expect([first, second]).toEqual([[['1']], [['2']]]);
    expect([kindOf(currval), kindOf(lastval)]).toEqual(['session-sequence', 'session-sequence']);
  });

  it('answer as on a server right after the session’s own INSERT drew the value', async () => {
    expect(await afterInsert(engines.server.engine)).toEqual({
      inBlock: [],
      implicit: [['4']],
      unrelated: [['4']],
    });
    const onPglite = await afterInsert(engines.pglite);
    expect([onPglite.inBlock, onPglite.implicit]).toEqual([[], [['4']]]);
    expect(kindOf(onPglite.unrelated)).toBe('session-sequence');
  });

  it('after the session’s own INSERT failed, are refused on PGlite: it may have failed before it drew', async () => {
    const failed = async (engine: Engine) => {
      const a = await engine.openSession({ applicationName: 'a' });
      const b = await engine.openSession({ applicationName: 'b' });
      await a.query('DROP TABLE IF EXISTS slip; CREATE TABLE slip (id serial PRIMARY KEY, v int)');
      await b.query('INSERT INTO slip (v) VALUES (1)');
      // 1/0 is folded while the INSERT is planned: its default never runs.
      const got = [await answer(a, 'INSERT INTO slip (v) VALUES (1/0)')];
      got.push(await answer(a, "SELECT currval('slip_id_seq')"));
      await a.close();
      await b.close();
      return got;
    };
    const division = '22012 division by zero';
    expect(await failed(engines.server.engine)).toEqual([
      division,
      '55000 currval of sequence "slip_id_seq" is not yet defined in this session',
    ]);
    const [insert, currval] = await failed(engines.pglite);
    expect(insert).toBe(division);
    expect(kindOf(currval)).toBe('session-sequence');
  });

  it('a sequence that caches gives each session its own values on a server; PGlite refuses a draw it cannot give', async () => {
    const cached = async (engine: Engine) => {
      const a = await engine.openSession({ applicationName: 'a' });
      const b = await engine.openSession({ applicationName: 'b' });
      await a.query('DROP SEQUENCE IF EXISTS stack; CREATE SEQUENCE stack CACHE 5');
      const got = [
        await answer(a, "SELECT nextval('stack')"),
        await answer(b, "SELECT nextval('stack')"),
        await answer(a, "SELECT nextval('stack')"),
      ];
      await a.query('DROP SEQUENCE stack');
      await a.close();
      await b.close();
      return got;
    };
    expect(await cached(engines.server.engine)).toEqual([[['1']], [['6']], [['2']]]);
    const [first, other, again] = await cached(engines.pglite);
    // The other session draws afresh, as its own backend would.
    expect([first, other]).toEqual([[['1']], [['6']]]);
    expect(kindOf(again)).toBe('sequence-cache');
  });

  it('answer as on a server while one session alone has used the backend', async () => {
    const alone = await createNodePgliteEngine();
    try {
      for (const engine of [engines.server.engine, alone]) {
        const s = await engine.openSession({ applicationName: 'alone' });
        await s.query('DROP SEQUENCE IF EXISTS stub; CREATE SEQUENCE stub START 5');
        const got = [
          await answer(s, "SELECT currval('stub')"),
          await answer(s, "SELECT nextval('stub'), currval('stub'), lastval()"),
        ];
        await s.close();
        expect(got).toEqual([
          '55000 currval of sequence "stub" is not yet defined in this session',
          [['5', '5', '5']],
        ]);
      }
    } finally {
      await alone.close();
    }
  });
});
