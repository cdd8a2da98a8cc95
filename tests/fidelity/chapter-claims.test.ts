// The chapters' claims that no demo next to them shows, checked on PGlite and on a real
// PostgreSQL 18. Each test is named for its chapter and the claim it checks, quoted from
// the audit (tests/support/chapter-claims.ts), and every claim the audit marks `test` has
// one here. A check asserts what the sentence says on the server, then that PGlite
// answers the same.
import { describe, expect, it } from 'vitest';
import type { Engine, Session } from '../../src/engine/types';
import { bothEngines, vacuumTuples } from '../support/both-engines';
import { chapterClaims, claimEntry } from '../support/chapter-claims';
import { chapterFiles, runnableBlocks } from '../support/chapter-files';

const checked = new Set<string>();

/** A test of one audited claim, named `chapter: “claim”`. */
function claimTest(chapter: string, says: string, fn: () => Promise<void>) {
  const entry = claimEntry(chapter, says);
  checked.add(`${entry.chapter}\n${entry.says}`);
  it(`${chapter}: “${says}”`, fn);
}

/** Runs `check` on the server, asserts `expected` on its answer, and PGlite's must match. */
async function onBoth<T>(
  engines: { server: { engine: Engine }; pglite: Engine },
  check: (engine: Engine) => Promise<T>,
  expected: (onServer: T) => void,
): Promise<void> {
  const onServer = await check(engines.server.engine);
  expected(onServer);
  expect(await check(engines.pglite)).toEqual(onServer);
}

/** The first column of each row of the last result. */
async function column(s: Session, sql: string): Promise<(string | null)[]> {
  const { results } = await s.query(sql);
  return results.at(-1)!.rows.map((r) => r[0] ?? null);
}

/** The one value of the last result. */
async function value(s: Session, sql: string): Promise<string | null> {
  return (await column(s, sql))[0] ?? null;
}

/** The finished-vacuuming notice of VACUUM (VERBOSE) for the table itself. */
async function vacuumReport(s: Session, sql: string): Promise<string> {
  const { notices } = await s.query(sql);
  return notices.find((n) => n.message.startsWith('finished vacuuming'))!.message;
}

const chapter = (id: string) => chapterFiles().find((c) => c.id === id)!.body;

// Chapter 3's own SQL: the jobs table, and the rows it fills it with before EXPLAIN.
const [createJobs, fillAndExplain] = runnableBlocks(chapter('a-job-is-a-row')).map((b) => b.sql);
const [fillJobs, nextJobQuery] = fillAndExplain!.split('EXPLAIN (COSTS OFF)');
// Chapter 5's claim, as the chapter prints it.
const claimQuery = /```sql\n([\s\S]*?)```/.exec(chapter('thirty-workers'))![1]!;

/** A session with chapter 3's table, 100 000 finished jobs and 100 queued ones. */
async function jobsSession(engine: Engine): Promise<Session> {
  const s = await engine.openSession({ applicationName: 'chapter 3' });
  await s.query(`DROP TABLE IF EXISTS jobs; ${createJobs!}`);
  await s.query(fillJobs!);
  return s;
}

/**
 * Chapter 3's table with its 100 queued jobs finished, then `vacuum`: VACUUM's report, and
 * the jobs_ready entries pg_class counts (a VACUUM that passes over the index counts them).
 */
async function finishQueued(engine: Engine, vacuum: string) {
  const s = await jobsSession(engine);
  await s.query("UPDATE jobs SET status = 'done' WHERE status = 'queued'");
  const report = await vacuumReport(s, vacuum);
  const entries = await value(s, "SELECT reltuples FROM pg_class WHERE relname = 'jobs_ready'");
  await dropAndClose(s, 'jobs');
  return { report, entries };
}

/** worker-07 and you, two sessions, and a jobs table with jobs 1 and 2 queued. */
async function workerAndYou(engine: Engine): Promise<{ worker: Session; you: Session }> {
  const worker = await engine.openSession({ applicationName: 'worker-07' });
  const you = await engine.openSession({ applicationName: 'you' });
  await you.query(
    "DROP TABLE IF EXISTS jobs; CREATE TABLE jobs (id int, status text); INSERT INTO jobs VALUES (1, 'queued'), (2, 'queued')",
  );
  return { worker, you };
}

