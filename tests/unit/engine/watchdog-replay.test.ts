// The watchdog's recovery (client.ts `recover`): a fresh backend replays the journal of a
// stuck one and ends up with the same sessions, transactions and parked XIDs; a statement
// the old backend never answered becomes a visible wait instead of being sent again.
import type { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';
import { makeEngineApi, type EngineApi } from '../../../src/engine/pglite/core';
import { startNodePglite } from '../../../src/engine/pglite/node';
import type { JournalEntry, OpenReply, QueryReply } from '../../../src/engine/pglite/sessions';

/** An engine API that journals every call and counts the reader statements it sends. */
function watched(db: PGlite, stuck: number[] = []) {
  const journal: JournalEntry[] = [];
  let lastSeq = 0;
  let tag = 0;
  const api = makeEngineApi(db, {
    stuck: new Set(stuck),
    watch: {
      journal: (entry) => journal.push(entry),
      statement: ({ seq }) => (lastSeq = Math.max(lastSeq, seq)),
    },
  });
  // Calls as the worker makes them: as data, each with its own tag.
  const open = async (name: string) => {
    const reply = (await api.invoke(
      { method: 'openSession', args: [{ applicationName: name }] },
      ++tag,
    )) as OpenReply;
    if (!reply.ok) throw new Error('no seat');
    return reply.id;
  };
  const query = (id: number, sql: string) =>
    api.invoke({ method: 'query', args: [id, sql] }, ++tag) as Promise<QueryReply>;
  return { api, journal, open, query, seq: () => lastSeq };
}

const rows = (reply: QueryReply) => {
  if (!reply.ok) throw new Error(JSON.stringify(reply));
  return reply.result.results.at(-1)!.rows;
};

/** What must survive a replay: every session as the UI shows it, and the prepared XIDs. */
async function state(api: EngineApi, db: PGlite) {
  const prepared = await db.query<{ gid: string; transaction: string }>(
    'SELECT gid, transaction::text FROM sim.layer_prepared_xacts() ORDER BY gid',
  );
  return { sessions: await api.listSessions(), prepared: prepared.rows };
}

describe('replaying the journal of a stuck backend', () => {
  const dbs: PGlite[] = [];
  const start = async () => {
    const db = await startNodePglite();
    dbs.push(db);
    return db;
  };
  afterEach(async () => {
    await Promise.all(dbs.splice(0).map((db) => db.close()));
  });

  it('rebuilds the same sessions, parked XIDs and rows on a fresh backend', async () => {
    const first = await start();
    const a = watched(first);
    const holder = await a.open('worker-07');
    const reader = await a.open('reader');
    const observer = await a.open('observer');
    await a.query(reader, 'CREATE TABLE jobs (id int PRIMARY KEY, status text)');
    await a.query(reader, "INSERT INTO jobs SELECT g, 'queued' FROM generate_series(1, 4) g");
    await a.query(holder, "BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    await a.query(reader, 'BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM jobs');
    await a.query(observer, 'SELECT 1'); // parks the reader's snapshot with a stand-in XID
    const before = await state(a.api, first);
    expect(before.prepared).toHaveLength(2);

    const second = await start();
    const b = watched(second);
    const answered: number[] = [];
    await b.api.replay(a.journal, (tag) => answered.push(tag));
    expect(await state(b.api, second)).toEqual(before);
    // Nothing is journaled twice: only the tick that sets the timeouts' timers again.
    expect(b.journal.map((entry) => entry.call.method)).toEqual(['tick']);
    // The rebuilt sessions go on as the first ones would have.
    expect(rows(await b.query(holder, 'COMMIT'))).toEqual([]);
    expect(rows(await b.query(observer, 'SELECT status FROM jobs WHERE id = 1'))).toEqual([
      ['running'],
    ]);
  });

  it('a statement that never came back waits for the parked holder, then gets the server’s answer', async () => {
    const first = await start();
    const a = watched(first);
    const holder = await a.open('worker-07');
    const claimer = await a.open('api-1');
    await a.query(claimer, 'CREATE TABLE uploads (name text PRIMARY KEY)');
    await a.query(holder, "BEGIN; INSERT INTO uploads VALUES ('cat.png')");
    await a.query(claimer, 'SELECT 1'); // parks the holder's insert
    // The claimer's INSERT of the same key would wait on the holder's XID: on PGlite it
    // hangs, so it is never sent here; the watchdog would have marked it stuck.
    const second = await start();
    const b = watched(second, [a.seq() + 1]);
    await b.api.replay(a.journal, () => {});
    const insert = b.query(claimer, "INSERT INTO uploads VALUES ('cat.png')");
    const waiting = (await b.api.listSessions()).find((s) => s.id === claimer)!;
    expect(waiting).toMatchObject({
      state: 'active',
      waitEventType: 'Lock',
      waitEvent: 'transactionid',
      blockedByPid: 40000 + holder,
      watchdog: true,
    });
    await b.query(holder, 'COMMIT');
    const reply = await insert;
    expect(reply.ok).toBe(false);
    expect(!reply.ok && 'error' in reply && reply.error.code).toBe('23505');
  });
});
