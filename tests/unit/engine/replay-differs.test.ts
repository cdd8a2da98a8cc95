// The last guard of a replay (resume.ts): a parked transaction goes on by being rolled back
// and run again, and its statements must answer as they did. Here PostgreSQL is changed
// behind the layer's back, as by something the layer did not foresee: the transaction
// that held a row the claim skipped is rolled back directly, so the checks made before
// the replay find nothing, and only the answers show it.
import type { PGlite } from '@electric-sql/pglite';
import { afterEach, expect, it } from 'vitest';
import { makeEngineApi } from '../../../src/engine/pglite/core';
import { startNodePglite } from '../../../src/engine/pglite/node';
import type { OpenReply, QueryReply } from '../../../src/engine/pglite/sessions';

let db: PGlite | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

it('a replay that answers differently is refused as replay-differs, and the block is aborted', async () => {
  db = await startNodePglite();
  const api = makeEngineApi(db);
  const open = async (name: string) => {
    const reply: OpenReply = await api.openSession({ applicationName: name });
    if (!reply.ok) throw new Error('no seat');
    return reply.id;
  };
  const [a, b, c] = [await open('a'), await open('b'), await open('c')];
  const answer = async (id: number, sql: string) => {
    const reply: QueryReply = await api.query(id, sql);
    if (reply.ok) return reply.result.results.at(-1)?.rows;
    return 'notExpressible' in reply ? reply.notExpressible.kind : reply.error.code;
  };
  await answer(
    c,
    'CREATE TABLE tray (id int PRIMARY KEY, v int); INSERT INTO tray VALUES (1, 0), (2, 0)',
  );
  await answer(b, 'BEGIN; SELECT id FROM tray WHERE id = 1 FOR UPDATE');
  expect(
    await answer(a, 'BEGIN; SELECT id FROM tray ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1'),
  ).toEqual([['2']]);
  // Both transactions parked, b's is rolled back where the layer does not look.
  await answer(c, 'SELECT 1');
  const prepared = await db.query('SELECT gid FROM sim.layer_prepared_xacts()');
  expect(prepared.rows).toHaveLength(2);
  const held = await db.query<{ gid: string }>(
    `SELECT p.gid FROM sim.layer_prepared_xacts() p, tray t
      WHERE t.id = 1 AND t.xmax::text = p.transaction::text`,
  );
  expect(held.rows).toHaveLength(1);
  await db.exec(`ROLLBACK PREPARED '${held.rows[0]!.gid}'`);
  expect(await answer(a, 'UPDATE tray SET v = 9 WHERE id = 2 RETURNING v')).toBe('replay-differs');
  expect(await answer(a, 'SELECT 1')).toBe('25P02');
  expect(await answer(a, 'ROLLBACK')).toEqual([]);
});