async function dropAndClose(s: Session, tables: string) {
  await s.query(`DROP TABLE ${tables}`);
  await s.close();
}

/** The compiled-in defaults of the connection settings. */
async function slotDefaults(engine: Engine) {
  const s = await engine.openSession();
  const { results } = await s.query(
    `SELECT name, boot_val FROM pg_settings
      WHERE name IN ('max_connections', 'superuser_reserved_connections', 'reserved_connections')
      ORDER BY name`,
  );
  await s.close();
  return Object.fromEntries(results[0]!.rows.map(([name, v]) => [name!, Number(v)]));
}

/** Waits until pg_stat_activity no longer lists `name`: a server ends a backend a moment after its client leaves. */
async function untilGone(s: Session, name: string) {
  for (let i = 0; i < 100; i++) {
    const n = await value(
      s,
      `SELECT count(*) FROM pg_stat_activity WHERE application_name = '${name}'`,
    );
    if (n === '0') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${name} is still in pg_stat_activity`);
}

describe('the chapters’ claims on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  describe('1. A row that has been open for forty minutes', () => {
    claimTest(
      'forty-minutes',
      '`application_name` is `worker-07`, `state` is `idle in transaction`, and its `xact_start` is forty minutes ago',
      () =>
        onBoth(
          engines,
          async (engine) => {
            const { worker, you } = await workerAndYou(engine);
            await worker.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
            const { results } = await you.query(
              `SELECT application_name, state, xact_start < now() AS started_before
                 FROM pg_stat_activity WHERE application_name = 'worker-07'`,
            );
            await worker.query('COMMIT');
            await worker.close();
            await dropAndClose(you, 'jobs');
            return results[0]!.rows;
          },
          (rows) => expect(rows).toEqual([['worker-07', 'idle in transaction', 't']]),
        ),
    );

    claimTest(
      'forty-minutes',
      "A few seats at the end are kept for the bank's own staff (superusers).",
      () =>
        onBoth(
          engines,
          async (engine) => (await slotDefaults(engine)).superuser_reserved_connections,
          (reserved) => expect(reserved).toBeGreaterThan(0),
        ),
    );

    claimTest(
      'forty-minutes',
      'Everything they change is written on that page; nobody else sees it until the page is closed with COMMIT.',
      () =>
        onBoth(
          engines,
          async (engine) => {
            const [writer, other] = [await engine.openSession(), await engine.openSession()];
            await other.query('DROP TABLE IF EXISTS pages; CREATE TABLE pages (note text)');
            await writer.query("BEGIN; INSERT INTO pages VALUES ('written')");
            const before = await value(other, 'SELECT count(*) FROM pages');
            await writer.query('COMMIT');
            const after = await value(other, 'SELECT count(*) FROM pages');
            await writer.close();
            await dropAndClose(other, 'pages');
            return { before, after };
          },
          (seen) => expect(seen).toEqual({ before: '0', after: '1' }),
        ),
    );
  });

  describe('3. A job is a row', () => {
    claimTest('a-job-is-a-row', 'it holds an entry only for rows whose `status` is `queued`', () =>
      onBoth(
        engines,
        async (engine) => {
          const s = await jobsSession(engine);
          // Rebuilding the index counts its entries exactly into pg_class.reltuples.
          await s.query('REINDEX INDEX jobs_ready');
          const entries = await value(
            s,
            "SELECT reltuples FROM pg_class WHERE relname = 'jobs_ready'",
          );
          const rows = await value(s, 'SELECT count(*) FROM jobs');
          const queued = await value(s, "SELECT count(*) FROM jobs WHERE status = 'queued'");
          await dropAndClose(s, 'jobs');
          return { entries, rows, queued };
        },
        (counts) => expect(counts).toEqual({ entries: '100', rows: '100100', queued: '100' }),
      ),
    );

    claimTest(
      'a-job-is-a-row',
      'A job that finishes gets no new entry, and its old one goes when VACUUM next cleans the index.',
      () =>
        onBoth(
          engines,
          async (engine) => {
            // INDEX_CLEANUP ON: clean the indexes even for a few dead rows (see the next test).
            const { report, entries } = await finishQueued(
              engine,
              'VACUUM (VERBOSE, INDEX_CLEANUP ON) jobs',
            );
            return {
              indexScans: /index scans: (\d+)/.exec(report)?.[1],
              removedFromIndex: /had (\d+) dead item identifiers removed/.exec(report)?.[1],
              entries,
            };
          },
          (after) =>
            expect(after).toEqual({ indexScans: '1', removedFromIndex: '100', entries: '0' }),
        ),
    );

    claimTest(
      'a-job-is-a-row',
      'A VACUUM that finds only a few dead rows may leave the index for a later run; VACUUM (VERBOSE) then says `index scan bypassed`.',
      () =>
        onBoth(
          engines,
          async (engine) => {
            const { report } = await finishQueued(engine, 'VACUUM (VERBOSE) jobs');
            return {
              indexScans: /index scans: (\d+)/.exec(report)?.[1],
              bypassed: /index scan bypassed: .* have (\d+) dead item identifiers/.exec(
                report,
              )?.[1],
            };
          },
          (after) => expect(after).toEqual({ indexScans: '0', bypassed: '100' }),
        ),
    );

    claimTest(
      'a-job-is-a-row',
      'So the index stays about the size of the queue, not the size of the history.',
      () =>
        onBoth(
          engines,
          async (engine) => {
            const s = await jobsSession(engine);
            const pages = await column(
              s,
              `SELECT pg_relation_size(c) / current_setting('block_size')::int
                 FROM unnest(ARRAY['jobs_ready', 'jobs_pkey']::regclass[]) c`,
            );
            await dropAndClose(s, 'jobs');
            return { queueIndex: Number(pages[0]), wholeTableIndex: Number(pages[1]) };
          },
          // The partial index is its metapage and one leaf; an index of every row is hundreds.
          ({ queueIndex, wholeTableIndex }) => {
            expect(queueIndex).toBeLessThanOrEqual(2);
            expect(wholeTableIndex).toBeGreaterThan(100 * queueIndex);
          },
        ),
    );

    claimTest(
      'a-job-is-a-row',
      'It walks the small index in `run_after` order and stops at the first row it can lock. The hundred thousand finished rows are never read.',
      () =>
        onBoth(
          engines,
          async (engine) => {
            const s = await jobsSession(engine);
            const plan = await column(
              s,
              `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ${nextJobQuery!}`,
            );
            const tablePages = Number(
              await value(s, "SELECT relpages FROM pg_class WHERE relname = 'jobs'"),
            );
            await dropAndClose(s, 'jobs');
            // The first Buffers line is the top node's: every page the statement touched.
            const buffers = /Buffers: shared hit=(\d+)(?: read=(\d+))?/.exec(
              plan.find((l) => l!.includes('Buffers:'))!,
            )!;
            return {
              scan: plan.find((l) => l!.includes('Index Scan'))!.trim(),
              pagesTouched: Number(buffers[1]) + Number(buffers[2] ?? 0),
              tablePages,
            };
          },
          ({ scan, pagesTouched, tablePages }) => {
            expect(scan).toMatch(
              /^-> {2}Index Scan using jobs_ready on jobs \(actual rows=1(\.00)? loops=1\)$/,
            );
            expect(pagesTouched).toBeLessThan(10);
            expect(tablePages).toBeGreaterThan(500);
          },
        ),
    );

    claimTest(
      'a-job-is-a-row',
      "The `Filter` line repeats the index's own condition: for rows a statement locks, PostgreSQL keeps it",
      () =>
        onBoth(
          engines,
          async (engine) => {
            const s = await jobsSession(engine);
            const locking = await column(s, `EXPLAIN (COSTS OFF) ${nextJobQuery!}`);
            const reading = await column(
              s,
              `EXPLAIN (COSTS OFF) ${nextJobQuery!.replace('FOR UPDATE SKIP LOCKED', '')}`,
            );
            await dropAndClose(s, 'jobs');
            const filter = (plan: (string | null)[]) =>
              plan.filter((l) => l!.includes('Filter:')).map((l) => l!.trim());
            return { locking: filter(locking), reading: filter(reading) };
          },
          (filters) =>
            expect(filters).toEqual({
              locking: ["Filter: (status = 'queued'::text)"],
              reading: [],
            }),
        ),
    );
  });

  describe('5. Thirty workers, one table', () => {
    claimTest(
      'thirty-workers',
      "`WHERE status = 'queued' …` finds the candidates, through the partial index of chapter 3.",
      () =>
        onBoth(
          engines,
          async (engine) => {
            const s = await jobsSession(engine);
            const plan = await column(s, `EXPLAIN (COSTS OFF) ${claimQuery}`);
            await dropAndClose(s, 'jobs');
            return plan.filter((l) => l!.includes('Scan using')).map((l) => l!.trim());
          },
          (scans) =>
            expect(scans).toEqual([
              '->  Index Scan using jobs_ready on jobs jobs_1',
              '->  Index Scan using jobs_pkey on jobs',
            ]),
        ),
    );
  });

  describe('6. A connection is not a transaction', () => {
    claimTest(
      'a-connection-is-not-a-transaction',
      'a statement sent without `BEGIN` is a transaction of its own',
      () =>
        onBoth(
          engines,
          async (engine) => {
            const s = await engine.openSession();
            const xid = 'SELECT pg_current_xact_id()::text';
            const alone = [await value(s, xid), await value(s, xid)];
            await s.query('BEGIN');
            const inBegin = [await value(s, xid), await value(s, xid)];
            await s.query('COMMIT');
            await s.close();
            return { alone: alone[0] !== alone[1], inBegin: inBegin[0] !== inBegin[1] };
          },
          (differs) => expect(differs).toEqual({ alone: true, inBegin: false }),
        ),
    );

    claimTest(
      'a-connection-is-not-a-transaction',
      'An `UPDATE` writes a new version and marks the old one as replaced; a `DELETE` marks the row as deleted. The old versions stay on disk, dead, until `VACUUM` removes them.',
      () =>
        onBoth(
          engines,
          async (engine) => {
            const s = await engine.openSession();
            await s.query(
              'DROP TABLE IF EXISTS versions; CREATE TABLE versions (id int, v int); INSERT INTO versions SELECT g, 0 FROM generate_series(1, 10) g',
            );
            const before = await value(s, 'SELECT ctid::text FROM versions WHERE id = 1');
            await s.query('UPDATE versions SET v = 1 WHERE id <= 4');
            const after = await value(s, 'SELECT ctid::text FROM versions WHERE id = 1');
            await s.query('DELETE FROM versions WHERE id > 7');
            const { notices } = await s.query('VACUUM (VERBOSE) versions');
            await dropAndClose(s, 'versions');
            return { moved: before !== after, vacuum: vacuumTuples(notices) };
          },
          // 4 replaced versions and 3 deleted rows were still there for VACUUM to remove.
          (seen) =>
            expect(seen).toEqual({
              moved: true,
              vacuum: 'tuples: 7 removed, 7 remain, 0 are dead but not yet removable',
            }),
        ),
    );

    claimTest(
      'a-connection-is-not-a-transaction',
      'a transaction ID (XID), which a transaction takes when it first writes or locks a row, shown in `pg_stat_activity` as `backend_xid`',
      () =>
        onBoth(
          engines,
          async (engine) => {
            const { worker, you } = await workerAndYou(engine);
            const seen: Record<string, unknown> = {};
            for (const [how, sql] of [
              ['locks', 'SELECT id FROM jobs WHERE id = 1 FOR UPDATE'],
              ['writes', "UPDATE jobs SET status = 'running' WHERE id = 2"],
            ] as const) {
              await worker.query('BEGIN');
              await worker.query('SELECT count(*) FROM jobs');
              const afterRead = await value(worker, 'SELECT pg_current_xact_id_if_assigned()');
              await worker.query(sql);
              const xid = await value(worker, 'SELECT pg_current_xact_id_if_assigned()');
              const shown = await value(
                you,
                "SELECT backend_xid FROM pg_stat_activity WHERE application_name = 'worker-07'",
              );
              await worker.query('COMMIT');
              seen[how] = { afterRead, assigned: xid !== null, shown: shown === xid };
            }
            await worker.close();
            await dropAndClose(you, 'jobs');
            return seen;
          },
          (seen) => {
            const xid = { afterRead: null, assigned: true, shown: true };
            expect(seen).toEqual({ locks: xid, writes: xid });
          },
        ),
    );

    claimTest(
      'a-connection-is-not-a-transaction',
      'a snapshot, the view of the database a statement or transaction reads from, shown as `backend_xmin`',
      () =>
        onBoth(
          engines,
          async (engine) => {
            const reader = await engine.openSession({ applicationName: 'reader-rr' });
            const you = await engine.openSession({ applicationName: 'you' });
            await reader.query(
              'BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM pg_class',
            );
            const { results } = await you.query(
              `SELECT backend_xmin IS NOT NULL AS has_snapshot, backend_xid IS NOT NULL AS has_xid
                 FROM pg_stat_activity WHERE application_name = 'reader-rr'`,
            );
            await reader.query('COMMIT');
            await reader.close();
            await you.close();
            return results[0]!.rows;
          },
          (rows) => expect(rows).toEqual([['t', 'f']]),
        ),
    );

    claimTest(
      'a-connection-is-not-a-transaction',
      'the moment the transaction ends, with COMMIT, ROLLBACK, or its session going away, the horizon moves on and VACUUM removes everything it had to keep',
      () =>
        onBoth(
          engines,
          async (engine) => {
            const cleaner = await engine.openSession({ applicationName: 'cleaner' });
            await cleaner.query(
              "DROP TABLE IF EXISTS jobs, ledger; CREATE TABLE jobs (id int, status text); INSERT INTO jobs VALUES (1, 'queued'); CREATE TABLE ledger (id int)",
            );
            const seen: Record<string, unknown> = {};
            for (const end of ['COMMIT', 'ROLLBACK', 'disconnect'] as const) {
              const worker = await engine.openSession({ applicationName: 'worker-07' });
              await cleaner.query('INSERT INTO ledger SELECT generate_series(1, 100)');
              await worker.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
              await cleaner.query('DELETE FROM ledger WHERE id <= 40');
              const kept = vacuumTuples((await cleaner.query('VACUUM (VERBOSE) ledger')).notices);
              if (end === 'disconnect') await worker.close();
              else await worker.query(end);
              await untilGone(cleaner, end === 'disconnect' ? 'worker-07' : 'nobody');
              const removed = vacuumTuples(
                (await cleaner.query('VACUUM (VERBOSE) ledger')).notices,
              );
              if (end !== 'disconnect') await worker.close();
              await cleaner.query('TRUNCATE ledger');
              seen[end] = { kept, removed };
            }
            await dropAndClose(cleaner, 'jobs, ledger');
            return seen;
          },
          (seen) => {
            const each = {
              kept: 'tuples: 0 removed, 100 remain, 40 are dead but not yet removable',
              removed: 'tuples: 40 removed, 60 remain, 0 are dead but not yet removable',
            };
            expect(seen).toEqual({ COMMIT: each, ROLLBACK: each, disconnect: each });
          },
        ),
    );
  });

  describe('7. Connections multiply', () => {
    claimTest(
      'connections-multiply',
      "PostgreSQL's `max_connections` is 100 by default, and `superuser_reserved_connections` keeps 3 of them for superusers. The application's ordinary role can have 97.",
      () =>
        onBoth(engines, slotDefaults, (defaults) => {
          expect(defaults).toEqual({
            max_connections: 100,
            reserved_connections: 0,
            superuser_reserved_connections: 3,
          });
          // What an ordinary role may use: neither reserve is open to it.
          expect(
            defaults.max_connections! -
              defaults.superuser_reserved_connections! -
              defaults.reserved_connections!,
          ).toBe(97);
        }),
    );
  });

  it('every claim the audit marks `test` is checked here', () => {
    const marked = chapterClaims
      .filter((c) => c.backed === 'test')
      .map((c) => `${c.chapter}\n${c.says}`);
    expect(marked.filter((c) => !checked.has(c))).toEqual([]);
  });
});
