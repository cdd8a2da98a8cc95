// What the layer's guard lets through, PostgreSQL answers on both engines alike; and what
// it refuses would have meant something else here than on a server (guards.ts).
import { describe, expect, it } from 'vitest';
import { NotExpressibleError, PgError, type Engine } from '../../src/engine/types';
import { bothEngines } from '../support/both-engines';

async function let_through(engine: Engine) {
  const s = await engine.openSession({ applicationName: 'reader' });
  const app = await engine.openSession({ applicationName: 'api-1', role: 'ordinary' });
  const rows = async (sql: string, on = s) => (await on.query(sql)).results.at(-1)!.rows;
  const code = (sql: string, on = s) =>
    on.query(sql).then(
      () => 'ran',
      (e: unknown) => (e instanceof PgError ? e.code : String(e)),
    );
  const outcome = {
    // A gid no transaction has: PostgreSQL's own answer.
    commitNobody: await code("COMMIT PREPARED 'nobody'"),
    authorizationDefault: await code('SET SESSION AUTHORIZATION DEFAULT'),
    whoAfter: await rows('SELECT session_user, current_user'),
    // RESET ALL and DISCARD ALL leave the session its own pid and name.
    reset: await code("SET application_name = 'renamed'; RESET ALL"),
    afterReset: await rows(
      'SELECT pg_backend_pid() = (SELECT pid FROM pg_stat_activity WHERE application_name = $$reader$$), ' +
        "current_setting('application_name')",
    ),
    discard: await code('DISCARD ALL'),
    afterDiscard: await rows(
      'SELECT pg_backend_pid() = (SELECT pid FROM pg_stat_activity WHERE application_name = $$reader$$)',
    ),
    // A table named like a function hides nothing on either engine.
    tableNamedLikeFunction: await code('CREATE TABLE count (n int); DROP TABLE count'),
    // The ordinary role cannot drop a schema it does not own.
    appDropsSchema: await code('DROP SCHEMA guarded CASCADE', app),
  };
  await app.close();
  await s.close();
  return outcome;
}

describe('what the guard lets through, on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('answers as a server does', async () => {
    for (const engine of [engines.server.engine, engines.pglite]) {
      const admin = await engine.openSession();
      await admin.query('CREATE SCHEMA IF NOT EXISTS guarded');
      await admin.close();
    }
    const expected = {
      commitNobody: '42704',
      authorizationDefault: 'ran',
      whoAfter: [['postgres', 'postgres']],
      reset: 'ran',
      afterReset: [['t', 'reader']],
      discard: 'ran',
      afterDiscard: [['t']],
      tableNamedLikeFunction: 'ran',
      appDropsSchema: '42501',
    };
    expect(await let_through(engines.server.engine)).toEqual(expected);
    expect(await let_through(engines.pglite)).toEqual(expected);
  });

  it('refuses a name that would hide pg_catalog’s here, where a server’s path puts pg_catalog first', async () => {
    // On a server the table is made, and pg_locks still means the catalog's view.
    const server = await engines.server.engine.openSession();
    await server.query('CREATE TABLE public.pg_locks (mine int)');
    const [columns] = (
      await server.query(
        "SELECT count(*) FROM information_schema.columns WHERE table_name = 'pg_locks' AND column_name = 'mine'",
      )
    ).results;
    expect(columns!.rows).toEqual([['1']]);
    const [read] = (
      await server.query('SELECT count(*) > 0 FROM pg_locks WHERE locktype IS NOT NULL')
    ).results;
    expect(read!.rows).toEqual([['t']]);
    await server.query('DROP TABLE public.pg_locks');
    await server.close();
    // Here public comes before pg_catalog (so that sim's pg_stat_activity is found): refused.
    const pglite = await engines.pglite.openSession();
    const refused = await pglite
      .query('CREATE TABLE public.pg_locks (mine int)')
      .catch((e: unknown) => e);
    expect((refused as NotExpressibleError).kind).toBe('shadows-catalog');
    await pglite.close();
  });
});
