// Claims the session layer's unit tests make "as on a server", checked on PostgreSQL 18
// beside PGlite.
import { describe, expect, it } from 'vitest';
import type { Engine, Session } from '../../src/engine/types';
import { answerOrLockWait } from '../support/answer';
import { bothEngines } from '../support/both-engines';

/** `done` when `query` succeeds; else its SQLSTATE, or the error's name and message. */
function outcome(query: Promise<unknown>, done = 'done'): Promise<string> {
  return query.then(
    () => done,
    (e: Error & { code?: string }) => e.code ?? `${e.name}: ${e.message}`,
  );
}

/** Resolves with `what`, or with 'still waiting' after `ms`. */
function within<T>(what: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  return Promise.race([
    what,
    new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), ms)),
  ]);
}

/** Until `call` is answered or `s` is seen waiting: a fixed pause is too short on a busy machine. */
async function untilWaiting(engine: Engine, s: Session, call: Promise<unknown>) {
  const looker = await engine.openSession();
  await answerOrLockWait(call, looker, s);
  await looker.close();
}

async function updateOfMovedRow(engine: Engine) {
  const [a, b] = [await engine.openSession(), await engine.openSession()];
  await b.query(
    "DROP TABLE IF EXISTS moved; CREATE TABLE moved (id int PRIMARY KEY, status text); INSERT INTO moved VALUES (1, 'queued')",
  );
  await a.query('BEGIN');
  await a.query("UPDATE moved SET status = 'running' WHERE id = 1");
  const answer = await within(
    b.query("UPDATE moved SET status = 'done' WHERE id = 1 AND status = 'running'"),
    2000,
  );
  await a.query('ROLLBACK');
  await a.close();
  await b.close();
  return answer === 'still waiting' ? answer : answer.results[0]!.rowCount;
}

async function terminateNobody(engine: Engine) {
  const s = await engine.openSession();
  const { results, notices } = await s.query('SELECT pg_terminate_backend(1)');
  await s.close();
  return { rows: results[0]!.rows, notices: notices.map((n) => `${n.severity}: ${n.message}`) };
}

/**
 * The wait the watchdog stands for (tests/unit/engine/watchdog-replay.test.ts): an INSERT
 * whose key another transaction inserted and has not committed. PGlite cannot be asked in
 * Node (it would spin), so this is the server's side of that unit test.
 */
async function insertOfUncommittedKey(engine: Engine) {
  const [holder, inserter, observer] = [
    await engine.openSession({ applicationName: 'worker-07' }),
    await engine.openSession({ applicationName: 'api-1' }),
    await engine.openSession(),
  ];
  await inserter.query(
    'DROP TABLE IF EXISTS uploads; CREATE TABLE uploads (name text PRIMARY KEY)',
  );
  await holder.query("BEGIN; INSERT INTO uploads VALUES ('cat.png')");
  const insert = outcome(inserter.query("INSERT INTO uploads VALUES ('cat.png')"), 'inserted');
  const before = await within(insert, 500);
  const { results } = await observer.query(
    "SELECT wait_event_type, wait_event FROM pg_stat_activity WHERE application_name = 'api-1'",
  );
  await holder.query('COMMIT');
  const after = await insert;
  for (const s of [holder, inserter, observer]) await s.close();
  return { before, waiting: results[0]!.rows, after };
}

/**
 * Two writers that each want the other's row. A server ends the first waiter's statement
 * with 40P01 after deadlock_timeout, and the other's UPDATE goes on. On PGlite both
 * transactions are parked by then: the same statement fails with 40P01 and its
 * transaction rolls back, and the survivor's UPDATE, which would have to go on in its
 * parked transaction, is named not expressible: a replay would give it a new XID, and the
 * reader has seen its XID (in RETURNING, and in the deadlock's DETAIL).
 */
async function twoRowDeadlock(engine: Engine) {
  const [a, b] = [
    await engine.openSession({ applicationName: 'worker-01' }),
    await engine.openSession({ applicationName: 'worker-02' }),
  ];
  await a.query(
    'DROP TABLE IF EXISTS pair; CREATE TABLE pair (id int PRIMARY KEY, v int); INSERT INTO pair VALUES (1, 0), (2, 0)',
  );
  const write = async (s: Session, id: number) =>
    (await s.query(`BEGIN; UPDATE pair SET v = 1 WHERE id = ${id} RETURNING xmin::text`))
      .results[1]!.rows[0]![0]!;
  const xids = [await write(a, 1), await write(b, 2)];
  // The victim's message and DETAIL too, not only its SQLSTATE.
  const withDetail = (p: Promise<unknown>) =>
    p.then(
      () => 'updated',
      (e: Error & { code?: string; detail?: string }) =>
        e.code ? `${e.code} ${e.message}\n${e.detail}` : `${e.name}: ${e.message}`,
    );
  const first = withDetail(a.query('UPDATE pair SET v = 2 WHERE id = 2'));
  await untilWaiting(engine, a, first);
  const second = withDetail(b.query('UPDATE pair SET v = 2 WHERE id = 1'));
  const outcomes = [await first, await second].map((text) =>
    text
      .replaceAll(String(a.pid), 'A')
      .replaceAll(String(b.pid), 'B')
      .replaceAll(xids[0], 'XA')
      .replaceAll(xids[1], 'XB'),
  );
  const observer = await engine.openSession();
  const { results } = await observer.query(
    "SELECT state FROM pg_stat_activity WHERE application_name = 'worker-01'",
  );
  await observer.close();
  await a.query('ROLLBACK').catch(() => undefined);
  await b.query('ROLLBACK').catch(() => undefined);
  await a.close();
  await b.close();
  return { outcomes, victimState: results[0]?.rows[0]?.[0] };
}

