// A transaction that holds nothing is closed in PGlite's backend while other sessions run,
// and opened again at its next statement: it must come back as the same transaction, as
// on a server. And what a session sets for itself shows where a server shows it.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types';
import { answer, kindOf } from '../support/answer';
import { bothEngines } from '../support/both-engines';

/** Two SERIALIZABLE transactions opened before either has run a query. */
async function isolationKept(engine: Engine): Promise<unknown[]> {
  const [a, b] = [await engine.openSession(), await engine.openSession()];
  const answers = [
    await answer(a, 'BEGIN ISOLATION LEVEL SERIALIZABLE'),
    await answer(b, 'BEGIN ISOLATION LEVEL SERIALIZABLE'),
    await answer(a, 'SHOW transaction_isolation'),
    await answer(b, 'SHOW transaction_isolation'),
    await answer(a, 'COMMIT'),
    await answer(b, 'COMMIT'),
  ];
  await a.close();
  await b.close();
  return answers;
}

/**
 * Two SERIALIZABLE transactions each read what the other writes (write skew), each in one
 * query string: the second one's read sees the first one still open.
 */
async function writeSkew(engine: Engine): Promise<unknown[]> {
  const [setup, a, b] = [
    await engine.openSession(),
    await engine.openSession(),
    await engine.openSession(),
  ];
  await setup.query(
    'DROP TABLE IF EXISTS doctors; CREATE TABLE doctors (name text PRIMARY KEY, on_call bool); ' +
      "INSERT INTO doctors VALUES ('alice', true), ('bob', true)",
  );
  const claim = (name: string) =>
    "SELECT count(*) FROM doctors WHERE on_call; UPDATE doctors SET on_call = false WHERE name = '" +
    name +
    "'";
  const answers = [
    await answer(a, 'BEGIN ISOLATION LEVEL SERIALIZABLE'),
    await answer(b, 'BEGIN ISOLATION LEVEL SERIALIZABLE'),
    await answer(a, claim('alice')),
    await answer(b, claim('bob')),
    await answer(a, 'COMMIT'),
    await answer(b, 'COMMIT'),
  ];
  for (const s of [setup, a, b]) await s.close();
  return answers;
}

/** A savepoint made before another session ran is still there afterwards. */
async function savepointAcrossSessions(engine: Engine): Promise<unknown[]> {
  const [a, b] = [await engine.openSession(), await engine.openSession()];
  const answers = [
    await answer(a, 'BEGIN; SAVEPOINT f; SET LOCAL statement_timeout = 1234'),
    await answer(a, "SELECT set_config('work_mem', '1234kB', true)"),
    await answer(b, 'SELECT 1'),
    await answer(a, 'SHOW statement_timeout'),
    await answer(a, 'SHOW work_mem'),
    await answer(a, 'ROLLBACK TO SAVEPOINT f'),
    await answer(a, 'SHOW statement_timeout'),
    await answer(a, 'SHOW transaction_isolation'),
    await answer(a, 'COMMIT'),
  ];
  await a.close();
  await b.close();
  return answers;
}

/**
 * A statement fails inside a savepoint: a server undoes only what came after the savepoint,
 * and ROLLBACK TO brings the transaction back. The failure is a reader's error, then
 * another session runs (`error`), or a lock_timeout while waiting (`timeout`).
 */
async function failedInSavepoint(engine: Engine, how: 'error' | 'timeout') {
  const [a, b] = [await engine.openSession(), await engine.openSession()];
  await a.query(
    'DROP TABLE IF EXISTS bay; CREATE TABLE bay (id int PRIMARY KEY, v int); INSERT INTO bay VALUES (1, 0), (2, 0)',
  );
  if (how === 'timeout') await b.query('BEGIN; UPDATE bay SET v = 3 WHERE id = 2');
  await a.query('BEGIN; UPDATE bay SET v = 1 WHERE id = 1');
  if (how === 'timeout') await a.query("SET LOCAL lock_timeout = '200ms'");
  const failed = await answer(
    a,
    how === 'error' ? 'SAVEPOINT s; SELECT 1/0' : 'SAVEPOINT s; UPDATE bay SET v = 4 WHERE id = 2',
  );
  await b.query(how === 'error' ? 'SELECT 1' : 'ROLLBACK');
  const back = await answer(a, 'ROLLBACK TO s');
  await a.query('COMMIT');
  const rows = await answer(b, 'SELECT v FROM bay ORDER BY id');
  await a.close();
  await b.close();
  return { failed, back, rows };
}

