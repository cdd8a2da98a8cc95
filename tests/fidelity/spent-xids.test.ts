// Counts of XIDs across an XID the layer spent and a server did not: a stand-in for a
// REPEATABLE READ snapshot, a cursor or a statement in flight, a NOWAIT probe's savepoint.
// age() answers as a server's does; VACUUM (VERBOSE) leaves its count out, and says why,
// where one lies in what it counts, and prints PostgreSQL's own where none does.
import { describe, expect, it } from 'vitest';
import { NotExpressibleError, type Engine, type Notice } from '../../src/engine/types';
import { answer, kindOf, within } from '../support/answer';
import { bothEngines, vacuumTuples } from '../support/both-engines';

type Step = [who: 'a' | 'b' | 'c', sql: string];

/** Runs `steps` on sessions a, b and c of `engine`; the answer to each, `waiting` if none yet. */
async function play(engine: Engine, steps: Step[]): Promise<unknown[]> {
  const setup = await engine.openSession({ applicationName: 'setup' });
  await setup.query(
    'DROP TABLE IF EXISTS jobs; CREATE TABLE jobs (id int PRIMARY KEY, state text); ' +
      "INSERT INTO jobs SELECT g, 'queued' FROM generate_series(1, 4) g",
  );
  await setup.close();
  const sessions = {
    a: await engine.openSession({ applicationName: 'a' }),
    b: await engine.openSession({ applicationName: 'b' }),
    c: await engine.openSession({ applicationName: 'c' }),
  };
  const pending = new Map<string, Promise<unknown>>();
  const got: unknown[] = [];
  for (const [who, sql] of steps) {
    const earlier = pending.get(who);
    if (earlier) got.push(await within(earlier, 5000));
    pending.delete(who);
    const p = answer(sessions[who], sql);
    const now = await within(p, 1500);
    if (now === 'waiting') pending.set(who, p);
    got.push(now);
  }
  for (const p of pending.values()) got.push(await within(p, 5000));
  for (const s of Object.values(sessions)) await s.close();
  return got;
}

/** Ages as the article's query asks them, of sessions a and b. */
const ages =
  'SELECT application_name, age(backend_xmin), age(backend_xid) FROM pg_stat_activity ' +
  "WHERE application_name IN ('a', 'b') ORDER BY 1";

