// Waits the session layer must foresee as a server has them, or refuse promptly: a
// statement it wrongly takes to wait hangs until cancelled, and one it misses spins.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import type { WorkerEngine } from '../../../src/engine/pglite/worker-engine';
import { PgError, type Session } from '../../../src/engine/types';

/** `promise`'s outcome, or 'still waiting' after `ms`. */
async function within<T>(promise: Promise<T>, ms = 1500): Promise<T | 'still waiting'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'still waiting'>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const settled = (p: Promise<unknown>) =>
  p.then(
    () => 'done',
    (e: unknown) =>
      e instanceof PgError
        ? `${e.code} ${e.message}`
        : e instanceof Error
          ? `${e.name}: ${(e as { kind?: string }).kind ?? e.message}`
          : e,
  );

describe('lock modes a statement takes', () => {
  let engine: WorkerEngine;
  let a: Session;
  let b: Session;

  beforeEach(async () => {
    engine = await createNodePgliteEngine({}, { watchdogMs: 500 });
    a = await engine.openSession({ applicationName: 'a' });
    b = await engine.openSession({ applicationName: 'b' });
  });
  afterEach(() => engine.close());

  it('an UPDATE that assigns a key its own value takes FOR NO KEY UPDATE, past a foreign key’s lock', async () => {
    await b.query(
      'CREATE TABLE parent (i int UNIQUE, c text); INSERT INTO parent VALUES (1, $$a$$); ' +
        'CREATE TABLE child (i int REFERENCES parent (i))',
    );
    // The foreign-key check locks the parent row FOR KEY SHARE, which only a change of
    // its key waits for; heap_update compares the values, so `i = i` changes none.
    await a.query('BEGIN; INSERT INTO child VALUES (1)');
    expect(await within(settled(b.query('BEGIN; UPDATE parent SET i = i')))).toBe('done');
    await b.query('ROLLBACK');
    const changing = settled(b.query('UPDATE parent SET i = i + 1'));
    expect(await within(changing, 300)).toBe('still waiting');
    await a.query('COMMIT');
    expect(await changing).toMatch(/^23503/);
  });

  it('REFRESH MATERIALIZED VIEW CONCURRENTLY does not wait for a reader of the view (EXCLUSIVE)', async () => {
    await b.query(
      'CREATE TABLE t (id int); INSERT INTO t VALUES (1); ' +
        'CREATE MATERIALIZED VIEW mv AS SELECT id FROM t; CREATE UNIQUE INDEX ON mv (id)',
    );
    await a.query('BEGIN; SELECT * FROM mv');
    expect(await within(settled(b.query('REFRESH MATERIALIZED VIEW CONCURRENTLY mv')))).toBe(
      'done',
    );
    // Without CONCURRENTLY it takes ACCESS EXCLUSIVE, and waits for the reader.
    const plain = settled(b.query('REFRESH MATERIALIZED VIEW mv'));
    expect(await within(plain, 300)).toBe('still waiting');
    await a.query('COMMIT');
    expect(await plain).toBe('done');
  });
});

describe('a wait only the watchdog found', () => {
  let engine: WorkerEngine;
  afterEach(() => engine.close());

  it('waits on the one parked transaction holding locks, seen by the tester’s probe, and ends with it', async () => {
    engine = await createNodePgliteEngine({}, { watchdogMs: 500 });
    const [holder, inserter, reader] = [
      await engine.openSession({ applicationName: 'holder' }),
      await engine.openSession({ applicationName: 'inserter' }),
      await engine.openSession({ applicationName: 'reader' }),
    ];
    // The INSERT is inside a function, so no check sees the table: PGlite spins on the
    // unique key the parked transaction inserted, and the watchdog finds the wait.
    await reader.query(
      'CREATE TABLE u (k int UNIQUE); ' +
        'CREATE FUNCTION ins(int) RETURNS void LANGUAGE sql AS $$ INSERT INTO u VALUES ($1) $$',
    );
    await holder.query('BEGIN; INSERT INTO u VALUES (1)');
    const insert = settled(inserter.query('SELECT ins(1)'));
    expect(await within(insert, 3000)).toBe('still waiting');
    const blocked = await reader.query(
      `SELECT pg_isolation_test_session_is_blocked(${inserter.pid}, '{${holder.pid}}')`,
    );
    expect(blocked.results[0]!.rows).toEqual([['t']]);
    await holder.query('COMMIT');
    expect(await within(insert, 3000)).toMatch(/duplicate key|23505/);
  });
});

describe('the queue of waiting table-lock requests', () => {
  let engine: WorkerEngine;
  afterEach(() => engine.close());

  it('refuses a request a server would queue behind a waiting one, and grants one that can go ahead', async () => {
    engine = await createNodePgliteEngine({}, { watchdogMs: 500 });
    const [reader, locker, other, setup] = [
      await engine.openSession({ applicationName: 'reader' }),
      await engine.openSession({ applicationName: 'locker' }),
      await engine.openSession({ applicationName: 'other' }),
      await engine.openSession({ applicationName: 'setup' }),
    ];
    await setup.query('CREATE TABLE q (); CREATE TABLE elsewhere ()');
    await reader.query('BEGIN; LOCK TABLE q IN ACCESS SHARE MODE');
    const exclusive = settled(locker.query('BEGIN; LOCK TABLE q IN ACCESS EXCLUSIVE MODE'));
    expect(await within(exclusive, 300)).toBe('still waiting');
    // ACCESS SHARE fits the lock held, but not the ACCESS EXCLUSIVE request waiting: a
    // server queues it behind that request (LockAcquire checks the wait mask).
    expect(await settled(other.query('BEGIN; LOCK TABLE q IN ACCESS SHARE MODE'))).toBe(
      'NotExpressibleError: lock-queue',
    );
    await other.query('ROLLBACK');
    // The reader already holds a lock the waiting request conflicts with: a server puts
    // its new request ahead of the waiter (ProcSleep), so it is granted at once.
    expect(await within(settled(reader.query('LOCK TABLE q IN ROW SHARE MODE')))).toBe('done');
    // A table nobody waits for is no queue.
    await other.query('BEGIN');
    expect(await within(settled(other.query('LOCK TABLE elsewhere')))).toBe('done');
    await other.query('ROLLBACK');
    await reader.query('COMMIT');
    expect(await exclusive).toBe('done');
  });
});

describe('a SERIALIZABLE READ ONLY DEFERRABLE snapshot', () => {
  let engine: WorkerEngine;
  afterEach(() => engine.close());

  it('is refused while a SERIALIZABLE transaction that may write is set aside, and taken once none is', async () => {
    engine = await createNodePgliteEngine({}, { watchdogMs: 500 });
    const [writer, reporter] = [
      await engine.openSession({ applicationName: 'writer' }),
      await engine.openSession({ applicationName: 'reporter' }),
    ];
    await writer.query('CREATE TABLE acct (id int PRIMARY KEY, balance int)');
    await writer.query('INSERT INTO acct VALUES (1, 0)');
    await writer.query('BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT * FROM acct');
    await reporter.query('BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE');
    // On a server this SELECT waits for the writer's transaction (GetSafeSnapshot).
    expect(await within(settled(reporter.query('SELECT * FROM acct')))).toBe(
      'NotExpressibleError: deferrable-snapshot',
    );
    await reporter.query('ROLLBACK');
    await writer.query('COMMIT');
    await reporter.query('BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE');
    expect(await within(settled(reporter.query('SELECT * FROM acct')))).toBe('done');
    await reporter.query('COMMIT');
  });
});
