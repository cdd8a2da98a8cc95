// The journal behind the watchdog is checkpointed: once it is long, the data directory is
// dumped (after PostgreSQL's CHECKPOINT) beside the layer's records, the journal starts
// again, and a recovery starts from there (checkpoint.ts). src/engine/ARCHITECTURE.md
// ("Checkpoints") records that dumpDataDir and loadDataDir once lost a committed table
// while a transaction was prepared; so a checkpoint waits for a moment with none, unless
// the journal grows long, and a restore checks that what it finds is what was dumped.
import { afterEach, describe, expect, it } from 'vitest';
import { makeEngineApi } from '../../../src/engine/pglite/core';
import { createNodePgliteEngine, startNodePglite } from '../../../src/engine/pglite/node';
import type { LayerCheckpoint, OpenReply } from '../../../src/engine/pglite/sessions';
import type { WorkerEngine } from '../../../src/engine/pglite/worker-engine';
import { NotExpressibleError, PgError, type Session } from '../../../src/engine/types';

const rows = async (s: Session, sql: string) => (await s.query(sql)).results.at(-1)!.rows;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const busy = 'SELECT count(*) FROM generate_series(1, 2000000000)';

/** Replaces the worker (by stopping a busy statement): a recovery from the last checkpoint. */
async function recover(engine: WorkerEngine, s: Session): Promise<void> {
  const stopped = s.query(busy).catch((e: unknown) => e);
  await pause(600);
  expect((await engine.stop(s)).kind).toBe('replaced');
  expect(((await stopped) as PgError).code).toBe('57014');
}

