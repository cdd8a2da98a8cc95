// Several statements waiting on one row, as pg_stat_activity shows them: the first waits
// for the transaction that holds the row (Lock/transactionid), a later one whose tuple
// lock conflicts waits for the first (Lock/tuple), and once the first has gone on or given
// up, the next takes its place. Run the same way on PostgreSQL 18 and on PGlite.
import { describe, expect, it } from 'vitest';
import type { Engine, Session } from '../../src/engine/types';
import { answer, answerOrLockWait, within } from '../support/answer';
import { bothEngines } from '../support/both-engines';

interface Pileup {
  /** What the holder runs first, in a transaction block. */
  hold: string;
  /** What each waiter sends, in turn: in a block of its own, unless it says `implicitly`. */
  waiters: string[];
  /** A waiter cancelled (by its index), before the holder commits or after. */
  cancel?: { who: number; when: 'before' | 'after' };
}

/** Marks a waiter's statement sent on its own, outside a transaction block. */
const implicitly = 'implicitly: ';

/** pg_stat_activity's wait columns for the waiters, by name. */
const waitsQuery = (names: string[]) =>
  `SELECT application_name, state, wait_event_type, wait_event FROM pg_stat_activity
    WHERE application_name IN (${names.map((n) => `'${n}'`).join(', ')}) ORDER BY 1`;

async function pileup(engine: Engine, { hold, waiters, cancel }: Pileup) {
  const names = waiters.map((_, i) => `w${i + 1}`);
  const holder = await engine.openSession({ applicationName: 'h' });
  const looker = await engine.openSession({ applicationName: 'look' });
  const sessions: Session[] = [];
  for (const name of names) sessions.push(await engine.openSession({ applicationName: name }));
  await holder.query(
    'DROP TABLE IF EXISTS pile_t; CREATE TABLE pile_t (id int PRIMARY KEY, v text); ' +
      "INSERT INTO pile_t SELECT g, 'queued' FROM generate_series(1, 4) g",
  );
  await holder.query(`BEGIN; ${hold}`);
  const calls: Promise<unknown>[] = [];
  const seen: unknown[] = [];
  const send = async (i: number) => {
    const sql = waiters[i]!;
    const implicit = sql.startsWith(implicitly);
    const call = answer(sessions[i]!, implicit ? sql.slice(implicitly.length) : `BEGIN; ${sql}`);
    calls.push(call);
    seen.push(await answerOrLockWait(call, looker, sessions[i]!));
  };
  // A call still unanswered a while after the holder ended is counted waiting once it is
  // seen waiting (a busy machine may take longer than the pause to wake it).
  const after = async (i: number) => {
    const now = await within(calls[i]!, 600);
    return now === 'waiting' ? answerOrLockWait(calls[i]!, looker, sessions[i]!) : now;
  };
  for (const i of waiters.keys()) await send(i);
  seen.push(await answer(looker, waitsQuery(names)));
  const cancelled = async () => {
    await looker.query(`SELECT pg_cancel_backend(${sessions[cancel!.who]!.pid})`);
    seen.push(await within(calls[cancel!.who]!, 2000));
    for (const i of calls.keys()) seen.push(await after(i));
    seen.push(await answer(looker, waitsQuery(names)));
  };
  if (cancel?.when === 'before') await cancelled();
  await holder.query('COMMIT');
  for (const i of calls.keys()) seen.push(await after(i));
  seen.push(await answer(looker, waitsQuery(names)));
  if (cancel?.when === 'after') await cancelled();
  for (const [i, s] of sessions.entries()) {
    // A ROLLBACK queues behind the session's own statement; one still waiting on a later
    // session would never come, so it is cancelled and the test fails on the answer.
    const rollback = s.query('ROLLBACK').catch(() => undefined);
    if ((await within(rollback, 5000)) === 'waiting') {
      await looker.query(`SELECT pg_cancel_backend(${s.pid})`);
      await rollback;
    }
    seen.push(await within(calls[i]!, 3000));
  }
  for (const s of [holder, looker, ...sessions]) await s.close();
  return seen;
}

