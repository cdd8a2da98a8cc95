// What a query string, and what a statement that waited, show around a wait: each run the
// same way on a real PostgreSQL 18 and on PGlite, where the answer must be the server's or
// a refusal that names its kind.
import { describe, expect, it } from 'vitest';
import type { Engine, Session } from '../../src/engine/types';
import { answer, kindOf, within } from '../support/answer';
import { bothEngines } from '../support/both-engines';

async function sessions(engine: Engine, names: string[]): Promise<Session[]> {
  const opened: Session[] = [];
  for (const name of names) opened.push(await engine.openSession({ applicationName: name }));
  return opened;
}

const crate = (table: string, rows = 4) =>
  `DROP TABLE IF EXISTS ${table}; CREATE TABLE ${table} (id int PRIMARY KEY, v text); ` +
  `INSERT INTO ${table} SELECT g, 'queued' FROM generate_series(1, ${rows}) g`;

/**
 * A string whose transaction block ends part-way: the rest runs in one implicit
 * transaction, so a failure after it undoes what came before it in that rest.
 */
async function afterBlockEnds(engine: Engine, string: string) {
  const [a] = await sessions(engine, ['a']);
  await a!.query(crate('tail_t'));
  const got = [await answer(a!, string)];
  got.push(await answer(a!, 'SELECT id, v FROM tail_t ORDER BY id'));
  await a!.close();
  return got;
}

/** A string of two writes outside a block whose second waits for another's row. */
async function stringWaitsPartWay(engine: Engine) {
  const [a, b, c] = await sessions(engine, ['a', 'b', 'c']);
  await a!.query(crate('part_t'));
  await a!.query("BEGIN; UPDATE part_t SET v = 'a' WHERE id = 1");
  const string = answer(
    b!,
    "UPDATE part_t SET v = 'b' WHERE id = 2; UPDATE part_t SET v = 'b' WHERE id = 1",
  );
  const first = await within(string, 600);
  const skipped = await answer(c!, 'SELECT id FROM part_t ORDER BY id FOR UPDATE SKIP LOCKED');
  await a!.query('ROLLBACK');
  const after = await within(string, 3000);
  for (const s of [a!, b!, c!]) await s.close();
  return { first, skipped, after };
}

/** pg_stat_activity while a string in a transaction block waits at its second statement. */
async function activityOfWaitingString(engine: Engine) {
  const [a, b, c] = await sessions(engine, ['a', 'b', 'c']);
  await a!.query(crate('act_t'));
  await a!.query("BEGIN; UPDATE act_t SET v = 'a' WHERE id = 1");
  const string = answer(b!, "BEGIN; UPDATE act_t SET v = 'b' WHERE id = 1");
  await within(string, 600);
  const seen = await answer(
    c!,
    `SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE pid = ${b!.pid}`,
  );
  await a!.query('ROLLBACK');
  await within(string, 3000);
  await b!.query('ROLLBACK');
  for (const s of [a!, b!, c!]) await s.close();
  return seen;
}

/** DELETE … RETURNING every row, waiting for one another transaction changes. */
async function returningAfterWait(engine: Engine) {
  const [a, b] = await sessions(engine, ['a', 'b']);
  await a!.query(crate('ret_t', 3));
  await a!.query("BEGIN; UPDATE ret_t SET v = 'running' WHERE id = 2");
  const deleting = answer(b!, 'DELETE FROM ret_t RETURNING id, v');
  const first = await within(deleting, 600);
  await a!.query('COMMIT');
  const after = await within(deleting, 3000);
  for (const s of [a!, b!]) await s.close();
  return { first, after };
}

/**
 * A transaction that took its XID before another session's, parked, and went on by a
 * replay with a new one: its txid_current() must not come after the other's.
 */
async function xidAfterReplay(engine: Engine) {
  const [a, b] = await sessions(engine, ['a', 'b']);
  await a!.query(
    `${crate('xid_t', 3)}; DROP TABLE IF EXISTS xid_seen; CREATE TABLE xid_seen (x bigint)`,
  );
  await a!.query('BEGIN; SELECT * FROM xid_t WHERE id = 1 FOR UPDATE');
  await b!.query('INSERT INTO xid_seen SELECT txid_current()');
  await a!.query("UPDATE xid_t SET v = 'a' WHERE id = 1");
  const order = await answer(a!, 'SELECT txid_current() > (SELECT x FROM xid_seen) AS after_b');
  await a!.query('COMMIT');
  for (const s of [a!, b!]) await s.close();
  return order;
}