describe('checkpoints of the journal', { timeout: 180_000 }, () => {
  let engine: WorkerEngine | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
  });

  it('start the journal again, and a recovery from one rebuilds every session', async () => {
    engine = await createNodePgliteEngine(
      {},
      { checkpoints: { after: { entries: 30, bytes: 1e9 }, anyway: { entries: 90, bytes: 1e9 } } },
    );
    const a = await engine.openSession({ applicationName: 'a' });
    const app = await engine.openSession({ applicationName: 'api-1', role: 'ordinary' });
    const other = await engine.openSession({ applicationName: 'other' });
    await a.query('CREATE TABLE jobs (id int PRIMARY KEY, s text); CREATE SEQUENCE seq');
    await app.query("SET application_name = 'api-renamed'; PREPARE answer AS SELECT 41 + 1");
    await a.query('SELECT pg_advisory_lock(7)');
    for (let i = 1; i <= 40; i++) {
      await a.query(`INSERT INTO jobs VALUES (${i}, 'queued'); SELECT nextval('seq')`);
    }
    // Past `after` but busy, with calls back to back: none yet. A quiet moment takes one.
    expect(engine.memory().checkpoints).toBe(0);
    for (let i = 0; engine.memory().checkpoints === 0 && i < 50; i++) await pause(100);
    const memory = engine.memory();
    expect(memory.checkpoints).toBeGreaterThanOrEqual(1);
    expect(memory.journalEntries).toBeLessThan(40);
    expect(memory.checkpointBytes).toBeGreaterThan(0);
    const before = await engine.listSessions();

    await recover(engine, other);
    expect((await engine.listSessions()).filter((s) => s.applicationName !== 'other')).toEqual(
      before.filter((s) => s.applicationName !== 'other'),
    );
    expect(await rows(a, 'SELECT count(*), max(id) FROM jobs')).toEqual([['40', '40']]);
    expect(await rows(a, "SELECT nextval('seq')")).toEqual([['41']]);
    expect(await rows(app, 'EXECUTE answer')).toEqual([['42']]);
    expect(await rows(app, 'SHOW application_name')).toEqual([['api-renamed']]);
    expect(await rows(app, 'SELECT current_user')).toEqual([['app']]);
    // The session-level advisory lock is the backend's: taken again as it came back.
    const tried = await other.query('SELECT pg_try_advisory_lock(7)').catch((e: unknown) => e);
    expect((tried as NotExpressibleError).kind).toBe('advisory-try');
    // (Held by `a` once, in the backend: it gives it up once, and then has none to give.)
    expect(await rows(a, 'SELECT pg_advisory_unlock(7)')).toEqual([['t']]);
    const again = await rows(a, 'SELECT pg_advisory_unlock(7)');
    expect(again).toEqual([['f']]);
  });

  it('wait while a transaction is prepared until the journal is long; both it and a committed table come back', async () => {
    engine = await createNodePgliteEngine(
      {},
      { checkpoints: { after: { entries: 20, bytes: 1e9 }, anyway: { entries: 60, bytes: 1e9 } } },
    );
    const holder = await engine.openSession({ applicationName: 'holder' });
    const writer = await engine.openSession({ applicationName: 'writer' });
    await writer.query(
      "CREATE TABLE jobs (id int PRIMARY KEY, s text); INSERT INTO jobs VALUES (1, 'queued')",
    );
    await holder.query("BEGIN; UPDATE jobs SET s = 'running' WHERE id = 1");
    // The table committed while the transaction is prepared: the case ARCHITECTURE.md records.
    await writer.query('CREATE TABLE made_after (n int)');
    const [[xid]] = await rows(writer, 'SELECT transaction::text FROM sim.layer_prepared_xacts()');
    for (let i = 0; i < 30; i++) await writer.query(`INSERT INTO made_after VALUES (${i})`);
    expect(engine.memory().checkpoints).toBe(0);
    for (let i = 30; i < 70; i++) await writer.query(`INSERT INTO made_after VALUES (${i})`);
    expect(engine.memory().checkpoints).toBe(1);

    await recover(engine, writer);
    expect(await rows(writer, 'SELECT count(*) FROM made_after')).toEqual([['70']]);
    expect(await rows(writer, 'SELECT transaction::text FROM sim.layer_prepared_xacts()')).toEqual([
      [xid],
    ]);
    const holding = (await engine.listSessions()).find((s) => s.applicationName === 'holder');
    expect(holding).toMatchObject({ state: 'idle in transaction', xid, emulated: false });
    // Its row lock came back too: a NOWAIT claim of the row fails.
    const claim = await writer
      .query('SELECT * FROM jobs WHERE id = 1 FOR UPDATE NOWAIT')
      .catch((e: unknown) => e);
    expect((claim as PgError).code).toBe('55P03');
    await holder.query('COMMIT');
    expect(await rows(writer, 'SELECT s FROM jobs WHERE id = 1')).toEqual([['running']]);
  });

  it('bring back what decides a replay: each transaction’s log, and the XIDs a reader saw', async () => {
    engine = await createNodePgliteEngine(
      {},
      { checkpoints: { after: { entries: 20, bytes: 1e9 }, anyway: { entries: 40, bytes: 1e9 } } },
    );
    const seen = await engine.openSession({ applicationName: 'seen' });
    const unseen = await engine.openSession({ applicationName: 'unseen' });
    const reader = await engine.openSession({ applicationName: 'reader' });
    await reader.query(
      "CREATE TABLE jobs (id int PRIMARY KEY, s text); INSERT INTO jobs VALUES (1, 'q'), (2, 'q')",
    );
    await unseen.query("BEGIN; UPDATE jobs SET s = 'unseen' WHERE id = 2");
    await seen.query("BEGIN; UPDATE jobs SET s = 'seen' WHERE id = 1");
    // The row's xmax is the seen transaction's XID: a replay would give it another.
    const [[xmax]] = await rows(reader, 'SELECT xmax::text FROM jobs WHERE id = 1');
    expect((await engine.listSessions()).find((s) => s.applicationName === 'seen')!.xid).toBe(xmax);
    // Nothing commits meanwhile, so the unseen one could still be replayed.
    for (let i = 0; engine.memory().checkpoints === 0 && i < 60; i++)
      await reader.query('SELECT 1');
    expect(engine.memory().checkpoints).toBe(1);

    await recover(engine, reader);
    // A reader saw its XID: it goes on under a new one, which a look at xmax would show.
    expect(await rows(seen, "UPDATE jobs SET s = 'again' WHERE id = 1 RETURNING s")).toEqual([
      ['again'],
    ]);
    const look = await reader
      .query('SELECT xmax::text FROM jobs WHERE id = 1')
      .catch((e: unknown) => e);
    expect((look as NotExpressibleError).kind).toBe('xid-renumbered');
    expect(await rows(unseen, "UPDATE jobs SET s = 'on' WHERE id = 2 RETURNING s")).toEqual([
      ['on'],
    ]);
    await unseen.query('COMMIT');
    await seen.query('ROLLBACK');
    expect(await rows(reader, 'SELECT id, s FROM jobs ORDER BY id')).toEqual([
      ['1', 'q'],
      ['2', 'on'],
    ]);
  });

  it('a restore that finds another data directory than the one dumped refuses to go on', async () => {
    const first = await startNodePglite();
    let checkpoint: LayerCheckpoint | undefined;
    const api = makeEngineApi(first, {
      checkpoints: { after: { entries: 5, bytes: 1e9 }, anyway: { entries: 5, bytes: 1e9 } },
      watch: { journal: () => {}, statement: () => {}, checkpoint: (c) => (checkpoint = c) },
    });
    const opened = (await api.openSession({})) as OpenReply & { id: number };
    await api.query(opened.id, 'CREATE TABLE kept (n int)');
    for (let i = 0; i < 6; i++) await api.query(opened.id, `INSERT INTO kept VALUES (${i})`);
    await api.query(opened.id, 'SELECT 1');
    expect(checkpoint).toBeDefined();
    await first.close();
    // Booted from the prepared data directory instead: the table is not there.
    const second = await startNodePglite();
    const restored = makeEngineApi(second);
    await expect(restored.restore(checkpoint!)).rejects.toThrow(/did not come back/);
    await second.close();
  });
});