/**
 * A statement waits inside a transaction that holds an XID, and a third session waits on
 * that transaction's row. Cancelling the first statement aborts its transaction, which
 * gives the row up: the third session's UPDATE goes on.
 */
async function cancelledWaitFreesItsRows(engine: Engine) {
  const [a, b, c, observer] = [
    await engine.openSession({ applicationName: 'worker-01' }),
    await engine.openSession({ applicationName: 'worker-02' }),
    await engine.openSession({ applicationName: 'worker-03' }),
    await engine.openSession(),
  ];
  await a.query(
    'DROP TABLE IF EXISTS pair; CREATE TABLE pair (id int PRIMARY KEY, v int); INSERT INTO pair VALUES (1, 0), (2, 0)',
  );
  await a.query('BEGIN; UPDATE pair SET v = 1 WHERE id = 1');
  await b.query('BEGIN; UPDATE pair SET v = 1 WHERE id = 2');
  const first = outcome(a.query('UPDATE pair SET v = 2 WHERE id = 2'));
  await untilWaiting(engine, a, first);
  const third = outcome(c.query('UPDATE pair SET v = 3 WHERE id = 1'));
  await untilWaiting(engine, c, third);
  // A server's backend reports itself idle a moment before it starts to wait for its
  // client (ClientRead): read again until no idle session is caught in between.
  const activity = async () => {
    for (let tries = 0; ; tries++) {
      const rows = (
        await observer.query(
          "SELECT application_name, state, wait_event_type, wait_event FROM pg_stat_activity WHERE application_name LIKE 'worker-%' ORDER BY 1",
        )
      ).results[0]!.rows;
      if (tries >= 20 || !rows.some(([, state, type]) => state === 'idle' && type === null))
        return rows;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const before = await activity();
  await observer.query(`SELECT pg_cancel_backend(${a.pid})`);
  const outcomes = [await first, await third];
  const after = await activity();
  const rows = (await observer.query('SELECT id, v FROM pair ORDER BY id')).results[0]!.rows;
  for (const s of [a, b]) await s.query('ROLLBACK');
  for (const s of [a, b, c, observer]) await s.close();
  return { before, outcomes, after, rows };
}

/**
 * A session in the middle of its own transaction cancels another session's wait, and
 * goes on with its transaction.
 */
async function cancelFromATransaction(engine: Engine) {
  const [holder, waiter, you] = [
    await engine.openSession({ applicationName: 'worker-01' }),
    await engine.openSession({ applicationName: 'worker-02' }),
    await engine.openSession(),
  ];
  await holder.query(
    'DROP TABLE IF EXISTS trio; CREATE TABLE trio (id int PRIMARY KEY, v int); INSERT INTO trio VALUES (1, 0), (2, 0), (3, 0)',
  );
  await holder.query('BEGIN; UPDATE trio SET v = 1 WHERE id = 1');
  const waiting = outcome(waiter.query('UPDATE trio SET v = 2 WHERE id = 1'));
  await untilWaiting(engine, waiter, waiting);
  await you.query('BEGIN; UPDATE trio SET v = 3 WHERE id = 2');
  await you.query(`SELECT pg_cancel_backend(${waiter.pid})`);
  const cancelled = await waiting;
  const goesOn = await you.query('UPDATE trio SET v = 3 WHERE id = 3').then(
    (r) => r.results[0]!.command,
    (e: Error) => `${e.name}: ${e.message}`,
  );
  await you.query('COMMIT');
  await holder.query('ROLLBACK');
  for (const s of [holder, waiter, you]) await s.close();
  return { cancelled, goesOn };
}

/**
 * A cycle through a table lock and an advisory lock: the DETAIL names each by its lock
 * tag, as DescribeLockTag writes it. The locker's deadlock_timeout is the shorter, so its
 * statement is the one that fails.
 */
async function tableAndAdvisoryDeadlock(engine: Engine) {
  const [worker, locker] = [
    await engine.openSession({ applicationName: 'worker-01' }),
    await engine.openSession({ applicationName: 'worker-02' }),
  ];
  await worker.query(
    "DROP TABLE IF EXISTS ledger, notes; CREATE TABLE ledger (id int); CREATE TABLE notes (n text); SET deadlock_timeout = '100s'",
  );
  await worker.query('SELECT pg_advisory_lock(1)');
  await locker.query(
    "SET deadlock_timeout = '200ms'; BEGIN; LOCK TABLE ledger; INSERT INTO notes VALUES ('locked')",
  );
  const reading = worker.query('SELECT count(*) FROM ledger').then(() => 'read');
  await untilWaiting(engine, worker, reading);
  const detail = await locker.query('SELECT pg_advisory_lock(1)').then(
    () => 'locked',
    (e: Error & { code?: string; detail?: string }) => `${e.code}\n${e.detail}`,
  );
  await locker.query('ROLLBACK');
  const read = await reading;
  const oid = (await worker.query("SELECT 'ledger'::regclass::oid::text")).results[0]!.rows[0]![0]!;
  await worker.query('SELECT pg_advisory_unlock(1)');
  await worker.close();
  await locker.close();
  return {
    detail: detail
      .replaceAll(String(worker.pid), 'W')
      .replaceAll(String(locker.pid), 'L')
      .replace(`relation ${oid} `, 'relation <ledger> '),
    read,
  };
}

describe('session-layer claims on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('an UPDATE whose WHERE the locked row’s visible version fails does not wait', async () => {
    expect(await updateOfMovedRow(engines.server.engine)).toBe(0);
    expect(await updateOfMovedRow(engines.pglite)).toBe(0);
  });

  it('an INSERT of a key another transaction inserted waits on its XID, then fails with 23505', async () => {
    expect(await insertOfUncommittedKey(engines.server.engine)).toEqual({
      before: 'still waiting',
      waiting: [['Lock', 'transactionid']],
      after: '23505',
    });
  });

  it('a deadlock ends the first waiter with 40P01 on both; PGlite names the survivor not expressible', async () => {
    const victim =
      '40P01 deadlock detected\n' +
      'Process A waits for ShareLock on transaction XB; blocked by process B.\n' +
      'Process B waits for ShareLock on transaction XA; blocked by process A.';
    const server = await twoRowDeadlock(engines.server.engine);
    expect(server.outcomes).toEqual([victim, 'updated']);
    const pglite = await twoRowDeadlock(engines.pglite);
    expect(pglite.outcomes[0]).toBe(victim);
    expect(pglite.outcomes[1]).toMatch(
      /^NotExpressibleError: this session’s transaction is parked: .* can only COMMIT or ROLLBACK/,
    );
    // The victim's transaction is aborted; the session waits for its ROLLBACK.
    expect(server.victimState).toBe('idle in transaction (aborted)');
    expect(pglite.victimState).toBe('idle in transaction (aborted)');
  });

  it('a deadlock’s DETAIL names table and advisory locks by their tags', async () => {
    const expected = {
      detail:
        '40P01\n' +
        'Process L waits for ExclusiveLock on advisory lock [5,0,1,1]; blocked by process W.\n' +
        'Process W waits for AccessShareLock on relation <ledger> of database 5; blocked by process L.',
      read: 'read',
    };
    expect(await tableAndAdvisoryDeadlock(engines.server.engine)).toEqual(expected);
    expect(await tableAndAdvisoryDeadlock(engines.pglite)).toEqual(expected);
  });

  it('cancelling a wait in a transaction with an XID aborts it and frees its rows', async () => {
    const expected = {
      before: [
        ['worker-01', 'active', 'Lock', 'transactionid'],
        ['worker-02', 'idle in transaction', 'Client', 'ClientRead'],
        ['worker-03', 'active', 'Lock', 'transactionid'],
      ],
      outcomes: ['57014', 'done'],
      after: [
        ['worker-01', 'idle in transaction (aborted)', 'Client', 'ClientRead'],
        ['worker-02', 'idle in transaction', 'Client', 'ClientRead'],
        ['worker-03', 'idle', 'Client', 'ClientRead'],
      ],
      rows: [
        ['1', '3'],
        ['2', '0'],
      ],
    };
    expect(await cancelledWaitFreesItsRows(engines.server.engine)).toEqual(expected);
    expect(await cancelledWaitFreesItsRows(engines.pglite)).toEqual(expected);
  });

  it('a session that cancels another’s wait from inside its transaction goes on with it', async () => {
    const expected = { cancelled: '57014', goesOn: 'UPDATE' };
    expect(await cancelFromATransaction(engines.server.engine)).toEqual(expected);
    expect(await cancelFromATransaction(engines.pglite)).toEqual(expected);
  });

  it('pg_terminate_backend of a pid that is no backend warns and returns false', async () => {
    const expected = {
      rows: [['f']],
      notices: ['WARNING: PID 1 is not a PostgreSQL backend process'],
    };
    expect(await terminateNobody(engines.server.engine)).toEqual(expected);
    expect(await terminateNobody(engines.pglite)).toEqual(expected);
  });
});
