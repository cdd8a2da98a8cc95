// The same single-session statements on PGlite and on a real PostgreSQL 18; the site may
// only show PGlite's answers because they match the server's. Compared: rows, SQLSTATEs,
// and the numbers VACUUM (VERBOSE) prints, with XIDs and timings normalised.
import { describe, expect, it } from 'vitest';
import { bothEngines } from '../support/both-engines';
import { PgError, type Session } from '../../src/engine/types';
import { normaliseVacuumVerbose } from '../support/normalise';

/** What a step produced, in a form both engines must agree on. */
type Outcome =
  { rows: (string | null)[][][]; tags: string[]; vacuum?: string[] } | { error: string };

async function run(session: Session, sql: string): Promise<Outcome> {
  try {
    const { results, notices } = await session.query(sql);
    const vacuum = notices.some((n) => n.message.startsWith('vacuuming'))
      ? normaliseVacuumVerbose(notices.map((n) => `${n.severity}:  ${n.message}`))
      : undefined;
    return {
      rows: results.map((r) => r.rows),
      tags: results.map((r) => `${r.command} ${r.rowCount ?? ''}`.trim()),
      ...(vacuum ? { vacuum } : {}),
    };
  } catch (e) {
    if (e instanceof PgError) return { error: e.code };
    throw e;
  }
}

/** Steps sent one query string at a time, as the console sends them. */
const script: string[] = [
  'CREATE TABLE jobs (id bigserial PRIMARY KEY, status text NOT NULL DEFAULT $$queued$$, payload jsonb)',
  "INSERT INTO jobs (payload) SELECT jsonb_build_object('n', g) FROM generate_series(1, 500) g",
  "UPDATE jobs SET status = 'done' WHERE id % 5 = 0",
  "DELETE FROM jobs WHERE status = 'done'",
  'VACUUM (VERBOSE) jobs',
  'SELECT status, count(*) FROM jobs GROUP BY status ORDER BY status',
  'SELEC 1',
  'SELECT 1/0',
  'INSERT INTO jobs (id) VALUES (1)',
  'INSERT INTO jobs (status) VALUES (NULL)',
  'BEGIN',
  "UPDATE jobs SET status = 'running' WHERE id = 1",
  'SELECT missing_column FROM jobs',
  'SELECT 1',
  'ROLLBACK',
  'SELECT status FROM jobs WHERE id = 1',
  'CREATE TABLE ledger (id int, note text)',
  'INSERT INTO ledger SELECT g, repeat($$x$$, 100) FROM generate_series(1, 2000) g',
  'DELETE FROM ledger WHERE id % 2 = 0',
  'VACUUM (VERBOSE) ledger',
  'VACUUM (VERBOSE, FREEZE) ledger',
  "SELECT n_live_tup, n_dead_tup FROM pg_stat_user_tables WHERE relname = 'ledger'",
  "SELECT '<img src=x onerror=alert(1)>' AS html, NULL AS nothing, 1.50::numeric AS n, '{1,2}'::int[] AS arr",
];

describe('one session on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('gives the same rows, SQLSTATEs and VACUUM (VERBOSE) numbers for every step', async () => {
    const onServer = await engines.server.engine.openSession();
    const onPglite = await engines.pglite.openSession();
    for (const sql of script) {
      const [expected, actual] = [await run(onServer, sql), await run(onPglite, sql)];
      expect({ sql, outcome: actual }).toEqual({ sql, outcome: expected });
    }
  });

  it('the server really is PostgreSQL 18', async () => {
    const s = await engines.server.engine.openSession();
    const { results } = await s.query("SELECT current_setting('server_version_num')::int / 10000");
    expect(results[0]!.rows).toEqual([['18']]);
    await s.close();
  });
});
