// pg_stat_activity read through the reader's own view or function, which the statement
// does not name: the layer fills the session table in for it all the same.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types';
import { answer } from '../support/answer';
import { bothEngines } from '../support/both-engines';

async function throughOwnObjects(engine: Engine): Promise<unknown[]> {
  const [owner, a, b] = [
    await engine.openSession({ applicationName: 'owner' }),
    await engine.openSession({ applicationName: 'a' }),
    await engine.openSession({ applicationName: 'b' }),
  ];
  await owner.query(
    'DROP VIEW IF EXISTS who; DROP FUNCTION IF EXISTS idle_in_transaction(), my_pid(); ' +
      "CREATE VIEW who AS SELECT application_name, state FROM pg_stat_activity WHERE application_name IN ('a', 'b') ORDER BY 1; " +
      "CREATE FUNCTION idle_in_transaction() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' $$; " +
      'CREATE FUNCTION my_pid() RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN RETURN pg_backend_pid() = (SELECT pid FROM pg_stat_activity WHERE application_name = current_setting($q$application_name$q$)); END $$',
  );
  const seen: unknown[] = [];
  await a.query('BEGIN; SELECT 1');
  seen.push(await answer(b, 'SELECT * FROM who'));
  seen.push(await answer(b, 'SELECT idle_in_transaction()'));
  seen.push(await answer(a, 'SELECT my_pid()'));
  await a.query('COMMIT');
  seen.push(await answer(b, 'SELECT * FROM who'));
  seen.push(await answer(b, 'SELECT idle_in_transaction()'));
  await owner.query('DROP VIEW who; DROP FUNCTION idle_in_transaction(), my_pid()');
  for (const s of [owner, a, b]) await s.close();
  return seen;
}

describe('the sessions, read through a view or a function', () => {
  const engines = bothEngines();

  it('are what a server shows', async () => {
    const onServer = await throughOwnObjects(engines.server.engine);
    expect(onServer).toEqual([
      [
        ['a', 'idle in transaction'],
        ['b', 'active'],
      ],
      [['1']],
      [['t']],
      [
        ['a', 'idle'],
        ['b', 'active'],
      ],
      [['0']],
    ]);
    expect(await throughOwnObjects(engines.pglite)).toEqual(onServer);
  });
});
