// Stop ends any statement as a server's cancel does (57014), whatever it is doing: a wait
// or a sleep the layer keeps is cancelled in the layer; a statement PGlite is busy with is
// stopped by replacing the worker, which rebuilds every session from the journal and does
// not run the statement again. The watchdog judges only a statement that could meet a
// parked transaction's lock, and gives up after a few recoveries (worker-engine.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import { longestTimerMs } from '../../../src/engine/pglite/sessions/timers';
import { maxRecoveries, type WorkerEngine } from '../../../src/engine/pglite/worker-engine';
import { EngineGoneError, PgError, type Session } from '../../../src/engine/types';
import { listUntil } from '../../support/list-sessions';

const rows = async (s: Session, sql: string) => (await s.query(sql)).results.at(-1)!.rows;

/** How a query ended: `done`, a SQLSTATE, or the kind of a refusal or of the engine's end. */
const settled = (p: Promise<unknown>) =>
  p.then(
    () => 'done',
    (e: unknown) => (e instanceof PgError ? e.code : ((e as { kind?: string }).kind ?? String(e))),
  );

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A statement that keeps PGlite busy for a good while, with no lock in it. */
const busy = 'SELECT count(*) FROM generate_series(1, 2000000000)';

describe('Stop', { timeout: 180_000 }, () => {
  let engine: WorkerEngine | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
  });

  it('stops a statement PGlite is busy with by replacing the worker; nothing else changes', async () => {
    engine = await createNodePgliteEngine({}, { watchdogMs: 300 });
    const writer = await engine.openSession({ applicationName: 'writer' });
    const holder = await engine.openSession({ applicationName: 'holder' });
    const other = await engine.openSession({ applicationName: 'other' });
    await other.query('CREATE TABLE jobs (id int PRIMARY KEY); CREATE TABLE log (n int)');
    await holder.query('BEGIN; SELECT pg_current_xact_id()');
    await other.query("SET application_name = 'renamed'");
    const before = (await engine.listSessions()).filter((s) => s.applicationName !== 'writer');
    // It would write rows, holding an XID: stopped, it must leave none, and not come back.
    // A parked transaction holds an XID but no lock the insert could meet: the watchdog must
    // not judge it. (While a parked transaction holds row or table locks, every statement
    // that locks or changes rows is watched: lock-reach.ts.)
    const insert = settled(
      writer.query(`INSERT INTO log SELECT g FROM (${busy}) t, LATERAL generate_series(1, 1) g`),
    );
    await pause(1500);
    expect(engine.memory().replacements).toBe(0);
    expect(await engine.stop(writer)).toEqual({ kind: 'replaced', queued: false });
    expect(await insert).toBe('57014');
    expect((await engine.listSessions()).filter((s) => s.applicationName !== 'writer')).toEqual(
      before,
    );
    expect(await rows(writer, 'SELECT count(*) FROM log')).toEqual([['0']]);
    expect(await rows(other, 'SHOW application_name')).toEqual([['renamed']]);
    await holder.query('COMMIT');
    expect(await rows(other, 'SELECT count(*) FROM jobs')).toEqual([['0']]);
    // The stopped statement is not run again by a later replacement either.
    const again = settled(other.query(busy));
    await pause(500);
    expect(await engine.stop(other)).toEqual({ kind: 'replaced', queued: false });
    expect(await again).toBe('57014');
    expect(await rows(writer, 'SELECT count(*) FROM log')).toEqual([['0']]);
  });

  it('aborts the transaction block the stopped statement was in, as a server’s cancel does', async () => {
    engine = await createNodePgliteEngine();
    const a = await engine.openSession({ applicationName: 'a' });
    await a.query('CREATE TABLE t (x int)');
    await a.query('BEGIN; INSERT INTO t VALUES (1)');
    const stopped = settled(a.query(busy));
    await pause(800);
    expect((await engine.stop(a)).kind).toBe('replaced');
    expect(await stopped).toBe('57014');
    expect(await settled(a.query('SELECT 1'))).toBe('25P02');
    await a.query('ROLLBACK');
    expect(await rows(a, 'SELECT count(*) FROM t')).toEqual([['0']]);
  });

  it('stops a statement of a parked transaction’s replay as a cancel, not as a replay that differed', async () => {
    engine = await createNodePgliteEngine();
    const a = await engine.openSession({ applicationName: 'a' });
    const b = await engine.openSession({ applicationName: 'b' });
    await a.query('CREATE TABLE t (x int)');
    // Not a lone pg_sleep, so PGlite sleeps it: the replay takes as long again.
    await a.query('BEGIN; INSERT INTO t VALUES (1); SELECT 1 AS slept FROM pg_sleep(2)');
    await b.query('SELECT 1'); // parks a's transaction
    const goesOn = settled(a.query('SELECT 2'));
    await pause(800);
    expect(await engine.stop(a)).toEqual({ kind: 'replaced', queued: false });
    expect(await goesOn).toBe('57014');
    expect(await settled(a.query('SELECT 1'))).toBe('25P02');
    await a.query('ROLLBACK');
    expect(await rows(b, 'SELECT count(*) FROM t')).toEqual([['0']]);
  });

  it('stops pg_sleep and pg_sleep_for slept in the backend, and a statement queued behind another', async () => {
    engine = await createNodePgliteEngine();
    const a = await engine.openSession({ applicationName: 'a' });
    // A sleep that is not a statement of its own is slept in the backend: only a
    // replacement ends it early. (`SELECT pg_sleep(n)` alone is kept in flight, and
    // cancelled in the layer: the next test.)
    const sleep = settled(a.query("SELECT pg_sleep(600), 'slept'"));
    await pause(800);
    expect((await engine.stop(a)).kind).toBe('replaced');
    expect(await sleep).toBe('57014');
    const inFlight = settled(a.query('SELECT pg_sleep(600)'));
    await pause(300);
    expect(await engine.stop(a)).toEqual({ kind: 'cancelled' });
    expect(await inFlight).toBe('57014');
    const b = await engine.openSession({ applicationName: 'b' });
    const sleepFor = settled(a.query("SELECT pg_sleep_for('10 minutes')"));
    await pause(800);
    // b's statement waits its turn behind a's; stopped, it never runs, and a's starts again.
    const queued = settled(b.query('CREATE TABLE never (x int)'));
    await pause(500);
    expect(await engine.stop(b)).toEqual({ kind: 'replaced', queued: true });
    expect(await queued).toBe('57014');
    expect((await engine.stop(a)).kind).toBe('replaced');
    expect(await sleepFor).toBe('57014');
    expect(await rows(b, "SELECT to_regclass('never') IS NULL")).toEqual([['t']]);
  });

  it('cancels a lock wait and a pg_sleep in flight in the layer, with no replacement', async () => {
    engine = await createNodePgliteEngine();
    const a = await engine.openSession({ applicationName: 'a' });
    const b = await engine.openSession({ applicationName: 'b' });
    await a.query('CREATE TABLE jobs (id int PRIMARY KEY); INSERT INTO jobs VALUES (1)');
    await a.query('BEGIN; SELECT * FROM jobs FOR UPDATE');
    const waiting = settled(b.query('SELECT * FROM jobs FOR UPDATE'));
    await listUntil(engine, (s) =>
      s.some((x) => x.applicationName === 'b' && x.waitEvent !== null),
    );
    expect(await engine.stop(b)).toEqual({ kind: 'cancelled' });
    expect(await waiting).toBe('57014');
    // Longer than a timer can hold (2^31 ms): clamped, it ticks no faster than that.
    const seconds = Math.ceil((longestTimerMs * 2) / 1000);
    const sleeping = settled(b.query(`SELECT pg_sleep(${seconds})`));
    await listUntil(engine, (s) => s.some((x) => x.waitEvent === 'PgSleep'));
    const journaled = engine.memory().journalEntries;
    await pause(1000);
    expect(engine.memory().journalEntries).toBe(journaled);
    expect(await engine.stop(b)).toEqual({ kind: 'cancelled' });
    expect(await sleeping).toBe('57014');
    expect(engine.memory().replacements).toBe(0);
    await a.query('COMMIT');
  });

  it('cancels a lock wait in the layer when nothing else has crossed from the worker since', async () => {
    engine = await createNodePgliteEngine();
    const a = await engine.openSession();
    const b = await engine.openSession();
    await a.query('CREATE TABLE jobs (id int PRIMARY KEY); INSERT INTO jobs VALUES (1)');
    await a.query('BEGIN; SELECT * FROM jobs FOR UPDATE');
    // No listing between: the call's wait must reach the page with no other message.
    const alone = settled(b.query('SELECT * FROM jobs FOR UPDATE'));
    await pause(600);
    expect(await engine.stop(b)).toEqual({ kind: 'cancelled' });
    expect(await alone).toBe('57014');
    // Statements that ran before the wait in the same call stay run: only the last fails.
    const after = settled(b.query('BEGIN; SELECT 1; SELECT * FROM jobs FOR UPDATE'));
    await pause(600);
    expect(await engine.stop(b)).toEqual({ kind: 'cancelled' });
    expect(await after).toBe('57014');
    await expect(b.query('SELECT 1')).rejects.toMatchObject({ code: '25P02' });
    await b.query('ROLLBACK');
    expect(engine.memory().replacements).toBe(0);
    await a.query('COMMIT');
  });

  it('the watchdog lets long work with no lock to meet run to its end', async () => {
    engine = await createNodePgliteEngine({}, { watchdogMs: 300 });
    const holder = await engine.openSession({ applicationName: 'holder' });
    const worker = await engine.openSession({ applicationName: 'worker' });
    await holder.query('CREATE TABLE jobs (id int PRIMARY KEY); CREATE TABLE other (x int)');
    await holder.query('BEGIN; INSERT INTO jobs VALUES (1)');
    await worker.query('SELECT 1'); // parks the holder's insert: it holds locks on jobs
    const result = await worker.query(
      'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) ' +
        'SELECT count(*) FROM n, other',
    );
    expect(result.results[0]!.rows).toEqual([['0']]);
    expect(engine.memory().replacements).toBe(0);
    expect((await engine.listSessions()).every((s) => !s.watchdog)).toBe(true);
    await holder.query('COMMIT');
  });

  it(`stops rebuilding after ${maxRecoveries} watchdog recoveries in a row, and says so`, async () => {
    engine = await createNodePgliteEngine({}, { watchdogMs: 300 });
    const setup = await engine.openSession({ applicationName: 'setup' });
    await setup.query(
      'CREATE TABLE parent (id int PRIMARY KEY); CREATE TABLE child (parent_id int REFERENCES parent); ' +
        'INSERT INTO parent VALUES (1)',
    );
    const holder = await engine.openSession({ applicationName: 'holder' });
    await holder.query('BEGIN; UPDATE parent SET id = 2 WHERE id = 1');
    await setup.query('SELECT 1');
    // Each insert's foreign-key check spins on the holder's row: a recovery apiece.
    const outcomes: Promise<string>[] = [];
    for (let i = 0; i <= maxRecoveries; i++) {
      const s = await engine.openSession({ applicationName: `inserter-${i}` });
      outcomes.push(settled(s.query('INSERT INTO child VALUES (1)')));
      if (i < maxRecoveries) {
        await listUntil(engine, (list) =>
          list.some((x) => x.applicationName === `inserter-${i}` && x.watchdog),
        );
      }
    }
    expect(await outcomes.at(-1)!).toBe('recoveries');
    const gone = await engine.openSession().catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(EngineGoneError);
  });
});
