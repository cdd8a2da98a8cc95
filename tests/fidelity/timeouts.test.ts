// idle_in_transaction_session_timeout and transaction_timeout on both engines: each ends
// an idle writer with its FATAL (25P03, 25P04), its client reads that next, and VACUUM
// then removes what it could not.
import { describe, expect, it } from 'vitest';
import { answer, kindOf } from '../support/answer';
import { bothEngines, vacuumTuples } from '../support/both-engines';
import { PgError, type Engine } from '../../src/engine/types';

async function scenario(engine: Engine, timeout: string) {
  const writer = await engine.openSession({ applicationName: 'writer' });
  const cleaner = await engine.openSession({ applicationName: 'cleaner' });
  await cleaner.query(
    'DROP TABLE IF EXISTS ledger; CREATE TABLE ledger (id int); INSERT INTO ledger SELECT generate_series(1, 50)',
  );
  // Long enough for the DELETE and the first VACUUM on a busy machine.
  await writer.query(`SET ${timeout} = '1500ms'`);
  await writer.query('BEGIN; CREATE TABLE scratch (id int)');
  await cleaner.query('DELETE FROM ledger WHERE id <= 20');
  const before = vacuumTuples((await cleaner.query('VACUUM (VERBOSE) ledger')).notices);
  await new Promise((resolve) => setTimeout(resolve, 2500));
  const after = vacuumTuples((await cleaner.query('VACUUM (VERBOSE) ledger')).notices);
  const error = (await writer.query('SELECT 1').catch((e: unknown) => e)) as PgError;
  await cleaner.close();
  return { before, after, error: [error.severity, error.code, error.message] };
}

/**
 * COMMIT AND CHAIN begins a new transaction at once: transaction_timeout counts from it,
 * not from the first BEGIN. Two spans of 700 ms stay under a limit of one second each.
 */
async function chained(engine: Engine) {
  const s = await engine.openSession({ applicationName: 'chained' });
  const looker = await engine.openSession({ applicationName: 'looker' });
  await s.query("BEGIN; SET transaction_timeout = '1s'; SELECT pg_current_xact_id()");
  await s.query('SELECT pg_sleep(0.7)');
  await s.query('COMMIT AND CHAIN');
  // The chained transaction has no XID until it needs one.
  const xid = await looker.query(
    "SELECT backend_xid IS NULL AS none FROM pg_stat_activity WHERE application_name = 'chained'",
  );
  await s.query('SELECT pg_sleep(0.7)');
  const ended = await s.query('COMMIT').then(
    (r) => r.results.at(-1)?.command,
    (e: PgError) => `${e.code} ${e.message}`,
  );
  await s.close().catch(() => undefined);
  await looker.close();
  return { xidNone: xid.results[0]!.rows, ended };
}

/** A sleep shorter, then longer, than the session's statement_timeout, alone and beside another. */
async function sleepsPastTimeout(engine: Engine) {
  const s = await engine.openSession({ applicationName: 'sleeper' });
  await s.query("SET statement_timeout = '400ms'");
  const shorter = await answer(s, 'SELECT pg_sleep(0.05)');
  const alone = await answer(s, 'SELECT pg_sleep(1)');
  const other = await engine.openSession({ applicationName: 'other' });
  const beside = await answer(s, 'SELECT pg_sleep(1)');
  const after = await answer(s, 'SELECT 1');
  await other.close();
  await s.close();
  return { shorter, alone, beside, after };
}

/**
 * Sleeps against transaction_timeout: one that stays under it in a transaction block,
 * then one that would outlast what is left of it, and, in a new session, a statement
 * that is a transaction of its own and would outlast it.
 */
async function sleepsPastTransactionTimeout(engine: Engine) {
  const s = await engine.openSession({ applicationName: 'sleeper' });
  await s.query("SET transaction_timeout = '1s'");
  await s.query('BEGIN');
  const under = await answer(s, 'SELECT pg_sleep(0.3)');
  const past = await answer(s, 'SELECT pg_sleep(0.9)');
  await s.close().catch(() => undefined);
  const alone = await engine.openSession({ applicationName: 'alone' });
  await alone.query("SET transaction_timeout = '500ms'");
  const statement = await answer(alone, 'SELECT pg_sleep(0.8)');
  await alone.close().catch(() => undefined);
  return { under, past, statement };
}

/**
 * One session alone sets a timeout and says what SHOW reads, goes quiet past it, then
 * sends a statement; another session opened after answers as usual.
 */
async function aloneThenTimedOut(engine: Engine, steps: string[], shown: string) {
  const s = await engine.openSession({ applicationName: 'alone' });
  const got: unknown[] = [];
  for (const step of steps) got.push(await answer(s, step));
  got.push(await answer(s, `SHOW ${shown}`));
  await new Promise((resolve) => setTimeout(resolve, 900));
  got.push(await answer(s, 'SELECT 1'));
  await s.close().catch(() => undefined);
  const after = await engine.openSession({ applicationName: 'after' });
  got.push(await answer(after, 'SELECT 2'));
  await after.close();
  return got;
}

