// now() is the time a transaction began, for as long as it is open. On PGlite another
// session's statement sets the transaction aside, and its next statement opens it again in
// a new one (parking.ts, `enter`) or replays it there (resume.ts): now() must not move.
import { describe, expect, it } from 'vitest';
import type { Engine, Session } from '../../src/engine/types';
import { bothEngines } from '../support/both-engines';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function twoSessions(engine: Engine, table: string): Promise<[Session, Session]> {
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  await a.query(
    `DROP TABLE IF EXISTS ${table}; CREATE TABLE ${table} (id int PRIMARY KEY, note text); ` +
      `INSERT INTO ${table} SELECT g, '' FROM generate_series(1, 3) g`,
  );
  return [a, b];
}

/** A reader's transaction that only read, with another session's statements between its own. */
async function readerClock(engine: Engine) {
  const [a, b] = await twoSessions(engine, 'dial');
  const began = await a.query('BEGIN; SELECT now()::text AS t');
  const t = began.results[1]!.rows[0]![0]!;
  await pause(30);
  await b.query('SELECT count(*) FROM dial');
  await pause(30);
  // (In the simple protocol: a finished portal of the extended one keeps its snapshot.)
  const again = await a.query(`SELECT now() = '${t}'::timestamptz AS same FROM dial LIMIT 1`);
  await b.query("UPDATE dial SET note = 'b' WHERE id = 3");
  const written = await a.query(
    `UPDATE dial SET note = now()::text WHERE id = 1 RETURNING note::timestamptz = '${t}' AS same`,
  );
  await a.query('COMMIT');
  await a.close();
  await b.close();
  return { again: again.results[0]!.rows, written: written.results[0]!.rows };
}

/** A writer's transaction, parked by another session's statement, that goes on after. */
async function writerClock(engine: Engine) {
  const [a, b] = await twoSessions(engine, 'gauge');
  await a.query("BEGIN; UPDATE gauge SET note = 'a' WHERE id = 1");
  await pause(60);
  await b.query('SELECT count(*) FROM gauge');
  await pause(60);
  await a.query("UPDATE gauge SET note = 'a' WHERE id = 2");
  const after = await a.query(
    "SELECT now() < statement_timestamp() - interval '100 milliseconds' AS began_before",
  );
  await a.query('COMMIT');
  await a.close();
  await b.close();
  return after.results[0]!.rows;
}

describe('now() in a transaction set aside and opened again', () => {
  const engines = bothEngines();

  it('a transaction that only read keeps its start time when it goes on', async () => {
    const expected = { again: [['t']], written: [['t']] };
    expect(await readerClock(engines.server.engine)).toEqual(expected);
    expect(await readerClock(engines.pglite)).toEqual(expected);
  });

  it('a transaction replayed to go on keeps its start time', async () => {
    expect(await writerClock(engines.server.engine)).toEqual([['t']]);
    expect(await writerClock(engines.pglite)).toEqual([['t']]);
  });
});
