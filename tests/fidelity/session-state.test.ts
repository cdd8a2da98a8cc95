// Session-level state that belongs to a backend: each session keeps its own on a server,
// and on PGlite's one backend the layer keeps it apart or says it cannot.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types';
import { answer } from '../support/answer';
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
});
