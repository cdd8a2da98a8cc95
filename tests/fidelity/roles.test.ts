// An ordinary session has the ordinary role's privileges on both engines: on PGlite it
// runs as `app` by SET ROLE on the one backend, which logged in as the superuser.
import { describe, expect, it } from 'vitest';
import { PgError, type Engine } from '../../src/engine/types';
import { bothEngines } from '../support/both-engines';

async function privileges(engine: Engine) {
  const admin = await engine.openSession({ applicationName: 'admin' });
  const app = await engine.openSession({ applicationName: 'api-1', role: 'ordinary' });
  const rows = async (s: typeof admin, sql: string) => (await s.query(sql)).results.at(-1)!.rows;
  const failure = (s: typeof admin, sql: string) =>
    s.query(sql).then(
      () => 'ran',
      (e: unknown) => (e instanceof PgError ? `${e.code} ${e.message}` : String(e)),
    );
  await admin.query('DROP TABLE IF EXISTS secret, mine; CREATE TABLE secret (v int)');
  const outcome = {
    whoAmI: await rows(app, 'SELECT current_user'),
    readOthers: await failure(app, 'SELECT * FROM secret'),
    createOwn: await failure(app, 'CREATE TABLE mine (v int); INSERT INTO mine VALUES (1)'),
    // Each commits a transaction that was parked while the other's role was loaded.
    crossed: [] as unknown[],
    seenByActivity: await rows(
      app,
      "SELECT usename FROM pg_stat_activity WHERE application_name = 'api-1'",
    ),
  };
  await app.query('BEGIN; INSERT INTO mine VALUES (2)');
  await admin.query('BEGIN; INSERT INTO secret VALUES (2)');
  outcome.crossed.push(await failure(app, 'COMMIT'));
  outcome.crossed.push(await failure(admin, 'COMMIT'));
  outcome.crossed.push(
    await rows(admin, 'SELECT (SELECT count(*) FROM mine), (SELECT count(*) FROM secret)'),
  );
  outcome.crossed.push(await rows(app, 'SELECT current_user'));
  await admin.query('DROP TABLE secret, mine');
  await app.close();
  await admin.close();
  return outcome;
}

describe('the ordinary role on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('has app’s privileges, not the superuser’s, and parked transactions of either role end', async () => {
    const expected = {
      whoAmI: [['app']],
      readOthers: '42501 permission denied for table secret',
      createOwn: 'ran',
      crossed: ['ran', 'ran', [['2', '1']], [['app']]],
      seenByActivity: [['app']],
    };
    expect(await privileges(engines.server.engine)).toEqual(expected);
    expect(await privileges(engines.pglite)).toEqual(expected);
  });
});