/** How pg_stat_activity shows a transaction block that failed, in a savepoint or not. */
async function failedBlockActivity(engine: Engine, inSavepoint: boolean) {
  const a = await engine.openSession({ applicationName: 'failed_a' });
  const c = await engine.openSession({ applicationName: 'looker' });
  await a.query(inSavepoint ? 'BEGIN; SAVEPOINT s' : 'BEGIN');
  await answer(a, 'SELECT 1/0');
  const shown = await answer(
    c,
    "SELECT xact_start IS NULL, state FROM pg_stat_activity WHERE application_name = 'failed_a'",
  );
  await a.query('ROLLBACK').catch(() => {});
  await a.close();
  await c.close();
  return shown;
}

/**
 * A transaction whose deferred foreign key check would fail at COMMIT holds a row; another
 * session updates that row. On a server the update waits; here the transaction cannot be
 * set aside (PREPARE TRANSACTION runs the check), and the update must not go ahead.
 */
async function deferredCheckFails(engine: Engine) {
  const [a, b] = [await engine.openSession(), await engine.openSession()];
  await a.query(
    'DROP TABLE IF EXISTS dc_child, dc_parent; CREATE TABLE dc_parent (id int PRIMARY KEY, v int); ' +
      'INSERT INTO dc_parent VALUES (1, 0); CREATE TABLE dc_child (id int PRIMARY KEY, ' +
      'pid int REFERENCES dc_parent DEFERRABLE INITIALLY DEFERRED)',
  );
  await a.query(
    'BEGIN; UPDATE dc_parent SET v = 1 WHERE id = 1; INSERT INTO dc_child VALUES (1, 10)',
  );
  const update = answer(b, 'UPDATE dc_parent SET v = 2 WHERE id = 1');
  const first = await Promise.race([
    update,
    new Promise((r) => setTimeout(() => r('waiting'), 800)),
  ]);
  const committed = await answer(a, 'COMMIT');
  const after = await update;
  const rows = await answer(b, 'SELECT v FROM dc_parent');
  await a.close();
  await b.close();
  return { first, committed, after, rows };
}

/**
 * A transaction updated a row, then failed inside a savepoint; another session updates
 * that row. On a server the row is still locked (the savepoint undid only what came
 * after it), so the update waits.
 */
async function pastFailedSavepoint(engine: Engine) {
  const [a, b] = [await engine.openSession(), await engine.openSession()];
  await a.query(
    'DROP TABLE IF EXISTS bay2; CREATE TABLE bay2 (id int PRIMARY KEY, v int); INSERT INTO bay2 VALUES (1, 0)',
  );
  await a.query('BEGIN; UPDATE bay2 SET v = 1 WHERE id = 1; SAVEPOINT s');
  await answer(a, 'SELECT 1/0');
  const update = answer(b, 'UPDATE bay2 SET v = 2 WHERE id = 1');
  const first = await Promise.race([
    update,
    new Promise((r) => setTimeout(() => r('waiting'), 800)),
  ]);
  await answer(a, 'ROLLBACK');
  await update;
  await a.close();
  await b.close();
  return first;
}

/** A read-only transaction set aside and taken up again is still read-only. */
async function readOnlyAcrossSessions(engine: Engine): Promise<unknown[]> {
  const [a, b] = [await engine.openSession(), await engine.openSession()];
  await b.query('DROP TABLE IF EXISTS notes; CREATE TABLE notes (t text)');
  const answers = [
    await answer(a, 'BEGIN READ ONLY'),
    await answer(b, 'SELECT 1'),
    await answer(a, "INSERT INTO notes VALUES ('x')"),
    await answer(a, 'ROLLBACK'),
  ];
  await a.close();
  await b.close();
  return answers;
}

/** `SET application_name` shows in pg_stat_activity, for the session and for others. */
async function applicationName(engine: Engine): Promise<unknown[]> {
  const [a, b] = [
    await engine.openSession({ applicationName: 'job-runner' }),
    await engine.openSession({ applicationName: 'watcher' }),
  ];
  const seen = `SELECT application_name FROM pg_stat_activity WHERE pid = ${a.pid}`;
  const answers = [
    await answer(b, seen),
    await answer(a, "SET application_name = 'worker-07'"),
    await answer(b, seen),
    await answer(a, "BEGIN; SET application_name = 'worker-08'; ROLLBACK"),
    await answer(b, seen),
    await answer(a, 'RESET application_name'),
    await answer(b, seen),
  ];
  await a.close();
  await b.close();
  return answers;
}