const cases: { name: string; steps: Step[] }[] = [
  {
    name: 'a REPEATABLE READ snapshot set aside',
    steps: [
      ['a', 'BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM jobs'],
      ['b', 'INSERT INTO jobs VALUES (10)'],
      ['c', "UPDATE jobs SET state = 'x' WHERE id = 2"],
      ['c', ages],
      ['a', 'COMMIT'],
    ],
  },
  {
    name: 'an open cursor set aside',
    steps: [
      ['a', 'BEGIN; DECLARE c CURSOR FOR SELECT * FROM jobs'],
      ['b', 'INSERT INTO jobs VALUES (10)'],
      ['c', ages],
      ['a', 'COMMIT'],
    ],
  },
  {
    name: 'a statement in flight',
    steps: [
      ['a', 'SELECT pg_sleep(1)'],
      ['b', 'INSERT INTO jobs VALUES (10)'],
      ['c', ages],
    ],
  },
  {
    name: 'row locks taken beside a parked transaction (a NOWAIT probe in a savepoint)',
    steps: [
      ['a', 'BEGIN; SELECT id FROM jobs WHERE id = 1 FOR UPDATE'],
      ['b', 'BEGIN; SELECT id FROM jobs WHERE id = 2 FOR UPDATE'],
      ['c', ages],
      ['a', 'COMMIT'],
      ['b', 'COMMIT'],
      ['c', 'SELECT age(xmin) FROM jobs WHERE id = 1'],
    ],
  },
  {
    name: 'a write waiting on a row (it has its XID on a server), then a lock waiting on one',
    steps: [
      ['a', "BEGIN; UPDATE jobs SET state = 'a' WHERE id = 1"],
      ['b', "UPDATE jobs SET state = 'b' WHERE id = 1"],
      ['c', ages],
      ['a', 'COMMIT'],
      ['a', 'BEGIN; SELECT id FROM jobs WHERE id = 2 FOR UPDATE'],
      ['b', 'SELECT id FROM jobs WHERE id = 2 FOR UPDATE'],
      ['c', ages],
      ['a', 'COMMIT'],
      // (b's statement has ended before c writes: on a server it goes on by itself.)
      ['b', 'SELECT 1'],
      ['c', 'INSERT INTO jobs VALUES (10)'],
      ['c', 'SELECT id, age(xmin) FROM jobs ORDER BY id'],
    ],
  },
  {
    name: 'a view that calls age(), read past a stand-in',
    steps: [
      ['c', 'CREATE OR REPLACE VIEW row_ages AS SELECT id, age(xmin) AS held FROM jobs'],
      ['a', 'BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM jobs'],
      ['b', 'INSERT INTO jobs VALUES (10)'],
      ['c', 'SELECT * FROM row_ages ORDER BY id'],
      ['a', 'COMMIT'],
      ['c', 'DROP VIEW row_ages'],
    ],
  },
  {
    name: 'a transaction with savepoints set aside, then replayed to go on',
    steps: [
      ['a', "BEGIN; SAVEPOINT s; UPDATE jobs SET state = 'a' WHERE id = 1; RELEASE s"],
      ['a', "SAVEPOINT t; UPDATE jobs SET state = 'a' WHERE id = 2; RELEASE t"],
      ['b', 'SELECT count(*) FROM jobs'],
      ['a', "UPDATE jobs SET state = 'a' WHERE id = 3"],
      ['a', 'COMMIT'],
      ['c', 'INSERT INTO jobs VALUES (10)'],
      ['c', 'SELECT id, age(xmin) FROM jobs ORDER BY id'],
    ],
  },
];

