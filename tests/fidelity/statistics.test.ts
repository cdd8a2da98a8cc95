// Cumulative statistics wait in each backend until its session is idle outside a
// transaction, and a transaction may keep what it read of them (stats_fetch_consistency).
// PGlite's one backend serves every session, so where that would show, the statistics
// are refused; elsewhere they are answered as a server answers them.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types';
import { answer, kindOf } from '../support/answer';
import { bothEngines } from '../support/both-engines';

const calls = "SELECT calls FROM pg_stat_user_functions WHERE funcname = 'tick'";

async function twoSessions(engine: Engine) {
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  await a.query(
    'DROP FUNCTION IF EXISTS tick(); ' +
      'CREATE FUNCTION tick() RETURNS int LANGUAGE plpgsql AS $$BEGIN RETURN 1; END$$',
  );
  for (const s of [a, b]) await s.query("SET track_functions = 'all'");
  return { a, b };
}

/** A's call waits in its backend while its transaction is open; B flushes its own. */
async function pendingCall(engine: Engine) {
  const { a, b } = await twoSessions(engine);
  await a.query('BEGIN; SELECT tick()');
  await b.query('SELECT tick(), tick()');
  await b.query('SELECT pg_stat_force_next_flush()');
  const whileOpen = await answer(b, calls);
  await a.query('COMMIT');
  await a.query('SELECT pg_stat_force_next_flush()');
  const afterEnd = await answer(b, calls);
  await a.close();
  await b.close();
  return { whileOpen, afterEnd };
}

/** A reads the counts twice in one transaction, B calling and flushing in between. */
async function readTwice(engine: Engine, consistency: string) {
  const { a, b } = await twoSessions(engine);
  await b.query('SELECT tick()');
  await b.query('SELECT pg_stat_force_next_flush()');
  await a.query(`SET stats_fetch_consistency = '${consistency}'`);
  await a.query('BEGIN');
  const first = await answer(a, calls);
  await b.query('SELECT tick()');
  await b.query('SELECT pg_stat_force_next_flush()');
  const second = await answer(a, calls);
  await a.query('COMMIT');
  await a.close();
  await b.close();
  return [first, second];
}

/** Dead rows after a DELETE, read while another session's transaction is open. */
async function deadRows(engine: Engine) {
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  await a.query(
    'DROP TABLE IF EXISTS stat_ledger; CREATE TABLE stat_ledger (id int); ' +
      'INSERT INTO stat_ledger SELECT generate_series(1, 10)',
  );
  await a.query('SELECT pg_stat_force_next_flush()');
  await a.query('BEGIN; SELECT count(*) FROM stat_ledger');
  await b.query('DELETE FROM stat_ledger WHERE id <= 4');
  await b.query('SELECT pg_stat_force_next_flush()');
  const dead = await answer(
    b,
    "SELECT n_live_tup, n_dead_tup FROM pg_stat_user_tables WHERE relname = 'stat_ledger'",
  );
  await a.query('COMMIT');
  await a.close();
  await b.close();
  return dead;
}

/** What B's own transaction counted so far, after A inserted a row. */
async function ownCounts(engine: Engine) {
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  await a.query('DROP TABLE IF EXISTS stat_own; CREATE TABLE stat_own (id int)');
  await a.query('SELECT pg_stat_force_next_flush()');
  await a.query('INSERT INTO stat_own VALUES (1)');
  await b.query('BEGIN');
  const got = [
    await answer(b, "SELECT n_tup_ins FROM pg_stat_xact_user_tables WHERE relname = 'stat_own'"),
    await answer(b, 'SELECT count(*) FROM pg_stat_get_backend_idset()'),
    await answer(
      b,
      'SELECT xact_commit > 0 FROM pg_stat_database WHERE datname = current_database()',
    ),
  ];
  await b.query('COMMIT');
  await a.close();
  await b.close();
  return got;
}

describe('cumulative statistics with several sessions', () => {
  const engines = bothEngines();

  it('leave out calls an open transaction made on a server, and are refused on PGlite', async () => {
    expect(await pendingCall(engines.server.engine)).toEqual({
      whileOpen: [['2']],
      afterEnd: [['3']],
    });
    const onPglite = await pendingCall(engines.pglite);
    expect(kindOf(onPglite.whileOpen)).toBe('statistics-shared');
    expect(onPglite.afterEnd).toEqual([['3']]);
  });

  it('stay as a transaction first read them on a server, and are refused on PGlite', async () => {
    expect(await readTwice(engines.server.engine, 'cache')).toEqual([[['1']], [['1']]]);
    const [first, second] = await readTwice(engines.pglite, 'cache');
    expect(first).toEqual([['1']]);
    expect(kindOf(second)).toBe('statistics-shared');
  });

  it('of the own transaction, of the database, and backends by slot, are refused on PGlite', async () => {
    const [own, backends, commits] = await ownCounts(engines.server.engine);
    expect([own, commits]).toEqual([[['0']], [['t']]]);
    // A server lists a backend for each session, and its own processes besides.
    expect(Number((backends as string[][])[0]![0])).toBeGreaterThanOrEqual(2);
    expect((await ownCounts(engines.pglite)).map(kindOf)).toEqual([
      'statistics-shared',
      'backend-status',
      'statistics-shared',
    ]);
  });

  it('are answered as on a server where nothing is kept or pending', async () => {
    const none = await readTwice(engines.server.engine, 'none');
    expect(none).toEqual([[['1']], [['2']]]);
    expect(await readTwice(engines.pglite, 'none')).toEqual(none);
    const dead = await deadRows(engines.server.engine);
    expect(dead).toEqual([['6', '4']]);
    expect(await deadRows(engines.pglite)).toEqual(dead);
  });
});