describe('statements waiting on one row, on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  const cases: [string, Pileup][] = [
    [
      'two UPDATEs of a row another UPDATE holds: the second waits on the tuple',
      {
        hold: "UPDATE pile_t SET v = 'h' WHERE id = 1",
        waiters: [
          "UPDATE pile_t SET v = 'a' WHERE id = 1",
          "UPDATE pile_t SET v = 'b' WHERE id = 1",
        ],
      },
    ],
    [
      'two claims FOR UPDATE of a row held FOR UPDATE',
      {
        hold: 'SELECT id FROM pile_t WHERE id = 1 FOR UPDATE',
        waiters: [
          'SELECT id FROM pile_t ORDER BY id LIMIT 1 FOR UPDATE',
          'SELECT id FROM pile_t WHERE id = 1 FOR UPDATE',
        ],
      },
    ],
    [
      'two FOR SHARE waiters do not conflict with each other: both wait on the holder',
      {
        hold: 'SELECT id FROM pile_t WHERE id = 2 FOR UPDATE',
        waiters: [
          'SELECT id FROM pile_t WHERE id = 2 FOR SHARE',
          'SELECT id FROM pile_t WHERE id = 2 FOR SHARE',
        ],
      },
    ],
    [
      'a FOR SHARE after a queued FOR UPDATE waits behind it on the tuple',
      {
        hold: 'SELECT id FROM pile_t WHERE id = 3 FOR UPDATE',
        waiters: [
          'SELECT id FROM pile_t WHERE id = 3 FOR SHARE',
          'SELECT id FROM pile_t WHERE id = 3 FOR UPDATE',
          'SELECT id FROM pile_t WHERE id = 3 FOR SHARE',
        ],
      },
    ],
    [
      'when the first waiter is cancelled, the second waits on the holder',
      {
        hold: 'SELECT id FROM pile_t WHERE id = 1 FOR NO KEY UPDATE',
        waiters: ['DELETE FROM pile_t WHERE id = 1', "UPDATE pile_t SET v = 'b' WHERE id = 1"],
        cancel: { who: 0, when: 'before' },
      },
    ],
    [
      'when the one holding the tuple lock is cancelled, the one behind it goes on',
      {
        hold: 'SELECT id FROM pile_t WHERE id = 3 FOR UPDATE',
        waiters: [
          'SELECT id FROM pile_t WHERE id = 3 FOR SHARE',
          `${implicitly}SELECT id FROM pile_t WHERE id = 3 FOR UPDATE`,
          'SELECT id FROM pile_t WHERE id = 3 FOR SHARE',
        ],
        cancel: { who: 1, when: 'after' },
      },
    ],
    [
      // Not compared: a third UPDATE sent now. On a server it waits on the tuple or on the
      // transaction by timing (whether the second met the row locked or already updated).
      'an UPDATE woken to find the row updated again waits on the new holder’s transaction',
      {
        hold: "UPDATE pile_t SET v = 'h' WHERE id = 1",
        waiters: [
          "UPDATE pile_t SET v = 'a' WHERE id = 1 RETURNING v",
          "UPDATE pile_t SET v = 'b' WHERE id = 1 RETURNING v",
        ],
      },
    ],
    [
      'INSERTs waiting on a key the holder inserted wait on its transaction only',
      {
        hold: "UPDATE pile_t SET v = 'h' WHERE id = 1; INSERT INTO pile_t VALUES (6, 'h')",
        waiters: [
          "INSERT INTO pile_t VALUES (6, 'a') ON CONFLICT DO NOTHING RETURNING v",
          "INSERT INTO pile_t VALUES (6, 'b') ON CONFLICT (id) DO UPDATE SET v = 'b2' RETURNING v",
        ],
      },
    ],
    [
      'a string that reads like a lock clause is not one',
      {
        hold: 'SELECT id FROM pile_t WHERE id = 1 FOR UPDATE',
        waiters: [
          'SELECT id FROM pile_t WHERE id = 1 FOR NO KEY UPDATE',
          "SELECT id FROM pile_t WHERE id = 1 AND v <> 'for key share' FOR NO KEY UPDATE",
        ],
      },
    ],
    [
      'waiters on two rows of one holder both wait on its transaction',
      {
        hold: 'SELECT id FROM pile_t WHERE id IN (1, 2) FOR UPDATE',
        waiters: [
          'SELECT id FROM pile_t WHERE id = 1 FOR UPDATE',
          "UPDATE pile_t SET v = 'b' WHERE id = 2",
        ],
      },
    ],
  ];

  for (const [title, scenario] of cases) {
    it(title, async () => {
      const onServer = await pileup(engines.server.engine, scenario);
      expect(await pileup(engines.pglite, scenario)).toEqual(onServer);
    });
  }

  it('the server shows the second waiter on the tuple, the first on the transaction', async () => {
    const [, , activity] = await pileup(engines.server.engine, cases[0]![1]);
    expect(activity).toEqual([
      ['w1', 'active', 'Lock', 'transactionid'],
      ['w2', 'active', 'Lock', 'tuple'],
    ]);
  });
});