describe('counts of XIDs the layer spent', () => {
  const engines = bothEngines();

  it.each(cases)('age() answers as on a server: $name', async ({ steps }) => {
    const onServer = await play(engines.server.engine, steps);
    expect(onServer.filter((a) => typeof a === 'string' && a !== 'waiting')).toEqual([]);
    expect(await play(engines.pglite, steps)).toEqual(onServer);
  });

  /** The running XIDs a snapshot lists while a REPEATABLE READ reader holds its own. */
  async function runningBeside(engine: Engine): Promise<unknown[]> {
    const a = await engine.openSession({ applicationName: 'a' });
    const b = await engine.openSession({ applicationName: 'b' });
    await b.query('DROP TABLE IF EXISTS ledger; CREATE TABLE ledger (id int, v int)');
    await b.query('INSERT INTO ledger VALUES (1, 0)');
    await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM ledger');
    await b.query('UPDATE ledger SET v = 1');
    const running = 'SELECT count(*) FROM pg_snapshot_xip(pg_current_snapshot())';
    const got = [await answer(b, running)];
    await a.query('COMMIT');
    got.push(await answer(b, running));
    await a.close();
    await b.close();
    return got;
  }

  it('a snapshot taken beside a stand-in is refused: it would list the stand-in’s XID', async () => {
    expect(await runningBeside(engines.server.engine)).toEqual([[['0']], [['0']]]);
    const [beside, after] = await runningBeside(engines.pglite);
    expect(kindOf(beside)).toBe('stand-in-xid');
    expect(after).toEqual([['0']]);
  });

  /** VACUUM (VERBOSE) of rows deleted while a REPEATABLE READ reader holds its snapshot. */
  async function vacuumBeside(engine: Engine): Promise<Notice[][]> {
    const a = await engine.openSession({ applicationName: 'a' });
    const b = await engine.openSession({ applicationName: 'b' });
    await b.query(
      'DROP TABLE IF EXISTS ledger; CREATE TABLE ledger AS SELECT g AS id FROM generate_series(1, 100) g',
    );
    await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM ledger');
    await b.query('DELETE FROM ledger WHERE id <= 40');
    const held = await b.query('VACUUM (VERBOSE) ledger');
    await a.query('COMMIT');
    const free = await b.query('VACUUM (VERBOSE) ledger');
    await a.close();
    await b.close();
    return [held.notices, free.notices];
  }

  /** The line that counts XIDs up to the removable cutoff, and the engine's words on it. */
  const cutoffLine = (notices: Notice[]) => {
    const notice = notices.find((n) => n.message.includes('removable cutoff'))!;
    const line = notice.message.split('\n').find((l) => l.startsWith('removable cutoff'))!;
    return { count: /which was (\S+) XIDs old/.exec(line)?.[1], withheld: notice.withheld };
  };

  it('VACUUM (VERBOSE) leaves out a count a stand-in would make larger, and says why', async () => {
    const [serverHeld, serverFree] = await vacuumBeside(engines.server.engine);
    const [pgliteHeld, pgliteFree] = await vacuumBeside(engines.pglite);
    // The server counts the DELETE's XID only; PGlite would count the stand-in's too.
    expect(cutoffLine(serverHeld)).toEqual({ count: '1', withheld: undefined });
    const held = cutoffLine(pgliteHeld);
    expect(held.count).toBe('…');
    expect(held.withheld).toMatch(/spent an XID in that span that a server would not/);
    // The same dead rows are kept either way.
    const kept = (ns: Notice[]) => /(\d+) are dead but not yet removable/.exec(ns[1]!.message)?.[1];
    expect(kept(pgliteHeld)).toBe(kept(serverHeld));
    expect(kept(serverHeld)).toBe('40');
    // Once the reader is gone no spent XID is in the span: PostgreSQL's count is shown.
    expect(cutoffLine(pgliteFree)).toEqual(cutoffLine(serverFree));
    expect(cutoffLine(serverFree).count).toBe('0');
  });

  /**
   * A transaction that holds only a lock (an advisory one, then a table's) beside a
   * DELETE and a VACUUM: what pg_stat_activity shows of it, then the VACUUM's tuples line.
   */
  async function lockHolderBeside(engine: Engine, lock: string): Promise<unknown[]> {
    const a = await engine.openSession({ applicationName: 'a' });
    const b = await engine.openSession({ applicationName: 'b' });
    await b.query(
      'DROP TABLE IF EXISTS ledger, other; CREATE TABLE other (id int); ' +
        'CREATE TABLE ledger AS SELECT g AS id FROM generate_series(1, 10) g',
    );
    await a.query(`BEGIN; ${lock}`);
    await b.query('DELETE FROM ledger WHERE id <= 4');
    const got: unknown[] = [
      await answer(
        b,
        'SELECT state, backend_xid IS NULL, backend_xmin IS NULL FROM pg_stat_activity ' +
          "WHERE application_name = 'a'",
      ),
    ];
    try {
      const { notices } = await b.query('VACUUM (VERBOSE) ledger');
      got.push(vacuumTuples(notices));
    } catch (e) {
      got.push(e instanceof NotExpressibleError ? e.kind : String(e));
    }
    await a.query('COMMIT');
    await a.close();
    await b.close();
    return got;
  }

  it.each(['SELECT pg_advisory_xact_lock(7)', 'LOCK TABLE other IN SHARE MODE'])(
    'a transaction that holds only a lock (%s) holds back no VACUUM on a server; PGlite shows it without XID or xmin, and refuses the VACUUM',
    async (lock) => {
      const onServer = await lockHolderBeside(engines.server.engine, lock);
      expect(onServer).toEqual([
        [['idle in transaction', 't', 't']],
        'tuples: 4 removed, 6 remain, 0 are dead but not yet removable',
      ]);
      const [activity, vacuum] = await lockHolderBeside(engines.pglite, lock);
      expect(activity).toEqual(onServer[0]);
      expect(vacuum).toBe('locks-hold-horizon');
    },
  );
});