const aloneCases = [
  {
    name: 'idle_session_timeout',
    steps: ["SET idle_session_timeout = '400ms'"],
    ended: '57P05 terminating connection due to idle-session timeout',
  },
  {
    name: 'idle_in_transaction_session_timeout',
    steps: ["SET idle_in_transaction_session_timeout = '400ms'", 'BEGIN'],
    ended: '25P03 terminating connection due to idle-in-transaction timeout',
  },
  {
    name: 'transaction_timeout',
    steps: ["BEGIN; SET LOCAL transaction_timeout = '400ms'"],
    ended: '25P04 terminating connection due to transaction timeout',
  },
];

describe('session timeouts on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('ends the idle writer, whose client then reads FATAL 25P03, and the horizon moves', async () => {
    const expected = {
      before: 'tuples: 0 removed, 50 remain, 20 are dead but not yet removable',
      after: 'tuples: 20 removed, 30 remain, 0 are dead but not yet removable',
      error: ['FATAL', '25P03', 'terminating connection due to idle-in-transaction timeout'],
    };
    const timeout = 'idle_in_transaction_session_timeout';
    expect(await scenario(engines.server.engine, timeout)).toEqual(expected);
    expect(await scenario(engines.pglite, timeout)).toEqual(expected);
  });

  it('transaction_timeout counts from COMMIT AND CHAIN, where the next transaction begins', async () => {
    const expected = { xidNone: [['t']], ended: 'COMMIT' };
    expect(await chained(engines.server.engine)).toEqual(expected);
    expect(await chained(engines.pglite)).toEqual(expected);
  });

  it('transaction_timeout ends the open transaction with FATAL 25P04, and the horizon moves', async () => {
    const expected = {
      before: 'tuples: 0 removed, 50 remain, 20 are dead but not yet removable',
      after: 'tuples: 20 removed, 30 remain, 0 are dead but not yet removable',
      error: ['FATAL', '25P04', 'terminating connection due to transaction timeout'],
    };
    expect(await scenario(engines.server.engine, 'transaction_timeout')).toEqual(expected);
    expect(await scenario(engines.pglite, 'transaction_timeout')).toEqual(expected);
  });

  it('a sleep longer than statement_timeout fails with 57014 on a server, and is refused on PGlite, which cannot interrupt it', async () => {
    const cancelled = '57014 canceling statement due to statement timeout';
    const onServer = await sleepsPastTimeout(engines.server.engine);
    expect(onServer).toEqual({
      shorter: [['']],
      alone: cancelled,
      beside: cancelled,
      after: [['1']],
    });
    const onPglite = await sleepsPastTimeout(engines.pglite);
    expect(onPglite.shorter).toEqual(onServer.shorter);
    expect(kindOf(onPglite.alone)).toBe('statement-timeout');
    expect(kindOf(onPglite.beside)).toBe('statement-timeout');
    expect(onPglite.after).toEqual(onServer.after);
  });

  it('a sleep past transaction_timeout ends the session with FATAL 25P04 on a server, and is refused on PGlite', async () => {
    const ended = '25P04 terminating connection due to transaction timeout';
    const onServer = await sleepsPastTransactionTimeout(engines.server.engine);
    expect(onServer).toEqual({ under: [['']], past: ended, statement: ended });
    const onPglite = await sleepsPastTransactionTimeout(engines.pglite);
    expect(onPglite.under).toEqual(onServer.under);
    expect(kindOf(onPglite.past)).toBe('transaction-timeout');
    expect(kindOf(onPglite.statement)).toBe('transaction-timeout');
  });

  it.each(aloneCases)(
    '$name in a session alone: SHOW reads it, and once it runs out the next statement reads the FATAL',
    async ({ name, steps, ended }) => {
      const onServer = await aloneThenTimedOut(engines.server.engine, steps, name);
      expect(onServer).toEqual([...steps.map(() => []), [['400ms']], ended, [['2']]]);
      expect(await aloneThenTimedOut(engines.pglite, steps, name)).toEqual(onServer);
    },
  );

  it('an aborted transaction past idle_in_transaction_session_timeout ends as on a server', async () => {
    const steps = ["SET idle_in_transaction_session_timeout = '400ms'", 'BEGIN', 'SELECT 1 / 0'];
    const onServer = await aloneThenTimedOut(engines.server.engine, steps, 'work_mem');
    expect(onServer.slice(2)).toEqual([
      '22012 division by zero',
      '25P02 current transaction is aborted, commands ignored until end of transaction block',
      '25P03 terminating connection due to idle-in-transaction timeout',
      [['2']],
    ]);
    expect(await aloneThenTimedOut(engines.pglite, steps, 'work_mem')).toEqual(onServer);
  });
});
