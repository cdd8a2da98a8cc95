// The blocker state "a statement in flight": while a session's statement runs, its
// snapshot pins the horizon even on a table it never touched. On PGlite a sleeping
// statement is stood in for by a parked transaction (emulated), so other sessions go on.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types';
import { bothEngines, vacuumTuples } from '../support/both-engines';

async function statementInFlight(engine: Engine) {
  const blocker = await engine.openSession({ applicationName: 'blocker' });
  const cleaner = await engine.openSession({ applicationName: 'cleaner' });
  await cleaner.query(
    'DROP TABLE IF EXISTS ledger; CREATE TABLE ledger (id int); INSERT INTO ledger SELECT generate_series(1, 50)',
  );
  const sleeping = blocker.query('SELECT pg_sleep(1.5)');
  await new Promise((resolve) => setTimeout(resolve, 300));
  await cleaner.query('DELETE FROM ledger WHERE id <= 20');
  const during = vacuumTuples((await cleaner.query('VACUUM (VERBOSE) ledger')).notices);
  const activity = (
    await cleaner.query(
      `SELECT state, wait_event_type, wait_event, backend_xid IS NULL, backend_xmin IS NOT NULL
         FROM pg_stat_activity WHERE application_name = 'blocker'`,
    )
  ).results[0]!.rows;
  const answer = (await sleeping).results[0]!;
  const after = vacuumTuples((await cleaner.query('VACUUM (VERBOSE) ledger')).notices);
  await blocker.close();
  await cleaner.close();
  return { during, activity, answer: [answer.fields.map((f) => f.name), answer.rows], after };
}

/**
 * A sleep begun while its session is the only one, then watched from a session opened
 * during it: the new session gets in at once and sees the sleeper active.
 */
async function sleepBegunAlone(engine: Engine) {
  const sleeper = await engine.openSession({ applicationName: 'sleeper' });
  const sleeping = sleeper.query('SELECT pg_sleep(1.2)');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const started = performance.now();
  const watcher = await engine.openSession({ applicationName: 'watcher' });
  const activity = (
    await watcher.query(
      `SELECT state, wait_event_type, wait_event, query
         FROM pg_stat_activity WHERE application_name = 'sleeper'`,
    )
  ).results[0]!.rows;
  const seenWithinMs = performance.now() - started;
  const answer = (await sleeping).results[0]!.rows;
  await sleeper.close();
  await watcher.close();
  return { activity, seenBeforeItEnds: seenWithinMs < 700, answer };
}

describe('a statement in flight on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('pins the horizon while it runs and lets VACUUM remove the tuples once it ends', async () => {
    const expected = {
      during: 'tuples: 0 removed, 50 remain, 20 are dead but not yet removable',
      activity: [['active', 'Timeout', 'PgSleep', 't', 't']],
      answer: [['pg_sleep'], [['']]],
      after: 'tuples: 20 removed, 30 remain, 0 are dead but not yet removable',
    };
    expect(await statementInFlight(engines.server.engine)).toEqual(expected);
    expect(await statementInFlight(engines.pglite)).toEqual(expected);
  });

  it('keeps a sleep begun by a lone session in flight: a session opened meanwhile sees it active', async () => {
    const expected = {
      activity: [['active', 'Timeout', 'PgSleep', 'SELECT pg_sleep(1.2)']],
      seenBeforeItEnds: true,
      answer: [['']],
    };
    expect(await sleepBegunAlone(engines.server.engine)).toEqual(expected);
    expect(await sleepBegunAlone(engines.pglite)).toEqual(expected);
  });
});
