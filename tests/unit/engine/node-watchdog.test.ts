// The Node engine runs PGlite in a worker thread under the page's watchdog
// (worker-engine.ts): a statement that waits where the session layer's checks did not
// foresee it makes PGlite spin, and without the watchdog it would hang the process.
import { afterEach, describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import type { WorkerEngine } from '../../../src/engine/pglite/worker-engine';
import { PgError } from '../../../src/engine/types';
import { listUntil } from '../../support/list-sessions';

describe('the Node engine’s watchdog', () => {
  let engine: WorkerEngine | undefined;
  afterEach(async () => {
    await engine?.close();
  });

  it('turns a foreign-key check that spins on a parked transaction’s row into a wait', async () => {
    engine = await createNodePgliteEngine({}, { watchdogMs: 500 });
    const setup = await engine.openSession({ applicationName: 'setup' });
    const bystander = await engine.openSession({ applicationName: 'bystander' });
    const holder = await engine.openSession({ applicationName: 'holder' });
    const inserter = await engine.openSession({ applicationName: 'inserter' });
    await setup.query(
      'CREATE TABLE parent (id int PRIMARY KEY); ' +
        'CREATE TABLE child (id int PRIMARY KEY, parent_id int REFERENCES parent); ' +
        'CREATE TABLE notes (note text); INSERT INTO parent VALUES (1)',
    );
    await bystander.query("BEGIN; INSERT INTO notes VALUES ('kept')");
    // Changing the key locks the row FOR UPDATE, which a foreign-key check's FOR KEY
    // SHARE waits on (RI_FKey_check in ri_triggers.c). The layer checks only the tables
    // an INSERT names, so it sends the INSERT, and PGlite spins.
    await holder.query('BEGIN; UPDATE parent SET id = 2 WHERE id = 1');
    await setup.query('SELECT 1'); // parks the holder's update
    const before = await engine.listSessions();
    expect(
      before.filter((s) => s.xid !== null && !s.emulated).map((s) => s.applicationName),
    ).toEqual(['bystander', 'holder']);

    let outcome: unknown = 'waiting';
    const insert = inserter.query('INSERT INTO child VALUES (1, 1)').then(
      () => (outcome = 'inserted'),
      (error: unknown) => (outcome = error),
    );
    const waiting = await listUntil(engine, (sessions) =>
      sessions.some((s) => s.applicationName === 'inserter' && s.waitEventType === 'Lock'),
    );
    expect(waiting.find((s) => s.applicationName === 'inserter')).toMatchObject({
      state: 'active',
      waitEvent: 'transactionid',
      watchdog: true,
    });
    // The replacement worker rebuilt every other session as it was.
    expect(waiting.filter((s) => s.applicationName !== 'inserter')).toEqual(
      before.filter((s) => s.applicationName !== 'inserter'),
    );
    expect(outcome).toBe('waiting');

    await holder.query('COMMIT');
    await insert;
    // With the key changed, the check finds no parent: the server's own answer.
    expect(outcome).toBeInstanceOf(PgError);
    expect((outcome as PgError).code).toBe('23503');
    await bystander.query('COMMIT');
    const { results } = await setup.query(
      'SELECT (SELECT array_agg(id) FROM parent)::text, (SELECT array_agg(note) FROM notes)::text',
    );
    expect(results[0]!.rows).toEqual([['{2}', '{kept}']]);
  });
});
