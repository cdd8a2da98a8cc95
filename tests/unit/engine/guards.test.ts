// Statements that would break the session layer are refused, each with its kind, and
// every session keeps its state: ending the layer's own prepared transactions, changing the
// one backend's login, changing the sim schema (however the statement is sent: the guard's
// event triggers stop it inside PostgreSQL), hiding pg_catalog's names, a statement too
// large to keep, and giving up other sessions' advisory locks (guards.ts, sim-schema.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import type { WorkerEngine } from '../../../src/engine/pglite/worker-engine';
import {
  answerCaps,
  NotExpressibleError,
  PgError,
  type RefusalKind,
  type Session,
} from '../../../src/engine/types';

const rows = async (s: Session, sql: string) => (await s.query(sql)).results.at(-1)!.rows;

/** The kind of refusal `sql` meets on `s`, `ran`, or the SQLSTATE it failed with. */
const outcome = (s: Session, sql: string): Promise<RefusalKind | string> =>
  s.query(sql).then(
    () => 'ran',
    (e: unknown) =>
      e instanceof NotExpressibleError ? e.kind : e instanceof PgError ? e.code : String(e),
  );

describe('statements that would break the session layer', () => {
  let engine: WorkerEngine;
  let admin: Session;
  let holder: Session;
  let app: Session;

  beforeAll(async () => {
    engine = await createNodePgliteEngine();
    admin = await engine.openSession({ applicationName: 'admin' });
    holder = await engine.openSession({ applicationName: 'holder' });
    app = await engine.openSession({ applicationName: 'api-1', role: 'ordinary' });
    await admin.query('CREATE TABLE jobs (id int PRIMARY KEY, status text)');
    await admin.query("INSERT INTO jobs VALUES (1, 'queued'), (2, 'queued')");
    await holder.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    await admin.query('SELECT 1'); // parks the holder's transaction
  });
  afterAll(() => engine.close());

  /** Every session as it stood: the holder still parked, the tables and the view whole. */
  async function stillWhole(): Promise<void> {
    const sessions = await engine.listSessions();
    expect(sessions.find((s) => s.applicationName === 'holder')).toMatchObject({
      state: 'idle in transaction',
      emulated: false,
    });
    expect(sessions.find((s) => s.applicationName === 'holder')!.xid).not.toBeNull();
    expect(await rows(admin, 'SELECT application_name FROM pg_stat_activity ORDER BY pid')).toEqual(
      [['admin'], ['holder'], ['api-1']],
    );
    expect(await rows(app, 'SELECT pg_backend_pid()')).toEqual([[String(app.pid)]]);
  }

  it('refuses COMMIT PREPARED and ROLLBACK PREPARED of the layer’s own transactions', async () => {
    const [[gid]] = await rows(admin, 'SELECT gid FROM sim.layer_prepared_xacts()');
    expect(await outcome(admin, `COMMIT PREPARED '${gid}'`)).toBe('layer-transaction');
    expect(await outcome(admin, `ROLLBACK PREPARED '${gid}'`)).toBe('layer-transaction');
    // One that is none of them is PostgreSQL's to answer.
    expect(await outcome(admin, "COMMIT PREPARED 'nobody'")).toBe('42704');
    await stillWhole();
  });

  it('refuses SET SESSION AUTHORIZATION, and lets DEFAULT through', async () => {
    expect(await outcome(admin, 'SET SESSION AUTHORIZATION app')).toBe('session-authorization');
    expect(await outcome(admin, "SELECT set_config('session_authorization', 'app', false)")).toBe(
      'session-authorization',
    );
    expect(await outcome(admin, 'SET SESSION AUTHORIZATION DEFAULT')).toBe('ran');
    expect(await rows(admin, 'SELECT session_user, current_user')).toEqual([
      ['postgres', 'postgres'],
    ]);
    await stillWhole();
  });

  it('refuses changes to the sim schema, by text or from inside PostgreSQL', async () => {
    for (const sql of [
      'DROP SCHEMA sim CASCADE',
      'DROP VIEW sim.pg_stat_activity',
      'ALTER SCHEMA sim RENAME TO elsewhere',
      "COMMENT ON SCHEMA sim IS 'mine now'",
      'CREATE TABLE sim.mine (x int)',
      'ALTER FUNCTION pg_backend_pid() OWNER TO app',
      'REVOKE USAGE ON SCHEMA sim FROM app',
      'GRANT ALL ON SCHEMA sim TO PUBLIC',
      'DROP ROLE app',
      'DROP EVENT TRIGGER seat_ledger_guard_drop',
      'SET session_replication_role = replica',
      "SELECT set_config('sim.pid', '1', false)",
      // Sent where no text check reaches: the event triggers stop it.
      "DO $$BEGIN EXECUTE 'DROP SCHEMA ' || 'sim CASCADE'; END$$",
      "DO $$BEGIN EXECUTE 'ALTER FUNCTION sim.sessions() SET SCHEMA public'; END$$",
    ]) {
      expect([sql, await outcome(admin, sql)]).toEqual([sql, 'layer-schema']);
    }
    await stillWhole();
  });

  it('an ordinary session cannot drop the sim schema: PostgreSQL says it is not the owner', async () => {
    expect(await outcome(app, 'DROP SCHEMA sim CASCADE')).toBe('42501');
    await stillWhole();
  });

  it('refuses objects named like pg_catalog’s, before or inside a transaction block', async () => {
    for (const sql of [
      'CREATE TABLE pg_locks (x int)',
      'CREATE VIEW public.pg_stat_activity AS SELECT 1',
      'CREATE FUNCTION now() RETURNS int LANGUAGE sql AS $$SELECT 1$$',
      'CREATE TYPE text AS (a int)',
      "DO $$BEGIN EXECUTE 'CREATE TABLE pg_class (x int)'; END$$",
    ]) {
      expect([sql, await outcome(admin, sql)]).toEqual([sql, 'shadows-catalog']);
    }
    // Known from its text, it is refused before it is sent: the block goes on.
    await admin.query('BEGIN; CREATE TABLE notes (n text)');
    expect(await outcome(admin, 'CREATE TABLE pg_roles (x int)')).toBe('shadows-catalog');
    // A table named like a function hides nothing: names of each kind are looked up apart.
    expect(await outcome(admin, 'CREATE TABLE count (x int)')).toBe('ran');
    expect(await outcome(admin, "INSERT INTO notes VALUES ('kept')")).toBe('ran');
    await admin.query('COMMIT');
    expect(await rows(admin, 'SELECT n FROM notes')).toEqual([['kept']]);
    // Stopped by the event trigger inside a block, PostgreSQL aborted the block, as it says.
    await admin.query('BEGIN');
    const inside = await admin
      .query("DO $$BEGIN EXECUTE 'CREATE VIEW pg_user AS SELECT 1'; END$$")
      .catch((e: unknown) => e);
    expect((inside as NotExpressibleError).kind).toBe('shadows-catalog');
    expect((inside as Error).message).toMatch(/aborted the transaction block/);
    expect(await outcome(admin, 'SELECT 1')).toBe('25P02');
    await admin.query('ROLLBACK');
    await stillWhole();
  });

  it('refuses a statement larger than the cap, before it reaches the worker', async () => {
    const journaled = engine.memory().journalEntries;
    const huge = `SELECT '${'x'.repeat(answerCaps.statementBytes)}'`;
    const refused = await admin.query(huge).catch((e: unknown) => e);
    expect((refused as NotExpressibleError).kind).toBe('statement-too-large');
    expect((refused as Error).message).toContain('100,000 bytes');
    expect(engine.memory().journalEntries).toBe(journaled);
    await stillWhole();
  });

  it('RESET ALL leaves pg_backend_pid() to the session; DISCARD ALL may not free others’ locks', async () => {
    expect(await outcome(admin, 'RESET ALL')).toBe('ran');
    expect(await rows(admin, 'SELECT pg_backend_pid()')).toEqual([[String(admin.pid)]]);
    await app.query('SELECT pg_advisory_lock(42)');
    expect(await outcome(admin, 'DISCARD ALL')).toBe('releases-others-locks');
    expect(await outcome(admin, 'SELECT pg_advisory_unlock_all()')).toBe('releases-others-locks');
    await app.query('SELECT pg_advisory_unlock(42)');
    expect(await outcome(admin, 'DISCARD ALL')).toBe('ran');
    expect(
      await rows(admin, 'SELECT pg_backend_pid(), current_setting($$application_name$$)'),
    ).toEqual([[String(admin.pid), 'admin']]);
    await stillWhole();
  });
});