/**
 * A statement sent outside a transaction block is a transaction of its own: while it runs,
 * or waits, pg_stat_activity shows its xact_start, equal to its query_start.
 */
async function autocommitXactStart(engine: Engine): Promise<unknown[]> {
  const [setup, holder, waiter, watcher] = [
    await engine.openSession(),
    await engine.openSession(),
    await engine.openSession({ applicationName: 'autocommit-waiter' }),
    await engine.openSession({ applicationName: 'watcher' }),
  ];
  await setup.query('DROP TABLE IF EXISTS shelf; CREATE TABLE shelf (id int PRIMARY KEY)');
  await setup.query('INSERT INTO shelf VALUES (1)');
  await holder.query('BEGIN; SELECT * FROM shelf FOR UPDATE');
  const waiting = waiter.query('UPDATE shelf SET id = 2 WHERE id = 1');
  const seen = `SELECT application_name, state, xact_start IS NOT NULL,
                       xact_start = query_start
                  FROM pg_stat_activity
                 WHERE application_name IN ('autocommit-waiter', 'watcher')
                 ORDER BY application_name`;
  let answers: unknown = [];
  for (let tries = 0; tries < 50; tries++) {
    answers = await answer(watcher, seen);
    if (JSON.stringify(answers).includes('"active","t"')) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await holder.query('COMMIT');
  await waiting;
  for (const s of [setup, holder, waiter, watcher]) await s.close();
  return [answers];
}

/**
 * A session-level SET inside a transaction that another session's statement set aside,
 * then ROLLBACK or COMMIT: a rollback gives back the value it began with (a writer's
 * transaction is parked, a reader's closed in the backend), the application_name too.
 */
async function setInSetAside(engine: Engine, writes: boolean, end: 'ROLLBACK' | 'COMMIT') {
  const [setup, a, b] = [
    await engine.openSession(),
    await engine.openSession({ applicationName: 'job-runner' }),
    await engine.openSession({ applicationName: 'watcher' }),
  ];
  await setup.query(
    'DROP TABLE IF EXISTS tray; CREATE TABLE tray (id int PRIMARY KEY, v int); INSERT INTO tray VALUES (1, 1)',
  );
  await a.query("SET lock_timeout = '3s'");
  await a.query(writes ? 'BEGIN; UPDATE tray SET v = 2' : 'BEGIN; SELECT count(*) FROM tray');
  await a.query("SET lock_timeout = '1s'; SET application_name = 'worker-09'");
  const seen = `SELECT application_name FROM pg_stat_activity WHERE pid = ${a.pid}`;
  const answers = [await answer(b, seen), await answer(a, end)];
  answers.push(await answer(a, 'SHOW lock_timeout'), await answer(b, seen));
  for (const s of [setup, a, b]) await s.close();
  return answers;
}

describe('a transaction set aside on PGlite comes back as it was, as on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('SERIALIZABLE stays SERIALIZABLE when set aside before its first query', async () => {
    const expected = [[], [], [['serializable']], [['serializable']], [], []];
    expect(await isolationKept(engines.server.engine)).toEqual(expected);
    expect(await isolationKept(engines.pglite)).toEqual(expected);
  });

  it('write skew: 40001 at COMMIT on a server; refused on PGlite, never a wrong success', async () => {
    const serialization =
      '40001 could not serialize access due to read/write dependencies among transactions';
    expect(await writeSkew(engines.server.engine)).toEqual([[], [], [], [], [], serialization]);
    const onPglite = await writeSkew(engines.pglite);
    expect(onPglite.slice(0, 3)).toEqual([[], [], []]);
    expect(onPglite[3]).toMatch(/^not expressible \(serializable-parked\): PostgreSQL failed this/);
  });

  it('a savepoint, SET LOCAL and set_config(…, true) survive another session running', async () => {
    const expected = [
      [],
      [['1234kB']],
      [['1']],
      [['1234ms']],
      [['1234kB']],
      [],
      [['0']],
      [['read committed']],
      [],
    ];
    expect(await savepointAcrossSessions(engines.server.engine)).toEqual(expected);
    expect(await savepointAcrossSessions(engines.pglite)).toEqual(expected);
  });

  it.each(['error', 'timeout'] as const)(
    'a transaction that failed inside a savepoint (%s) comes back with ROLLBACK TO on a server, and is named lost on PGlite, never answered as if the savepoint were gone',
    async (how) => {
      const onServer = await failedInSavepoint(engines.server.engine, how);
      expect(onServer).toEqual({
        failed:
          how === 'error'
            ? '22012 division by zero'
            : '55P03 canceling statement due to lock timeout',
        back: [],
        rows: [['1'], ['0']],
      });
      const onPglite = await failedInSavepoint(engines.pglite, how);
      expect(onPglite.failed).toEqual(onServer.failed);
      expect(kindOf(onPglite.back)).toBe('transaction-lost');
      expect(onPglite.back).toMatch(/savepoint/);
    },
  );

  it.each([false, true])(
    'a block that failed shows no xact_start; one that failed in a savepoint keeps it, and on PGlite cannot be set aside (in a savepoint: %s)',
    async (inSavepoint) => {
      const expected = [[inSavepoint ? 'f' : 't', 'idle in transaction (aborted)']];
      expect(await failedBlockActivity(engines.server.engine, inSavepoint)).toEqual(expected);
      const onPglite = await failedBlockActivity(engines.pglite, inSavepoint);
      // Failed in a savepoint, it cannot be set aside whole: what looks on is refused.
      if (inSavepoint) expect(kindOf(onPglite)).toBe('set-aside-failed');
      else expect(onPglite).toEqual(expected);
    },
  );

  it('a transaction whose deferred check fails when set aside is not passed by another session’s update', async () => {
    const onServer = await deferredCheckFails(engines.server.engine);
    expect(onServer).toEqual({
      first: 'waiting',
      committed: expect.stringMatching(/^23503 insert or update on table "dc_child"/),
      after: [],
      rows: [['2']],
    });
    const onPglite = await deferredCheckFails(engines.pglite);
    expect(kindOf(onPglite.first)).toBe('set-aside-failed');
    expect(kindOf(onPglite.committed)).toBe('transaction-lost');
  });

  it('a row locked before a failed savepoint is not passed by another session’s update', async () => {
    expect(await pastFailedSavepoint(engines.server.engine)).toBe('waiting');
    expect(kindOf(await pastFailedSavepoint(engines.pglite))).toBe('set-aside-failed');
  });

  it('READ ONLY stays READ ONLY', async () => {
    const expected = [[], [['1']], '25006 cannot execute INSERT in a read-only transaction', []];
    expect(await readOnlyAcrossSessions(engines.server.engine)).toEqual(expected);
    expect(await readOnlyAcrossSessions(engines.pglite)).toEqual(expected);
  });

  it('SET application_name shows in pg_stat_activity, and a rolled-back SET does not', async () => {
    const expected = [
      [['job-runner']],
      [],
      [['worker-07']],
      [],
      [['worker-07']],
      [],
      [['job-runner']],
    ];
    expect(await applicationName(engines.server.engine)).toEqual(expected);
    expect(await applicationName(engines.pglite)).toEqual(expected);
  });

  it('a SET in a transaction set aside is given back by ROLLBACK and kept by COMMIT', async () => {
    for (const writes of [true, false]) {
      const rolled = [[['worker-09']], [], [['3s']], [['job-runner']]];
      const kept = [[['worker-09']], [], [['1s']], [['worker-09']]];
      expect(await setInSetAside(engines.server.engine, writes, 'ROLLBACK')).toEqual(rolled);
      expect(await setInSetAside(engines.pglite, writes, 'ROLLBACK'), `writes ${writes}`).toEqual(
        rolled,
      );
      expect(await setInSetAside(engines.server.engine, writes, 'COMMIT')).toEqual(kept);
      expect(await setInSetAside(engines.pglite, writes, 'COMMIT'), `writes ${writes}`).toEqual(
        kept,
      );
    }
  });

  it('a waiting statement outside BEGIN shows its xact_start, as does the querying session', async () => {
    const expected = [
      [
        ['autocommit-waiter', 'active', 't', 't'],
        ['watcher', 'active', 't', 't'],
      ],
    ];
    expect(await autocommitXactStart(engines.server.engine)).toEqual(expected);
    expect(await autocommitXactStart(engines.pglite)).toEqual(expected);
  });
});