/**
 * A session closed while its UPDATE waits for another's row: the server's backend waits
 * on, and once the row is free the UPDATE runs and commits; then the session is gone.
 */
async function closedWhileWaiting(engine: Engine) {
  const [a, b] = await sessions(engine, ['a', 'b']);
  await a!.query(crate('closed_t', 1));
  await a!.query("BEGIN; UPDATE closed_t SET v = 'a' WHERE id = 1");
  const waiting = answer(b!, "UPDATE closed_t SET v = 'b' WHERE id = 1");
  waiting.catch(() => undefined);
  await within(waiting, 600);
  await b!.close();
  const call = await within(
    // The server's client fails it as its connection ends; PGlite's with an error.
    waiting.then(
      (got) => (typeof got === 'string' ? 'failed' : got),
      () => 'failed',
    ),
    3000,
  );
  const activity = await answer(
    a!,
    "SELECT state, wait_event_type FROM pg_stat_activity WHERE application_name = 'b'",
  );
  await a!.query('COMMIT');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const after = await answer(a!, 'SELECT v FROM closed_t');
  const left = await answer(
    a!,
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'b'",
  );
  await a!.close();
  return { call, activity, after, left };
}

describe('around a wait, on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('after a string’s transaction block ends, the rest of it runs in one implicit transaction', async () => {
    for (const string of [
      "BEGIN; COMMIT; UPDATE tail_t SET v = 'y' WHERE id = 3; SELECT 1/0",
      'START TRANSACTION; END; DELETE FROM tail_t WHERE id = 4; SELECT 1/0',
      "BEGIN; UPDATE tail_t SET v = 'r' WHERE id = 1; ROLLBACK; UPDATE tail_t SET v = 'y' WHERE id = 2; SELECT 1/0",
      "BEGIN; COMMIT; UPDATE tail_t SET v = 'y' WHERE id = 3; BEGIN; UPDATE tail_t SET v = 'z' WHERE id = 2; COMMIT",
    ]) {
      const onServer = await afterBlockEnds(engines.server.engine, string);
      expect(await afterBlockEnds(engines.pglite, string), string).toEqual(onServer);
    }
    // The server's answer, for the record: nothing after the COMMIT stays.
    expect(
      await afterBlockEnds(
        engines.server.engine,
        "BEGIN; COMMIT; UPDATE tail_t SET v = 'y' WHERE id = 3; SELECT 1/0",
      ),
    ).toEqual([
      '22012 division by zero',
      [
        ['1', 'queued'],
        ['2', 'queued'],
        ['3', 'queued'],
        ['4', 'queued'],
      ],
    ]);
  });

  it('a string outside a block that would wait after another write holds that write’s locks on a server, and is refused on PGlite', async () => {
    const onServer = await stringWaitsPartWay(engines.server.engine);
    expect(onServer).toEqual({ first: 'waiting', skipped: [['3'], ['4']], after: [] });
    const onPglite = await stringWaitsPartWay(engines.pglite);
    expect(kindOf(onPglite.first)).toBe('string-part-way');
  });

  it('a string in a transaction block shows as active and waiting while its statement waits', async () => {
    const expected = [['active', 'Lock', 'transactionid']];
    expect(await activityOfWaitingString(engines.server.engine)).toEqual(expected);
    expect(await activityOfWaitingString(engines.pglite)).toEqual(expected);
  });

  it('RETURNING after a wait answers in the server’s order, or is refused', async () => {
    const onServer = await returningAfterWait(engines.server.engine);
    expect(onServer).toEqual({
      first: 'waiting',
      after: [
        ['1', 'queued'],
        ['2', 'running'],
        ['3', 'queued'],
      ],
    });
    const onPglite = await returningAfterWait(engines.pglite);
    expect(onPglite.first).toBe('waiting');
    if (kindOf(onPglite.after) !== 'recheck') expect(onPglite.after).toEqual(onServer.after);
  });

  it('a replayed transaction’s txid_current() is refused where it would come after XIDs others took since', async () => {
    expect(await xidAfterReplay(engines.server.engine)).toEqual([['f']]);
    const onPglite = await xidAfterReplay(engines.pglite);
    if (kindOf(onPglite) !== 'xid-renumbered') expect(onPglite).toEqual([['f']]);
  });

  it('a session closed while its statement waits: the statement waits on, runs and commits, then the session is gone', async () => {
    const expected = {
      call: 'failed',
      activity: [['active', 'Lock']],
      after: [['b']],
      left: [['0']],
    };
    expect(await closedWhileWaiting(engines.server.engine)).toEqual(expected);
    expect(await closedWhileWaiting(engines.pglite)).toEqual(expected);
  });
});
