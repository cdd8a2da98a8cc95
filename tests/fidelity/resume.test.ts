// A parked transaction that must go on: on PGlite it is replayed in a new transaction
// (src/engine/pglite/sessions/resume.ts). Each sequence runs the same way on a real
// PostgreSQL 18: PGlite must answer as the server does, or refuse by kind, never differ.
import { describe, expect, it } from 'vitest';
import type { Engine, Session } from '../../src/engine/types';
import { answer, answerOrLockWait, kindOf, within } from '../support/answer';
import { bothEngines } from '../support/both-engines';

/**
 * Opens `names` as sessions of `engine` over a fresh `tray` table with rows 1 to 4. Not
 * `box`: a table's name is also its row type's, and on PGlite one that would hide
 * pg_catalog's `box` type is refused (`shadows-catalog`, guards.ts).
 */
async function scene(engine: Engine, ...names: string[]): Promise<Session[]> {
  const opened: Session[] = [];
  for (const name of names) opened.push(await engine.openSession({ applicationName: name }));
  await opened[0]!.query(
    'DROP TABLE IF EXISTS tray; CREATE TABLE tray (id int PRIMARY KEY, v int NOT NULL); ' +
      'INSERT INTO tray SELECT g, 0 FROM generate_series(1, 4) g',
  );
  return opened;
}

const closeAll = async (sessions: Session[]) => {
  for (const s of sessions) await s.close();
};

/** Two writers interleave in READ COMMITTED; the first goes on after the second wrote. */
async function interleavedWriters(engine: Engine) {
  const [a, b, reader] = await scene(engine, 'a', 'b', 'reader');
  await a!.query('BEGIN; UPDATE tray SET v = 1 WHERE id = 1');
  await b!.query('BEGIN; UPDATE tray SET v = 2 WHERE id = 2');
  const goesOn = await answer(a!, 'UPDATE tray SET v = v + 10 WHERE id IN (1, 3) RETURNING id, v');
  const locked = await answer(reader!, 'SELECT id FROM tray WHERE id = 3 FOR UPDATE NOWAIT');
  await a!.query('COMMIT');
  await b!.query('COMMIT');
  const rows = await answer(reader!, 'SELECT id, v FROM tray ORDER BY id');
  await closeAll([a!, b!, reader!]);
  return { goesOn, locked, rows };
}

/** A statement that waited for the first writer's row ends when its replay commits. */
async function waiterOnReplayed(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query('BEGIN; UPDATE tray SET v = 1 WHERE id = 1');
  const waiting = answer(b!, 'UPDATE tray SET v = v + 100 WHERE id = 1 RETURNING v');
  const first = await within(waiting, 400);
  const goesOn = await answer(a!, 'UPDATE tray SET v = 5 WHERE id = 4 RETURNING v');
  const still = await within(waiting, 400);
  await a!.query('COMMIT');
  const after = await within(waiting, 3000);
  await closeAll([a!, b!]);
  return { first, goesOn, still, after };
}

/** ROLLBACK TO SAVEPOINT gives up a lock that another statement waits for. */
async function rollbackToFreesWaiter(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query('BEGIN; SELECT id FROM tray WHERE id = 1 FOR KEY SHARE; SAVEPOINT f');
  await a!.query('UPDATE tray SET id = 10 WHERE id = 1');
  const waiting = answer(b!, 'SELECT id FROM tray WHERE id = 1 FOR KEY SHARE');
  const first = await within(waiting, 400);
  await a!.query('ROLLBACK TO f');
  const after = await within(waiting, 3000);
  await a!.query('COMMIT');
  await closeAll([a!, b!]);
  return { first, after };
}

/** The first writer must go on after another transaction committed. */
async function afterACommit(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query('BEGIN; INSERT INTO tray VALUES (5, (SELECT sum(v) FROM tray))');
  await b!.query('UPDATE tray SET v = 7 WHERE id = 2');
  const goesOn = await answer(a!, 'SELECT id, v FROM tray ORDER BY id');
  await a!.query('ROLLBACK').catch(() => {});
  await closeAll([a!, b!]);
  return { goesOn };
}

/**
 * The first writer must go on after another transaction committed a write to `table`
 * (`shelf`, which it never read, or `tray`, which it did), or changed the catalog.
 */
async function afterACommitTo(engine: Engine, what: 'shelf' | 'tray' | 'catalog') {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query(
    'DROP TABLE IF EXISTS shelf; CREATE TABLE shelf (id int PRIMARY KEY, n int NOT NULL); ' +
      'INSERT INTO shelf VALUES (1, 0)',
  );
  await a!.query('BEGIN; UPDATE tray SET v = v + 1 WHERE id <= 2');
  const wrote = await answer(a!, 'SELECT id, v FROM tray WHERE v > 0 ORDER BY id');
  const other = {
    shelf: 'UPDATE shelf SET n = n + 1 RETURNING n',
    tray: 'UPDATE tray SET v = 5 WHERE id = 4 RETURNING v',
    catalog: 'CREATE TABLE crate (id int) ; SELECT 1',
  }[what];
  const committed = await answer(b!, other);
  const goesOn = await answer(a!, 'UPDATE tray SET v = v * 10 WHERE id IN (1, 3) RETURNING id, v');
  const locked = await answer(b!, 'SELECT id FROM tray WHERE id = 1 FOR UPDATE NOWAIT');
  await a!.query('COMMIT').catch(() => {});
  const rows = await answer(b!, 'SELECT id, v FROM tray ORDER BY id');
  await b!.query('DROP TABLE IF EXISTS shelf, crate');
  await closeAll([a!, b!]);
  return { wrote, committed, goesOn, locked, rows };
}

/**
 * The first writer changed rows by their own columns only, and must go on after another
 * committed a change to `tray` elsewhere (`other`), or a row its WHERE now matches (`match`).
 */
async function confinedWriter(engine: Engine, what: 'other' | 'match') {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query('BEGIN; UPDATE tray SET v = v + 1 WHERE id <= 2');
  await a!.query('SELECT v FROM tray t WHERE t.id = 1 FOR UPDATE');
  await a!.query('INSERT INTO tray VALUES (9, 9)');
  const committed = await answer(
    b!,
    what === 'other' ? 'UPDATE tray SET v = 5 WHERE id = 4' : 'INSERT INTO tray VALUES (0, 0)',
  );
  const goesOn = await answer(a!, 'SELECT id, v FROM tray ORDER BY id');
  await a!.query('COMMIT').catch(() => {});
  const rows = await answer(b!, 'SELECT id, v FROM tray ORDER BY id');
  await closeAll([a!, b!]);
  return { committed, goesOn, rows };
}

/**
 * The first claim skipped a row whose holder then let it go, having written nothing: by
 * its end, or by rolling back to the savepoint it took the row after.
 */
async function skippedHolderEnded(engine: Engine, end: 'COMMIT' | 'ROLLBACK' | 'ROLLBACK TO p') {
  const [a, b, c] = await scene(engine, 'a', 'b', 'c');
  await b!.query('BEGIN; SAVEPOINT p; SELECT id FROM tray WHERE id = 1 FOR UPDATE');
  const claimed = await answer(
    a!,
    'BEGIN; SELECT id FROM tray ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1',
  );
  await b!.query(end);
  const goesOn = await answer(a!, 'UPDATE tray SET v = 9 WHERE id = 2 RETURNING v');
  // The claim holds its row still.
  const held = await answer(c!, 'SELECT id FROM tray WHERE id = 2 FOR UPDATE NOWAIT');
  // Set aside again, it goes on again: its claim is taken again by its key.
  const again = await answer(a!, 'SELECT id, v FROM tray WHERE v = 9');
  const free = await answer(c!, 'SELECT id FROM tray WHERE id = 1 FOR UPDATE NOWAIT');
  await a!.query('ROLLBACK').catch(() => {});
  await closeAll([a!, b!, c!]);
  return { claimed, goesOn, held, again, free };
}

/**
 * Two transactions lock each other's table, each having SET its deadlock_timeout inside
 * it: the one that waited first waits 100 s, the other 50 ms, so the second one's check
 * finds the deadlock and its statement fails; the first gets its lock once the second
 * rolls back, after another transaction committed (so it goes on as a replay).
 */
async function ownDeadlockTimeout(engine: Engine) {
  const [a, b, c] = await scene(engine, 'a', 'b', 'c');
  await a!.query(
    'DROP TABLE IF EXISTS lid; CREATE TABLE lid (id int); CREATE TABLE IF NOT EXISTS shelf (n int)',
  );
  await a!.query("BEGIN; SET deadlock_timeout = '100s'; LOCK TABLE tray");
  await b!.query("BEGIN; SET deadlock_timeout = '50ms'; LOCK TABLE lid");
  const first = answer(a!, 'LOCK TABLE lid');
  const firstEarly = await answerOrLockWait(first, c!, a!);
  const second = await within(answer(b!, 'LOCK TABLE tray'), 5000);
  await c!.query('INSERT INTO shelf VALUES (1)');
  await b!.query('ROLLBACK');
  const firstLate = await within(first, 5000);
  const after = await answer(a!, "SELECT current_setting('deadlock_timeout')");
  await a!.query('COMMIT').catch(() => {});
  await c!.query('DROP TABLE IF EXISTS lid, shelf');
  await closeAll([a!, b!, c!]);
  return { firstEarly, second, firstLate, after };
}

/** The first writer's XID was shown to a reader before it had to go on. */
async function xidShown(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query('BEGIN; UPDATE tray SET v = 1 WHERE id = 1');
  await b!.query(
    "SELECT backend_xid IS NOT NULL FROM pg_stat_activity WHERE application_name = 'a'",
  );
  const goesOn = await answer(a!, 'UPDATE tray SET v = 2 WHERE id = 2 RETURNING v');
  const state = await answer(b!, "SELECT state FROM pg_stat_activity WHERE application_name = 'a'");
  const look = await answer(
    b!,
    "SELECT backend_xid IS NOT NULL FROM pg_stat_activity WHERE application_name = 'a'",
  );
  await a!.query('COMMIT');
  const rows = await answer(b!, 'SELECT xmin = xmin FROM tray WHERE id = 1');
  await closeAll([a!, b!]);
  return { goesOn, state, look, rows };
}

/** The survivor of the classic deadlock goes on; the victim's DETAIL showed its XID. */
async function deadlockSurvivor(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query('BEGIN');
  await a!.query('UPDATE tray SET v = 1 WHERE id = 1');
  await b!.query('BEGIN');
  await b!.query('UPDATE tray SET v = 2 WHERE id = 2');
  const waiting = answer(a!, 'UPDATE tray SET v = 1 WHERE id = 2');
  // Past a's deadlock_timeout (1 s), so the check of b's wait finds the cycle: b fails.
  await within(waiting, 1500);
  const victim = await answer(b!, 'UPDATE tray SET v = 2 WHERE id = 1');
  const survivor = await waiting;
  await b!.query('ROLLBACK');
  const goesOn = await answer(a!, 'SELECT id, v FROM tray WHERE id < 3 ORDER BY id');
  await a!.query('COMMIT');
  const rows = await answer(b!, 'SELECT id, v FROM tray ORDER BY id');
  await closeAll([a!, b!]);
  return { victim: kindOf(victim), survivor, goesOn, rows };
}

/**
 * The first writer read the clock: now(), which stands for the whole transaction, then
 * statement_timestamp(), which moves with each statement.
 */
async function readTheClock(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  const [[began]] = (await answer(a!, 'BEGIN; SELECT now()::text')) as string[][];
  await a!.query(
    'UPDATE tray SET v = extract(milliseconds FROM CURRENT_TIMESTAMP)::int % 7 WHERE id = 1',
  );
  await b!.query('SELECT 1');
  const goesOn = await answer(
    a!,
    `SELECT now()::text = '${began}', v = extract(milliseconds FROM now())::int % 7 ` +
      'FROM tray WHERE id = 1',
  );
  await a!.query('SELECT statement_timestamp() >= now()');
  await b!.query('SELECT 1');
  const afterStatementTime = await answer(a!, 'SELECT count(*) FROM tray');
  await a!.query('ROLLBACK').catch(() => {});
  await closeAll([a!, b!]);
  return { goesOn, afterStatementTime };
}

/** The claims `workersInTurn` tries: SELECTs that show the key or not, and the article's. */
const claims = {
  keyed: 'SELECT id, v FROM tray WHERE v = 0 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED',
  unkeyed: 'SELECT v FROM tray WHERE v = 0 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED',
  update:
    'UPDATE tray SET v = 5 WHERE id = (SELECT id FROM tray WHERE v = 0 ORDER BY id ' +
    'FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING id',
};

/**
 * Two workers claim a row each with SKIP LOCKED; the first finishes its row and commits,
 * then the second goes on.
 */
async function workersInTurn(engine: Engine, shape: keyof typeof claims) {
  const [a, b] = await scene(engine, 'a', 'b');
  const claim = claims[shape];
  const first = await answer(a!, `BEGIN; ${claim}`);
  const second = await answer(b!, `BEGIN; ${claim}`);
  await a!.query('UPDATE tray SET v = 1 WHERE id = 1; COMMIT');
  const goesOn = await answer(b!, 'UPDATE tray SET v = 2 WHERE id = 2 RETURNING v');
  // It claims again, is set aside, and goes on again: its claims ran again beside a
  // transaction that is still open, so nothing was let go since.
  const third = await answer(b!, claim);
  await a!.query('SELECT 1');
  const again = await answer(b!, 'UPDATE tray SET v = 2 WHERE id = 3 RETURNING v');
  await b!.query('COMMIT');
  const rows = await answer(a!, 'SELECT id, v FROM tray ORDER BY id');
  await closeAll([a!, b!]);
  return { first, second, goesOn, third, again, rows };
}

/** The chapter's claim, against a job table as people write one: serial ids, clock defaults. */
const chapterClaim =
  "UPDATE queue_jobs SET state = 'running' WHERE id = (SELECT id FROM queue_jobs " +
  "WHERE state = 'queued' ORDER BY run_after FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING id";

/**
 * Two workers claim jobs from a table whose id is a bigserial and whose times default to
 * now(); the first finishes and commits, the second goes on: its UPDATEs fill no column
 * from a default. The jobs are due one after another (`apart`), or all at once (`tied`:
 * queued by one INSERT, run_after is its now()), where the order leaves the choice among
 * the rest to the plan. Then a worker that wrote a note (an INSERT, whose default is now())
 * is to go on.
 */
async function jobTable(engine: Engine, due: 'apart' | 'tied') {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query(
    'DROP TABLE IF EXISTS queue_jobs, queue_notes; ' +
      'CREATE TABLE queue_jobs (id bigserial PRIMARY KEY, kind text NOT NULL, ' +
      "state text NOT NULL DEFAULT 'queued', created_at timestamptz NOT NULL DEFAULT now(), " +
      'run_after timestamptz NOT NULL DEFAULT now()); ' +
      (due === 'tied'
        ? "INSERT INTO queue_jobs (kind) SELECT 'email' FROM generate_series(1, 4); "
        : 'INSERT INTO queue_jobs (kind, run_after) ' +
          "SELECT 'email', now() - (5 - g) * interval '1 second' FROM generate_series(1, 4) g; ") +
      'CREATE TABLE queue_notes (note text, at timestamptz DEFAULT now())',
  );
  const first = await answer(a!, `BEGIN; ${chapterClaim}`);
  const second = await answer(b!, `BEGIN; ${chapterClaim}`);
  await a!.query("UPDATE queue_jobs SET state = 'done' WHERE id = 1; COMMIT");
  const goesOn = await answer(
    b!,
    "UPDATE queue_jobs SET state = 'done' WHERE id = 2 RETURNING state",
  );
  await b!.query('COMMIT');
  await b!.query("BEGIN; INSERT INTO queue_notes (note) VALUES ('sent 2')");
  await a!.query("UPDATE queue_jobs SET state = 'queued' WHERE id = 1");
  const afterInsert = await answer(b!, 'SELECT count(*), bool_and(at = now()) FROM queue_notes');
  await b!.query('ROLLBACK');
  const rows = await answer(a!, 'SELECT id, state FROM queue_jobs ORDER BY id');
  await a!.query('DROP TABLE queue_jobs, queue_notes');
  await closeAll([a!, b!]);
  return { first, second, goesOn, afterInsert, rows };
}

/**
 * Twelve rows, most tied in the claim's order: a sort does not keep ties in the order it
 * met them, and a bounded one (a LIMIT without a locking clause) breaks them otherwise
 * than a full one (under LockRows), so which tied row comes first depends on the plan.
 * The first worker claims a row, the second the next, the first finishes and commits,
 * then the second goes on.
 */
async function tiedClaim(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query(
    'DROP TABLE IF EXISTS tied; CREATE TABLE tied (id int PRIMARY KEY, k int, v int NOT NULL DEFAULT 0); ' +
      'INSERT INTO tied (id, k) SELECT g, CASE WHEN g % 4 = 1 THEN 2 ELSE 1 END ' +
      'FROM generate_series(1, 12) g',
  );
  const claim = 'SELECT id FROM tied WHERE v = 0 ORDER BY k LIMIT 1 FOR UPDATE SKIP LOCKED';
  const first = await answer(a!, `BEGIN; ${claim}`);
  const second = await answer(b!, `BEGIN; ${claim}`);
  await a!.query(`UPDATE tied SET v = 1 WHERE id IN (${claim}); COMMIT`);
  const goesOn = await answer(b!, 'SELECT 1');
  const committed = await answer(b!, 'COMMIT');
  const rows = await answer(a!, 'SELECT id FROM tied WHERE v = 1 ORDER BY id');
  await a!.query('DROP TABLE tied');
  await closeAll([a!, b!]);
  return { first, second, goesOn, committed, rows };
}

/** Where a volatile function hides from a transaction's text: what `hiddenVolatile` tries. */
const hiders = {
  view: 'CREATE VIEW hid_v AS SELECT (random() * 1000)::int AS r; INSERT INTO hid_t SELECT 1, r FROM hid_v',
  clock:
    'CREATE VIEW hid_v AS SELECT (extract(epoch FROM statement_timestamp()) * 0)::int AS r; ' +
    'INSERT INTO hid_t SELECT 1, r FROM hid_v',
  domain:
    'CREATE DOMAIN hid_d AS int DEFAULT (random() * 1000)::int; ' +
    'ALTER TABLE hid_t ADD COLUMN d hid_d; INSERT INTO hid_t (id) VALUES (1)',
  stable:
    "CREATE FUNCTION hid_f() RETURNS int STABLE LANGUAGE sql AS 'SELECT (random() * 1000)::int'; " +
    'INSERT INTO hid_t VALUES (1, hid_f())',
};

/**
 * A transaction wrote a value a volatile function gave, reached through a view, a domain's
 * default, or a function of the reader's marked STABLE; then it is to go on.
 */
async function hiddenVolatile(engine: Engine, how: keyof typeof hiders) {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query(
    'DROP VIEW IF EXISTS hid_v; DROP TABLE IF EXISTS hid_t; DROP DOMAIN IF EXISTS hid_d; ' +
      'DROP FUNCTION IF EXISTS hid_f(); CREATE TABLE hid_t (id int PRIMARY KEY, r int)',
  );
  const [setup, write] = hiders[how].split(/; (?=INSERT)/);
  await a!.query(setup!);
  await a!.query(`BEGIN; ${write}`);
  await b!.query('SELECT 1');
  const goesOn = await answer(a!, 'SELECT count(*) FROM hid_t');
  await a!.query('ROLLBACK');
  await a!.query(
    'DROP VIEW IF EXISTS hid_v; DROP TABLE hid_t; DROP DOMAIN IF EXISTS hid_d; DROP FUNCTION IF EXISTS hid_f()',
  );
  await closeAll([a!, b!]);
  return goesOn;
}

/**
 * A transaction's DELETE or UPDATE fills a column from a volatile default all the same:
 * a foreign key with ON DELETE SET DEFAULT (`fk`), or a rule that adds an INSERT (`rule`).
 */
async function defaultBehindWrite(engine: Engine, how: 'fk' | 'rule') {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query(
    'DROP TABLE IF EXISTS queue_task, queue_owner, queue_audit; ' +
      'CREATE TABLE queue_owner (id int PRIMARY KEY); INSERT INTO queue_owner VALUES (0), (1); ' +
      'CREATE TABLE queue_task (id int PRIMARY KEY, owner int DEFAULT (random() * 0)::int ' +
      'REFERENCES queue_owner ON DELETE SET DEFAULT); INSERT INTO queue_task VALUES (1, 1); ' +
      'CREATE TABLE queue_audit (id int, at timestamptz DEFAULT clock_timestamp()); ' +
      'CREATE RULE queue_task_audit AS ON UPDATE TO queue_task ' +
      'DO ALSO INSERT INTO queue_audit (id) VALUES (NEW.id)',
  );
  await a!.query(
    how === 'fk'
      ? 'BEGIN; DELETE FROM queue_owner WHERE id = 1'
      : 'BEGIN; UPDATE queue_task SET owner = 0 WHERE id = 1',
  );
  await b!.query('SELECT 1');
  const goesOn = await answer(
    a!,
    how === 'fk' ? 'SELECT owner FROM queue_task' : 'SELECT count(*) FROM queue_audit',
  );
  await a!.query('ROLLBACK');
  await a!.query('DROP TABLE queue_task, queue_owner, queue_audit');
  await closeAll([a!, b!]);
  return goesOn;
}

/**
 * Three workers claim a row each; the first finishes and commits, then the third goes on
 * while the second still holds the row that comes before its own.
 */
async function threeWorkers(engine: Engine) {
  const [a, b, c] = await scene(engine, 'a', 'b', 'c');
  const claimed = [];
  for (const s of [a!, b!, c!]) claimed.push(await answer(s, `BEGIN; ${claims.keyed}`));
  await a!.query('UPDATE tray SET v = 1 WHERE id = 1; COMMIT');
  const goesOn = await answer(c!, 'UPDATE tray SET v = 3 WHERE id = 3 RETURNING v');
  await c!.query('COMMIT');
  await b!.query('COMMIT');
  const rows = await answer(a!, 'SELECT id, v FROM tray ORDER BY id');
  await closeAll([a!, b!, c!]);
  return { claimed, goesOn, rows };
}

/**
 * A writer's UPDATE read another table in passing (TABLE, a subquery): another session
 * changes that table and commits, then the writer goes on.
 */
async function readInPassing(engine: Engine, read: 'knob' | 'tray') {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query(
    'DROP TABLE IF EXISTS knob; CREATE TABLE knob (x int); INSERT INTO knob VALUES (5)',
  );
  await a!.query(
    read === 'knob'
      ? 'BEGIN; UPDATE tray SET v = (TABLE knob LIMIT 1) WHERE id = 1'
      : 'BEGIN; UPDATE tray SET v = (SELECT max(v) FROM tray) + 5 WHERE id = 1',
  );
  await b!.query(read === 'knob' ? 'UPDATE knob SET x = 7' : 'INSERT INTO tray VALUES (9, 100)');
  const goesOn = await answer(a!, 'SELECT v FROM tray WHERE id = 1');
  await a!.query('COMMIT');
  const rows = await answer(b!, 'SELECT id, v FROM tray ORDER BY id');
  await a!.query('DROP TABLE knob');
  await closeAll([a!, b!]);
  return { goesOn, rows };
}

/**
 * A claim whose answer names a key PostgreSQL does not enforce over every row it scans:
 * another transaction held the row it would take first, and rolls back.
 */
async function unenforcedKey(engine: Engine, how: 'inherited' | 'offset') {
  const [a, b, c] = await scene(engine, 'a', 'b', 'c');
  await a!.query(
    how === 'inherited'
      ? 'DROP TABLE IF EXISTS kin CASCADE; CREATE TABLE kin (id int PRIMARY KEY, v int); ' +
          'CREATE TABLE kin_child () INHERITS (kin); INSERT INTO kin VALUES (1, 0); ' +
          'INSERT INTO kin_child VALUES (1, 0)'
      : 'DROP TABLE IF EXISTS kin CASCADE; CREATE TABLE kin (id int PRIMARY KEY, v int); ' +
          'INSERT INTO kin VALUES (1, 1), (2, 2), (3, 3)',
  );
  await b!.query(
    how === 'inherited'
      ? 'BEGIN; SELECT id FROM ONLY kin FOR UPDATE'
      : 'BEGIN; SELECT id FROM kin WHERE id = 2 FOR UPDATE',
  );
  const claimed = await answer(
    a!,
    how === 'inherited'
      ? 'BEGIN; SELECT id FROM kin LIMIT 1 FOR UPDATE SKIP LOCKED'
      : 'BEGIN; SELECT id FROM kin ORDER BY v OFFSET 1 LIMIT 1 FOR UPDATE SKIP LOCKED',
  );
  // The row the answer does not name is locked too: the child's (the parent's key does
  // not cover it), or the one OFFSET passed over (LockRows runs below Limit).
  const unnamed = await answer(
    c!,
    how === 'inherited'
      ? 'SELECT id FROM kin_child FOR UPDATE NOWAIT'
      : 'SELECT id FROM kin WHERE id = 1 FOR UPDATE NOWAIT',
  );
  await b!.query('ROLLBACK');
  const goesOn = await answer(a!, 'SELECT 1');
  await a!.query('ROLLBACK');
  await a!.query('DROP TABLE kin CASCADE');
  await closeAll([a!, b!, c!]);
  return { claimed, unnamed, goesOn };
}

/** A writer measured a query with EXPLAIN ANALYZE, then another session ran. */
async function measured(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query('BEGIN; UPDATE tray SET v = 9 WHERE id = 2');
  await a!.query('EXPLAIN (ANALYZE) SELECT * FROM tray');
  await b!.query('SELECT 1');
  const goesOn = await answer(a!, 'SELECT v FROM tray WHERE id = 2');
  await a!.query('COMMIT');
  const rows = await answer(b!, 'SELECT id, v FROM tray ORDER BY id');
  await closeAll([a!, b!]);
  return { goesOn, rows };
}

/** After a replay, a look at XIDs while a younger transaction is open. */
async function renumbered(engine: Engine) {
  const [a, b, reader] = await scene(engine, 'a', 'b', 'reader');
  await a!.query('BEGIN; UPDATE tray SET v = 1 WHERE id = 1');
  await b!.query('BEGIN; UPDATE tray SET v = 2 WHERE id = 2');
  await a!.query('UPDATE tray SET v = 3 WHERE id = 3');
  const look = await answer(
    reader!,
    'SELECT application_name FROM pg_stat_activity WHERE backend_xid IS NOT NULL ORDER BY age(backend_xid) DESC',
  );
  await b!.query('COMMIT');
  const later = await answer(
    reader!,
    'SELECT application_name FROM pg_stat_activity WHERE backend_xid IS NOT NULL ORDER BY age(backend_xid) DESC',
  );
  await a!.query('COMMIT');
  await closeAll([a!, b!, reader!]);
  return { look, later };
}

/**
 * Write skew between two SERIALIZABLE transactions: A reads one row of tray, B reads the
 * other table and inserts into tray beside A's row (PostgreSQL notes A's read against
 * B's write, through the index page A's lookup locked), then A writes what B read. Both
 * conflicts make a cycle, and a server fails B's COMMIT. A replay of A would read its one
 * row again and never meet B's new one.
 */
async function serializableReplayAfterWrite(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query('DROP TABLE IF EXISTS ledger2; CREATE TABLE ledger2 (n int)');
  await a!.query('BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT v FROM tray WHERE id = 1');
  await b!.query('BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT count(*) FROM ledger2');
  await b!.query('INSERT INTO tray VALUES (5, 0)');
  const goesOn = await answer(a!, 'INSERT INTO ledger2 VALUES (1)');
  const aEnds = await answer(a!, 'COMMIT');
  const bEnds = await answer(b!, 'COMMIT');
  await a!.query('DROP TABLE ledger2');
  await closeAll([a!, b!]);
  return { goesOn, aEnds, bEnds };
}

/**
 * A REPEATABLE READ reader goes on, twice, after others committed changes, a delete and a
 * VACUUM: it sees what its first snapshot saw, its write to a row changed since fails.
 */
async function repeatableReadAfterCommits(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  const first = await answer(a!, 'BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT sum(v) FROM tray');
  await b!.query('UPDATE tray SET v = 7 WHERE id = 2');
  await b!.query('DELETE FROM tray WHERE id = 4');
  await b!.query('VACUUM tray');
  const again = await answer(a!, 'SELECT id, v FROM tray ORDER BY id');
  await b!.query('INSERT INTO tray VALUES (5, 5)');
  const count = await answer(a!, 'SELECT count(*) FROM tray');
  const writes = await answer(a!, 'UPDATE tray SET v = 1 WHERE id = 1 RETURNING v');
  const changed = await answer(a!, 'UPDATE tray SET v = 1 WHERE id = 2');
  await a!.query('ROLLBACK');
  const rows = await answer(b!, 'SELECT id, v FROM tray ORDER BY id');
  await closeAll([a!, b!]);
  return { first, again, count, writes, changed, rows };
}

/**
 * A REPEATABLE READ reader whose snapshot saw another transaction open, which has since
 * committed, and one that asks for ACCESS EXCLUSIVE after a commit: both must go on.
 */
async function repeatableReadBeyondImport(engine: Engine) {
  const [a, b, c] = await scene(engine, 'a', 'b', 'c');
  await c!.query('BEGIN; UPDATE tray SET v = 3 WHERE id = 3');
  await a!.query('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT sum(v) FROM tray');
  await c!.query('COMMIT');
  const holderEnded = await answer(a!, 'SELECT sum(v) FROM tray');
  await a!.query('ROLLBACK').catch(() => {});
  await a!.query('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT sum(v) FROM tray');
  await b!.query('UPDATE tray SET v = 2 WHERE id = 2');
  const exclusive = await answer(a!, 'LOCK TABLE tray IN ACCESS EXCLUSIVE MODE');
  await a!.query('ROLLBACK').catch(() => {});
  // The same once a replay made it resident again, its snapshot's stand-in still kept.
  await a!.query('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT sum(v) FROM tray');
  await b!.query('UPDATE tray SET v = 4 WHERE id = 4');
  const resident = await answer(a!, 'SELECT sum(v) FROM tray');
  const exclusiveAfter = await answer(a!, 'LOCK TABLE tray IN ACCESS EXCLUSIVE MODE');
  await a!.query('ROLLBACK').catch(() => {});
  // A change undone by ROLLBACK TO SAVEPOINT, to a row another then changes and commits.
  await a!.query('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT sum(v) FROM tray');
  for (const sql of ['SAVEPOINT s', 'UPDATE tray SET v = 7 WHERE id = 1', 'ROLLBACK TO s']) {
    await a!.query(sql);
  }
  await b!.query('UPDATE tray SET v = 1 WHERE id = 1');
  const undone = await answer(a!, 'SELECT sum(v) FROM tray');
  await a!.query('ROLLBACK').catch(() => {});
  await closeAll([a!, b!, c!]);
  return { holderEnded, exclusive, resident, exclusiveAfter, undone };
}

/** A REPEATABLE READ reader under a role with SELECT only goes on after a commit. */
async function repeatableReadUnderRole(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  await b!.query(
    'DROP ROLE IF EXISTS regress_tray; CREATE ROLE regress_tray; GRANT SELECT ON tray TO regress_tray',
  );
  await a!.query('SET ROLE regress_tray');
  await a!.query('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT sum(v) FROM tray');
  await b!.query('UPDATE tray SET v = 6 WHERE id = 1');
  const again = await answer(a!, 'SELECT sum(v), current_user FROM tray');
  await a!.query('COMMIT');
  await a!.query('RESET ROLE');
  await b!.query('DROP OWNED BY regress_tray; DROP ROLE regress_tray');
  await closeAll([a!, b!]);
  return { again };
}

/**
 * A REPEATABLE READ transaction locks FOR KEY SHARE, and checks a foreign key on, a row
 * another transaction updated in its other columns and committed after its snapshot: a
 * server lets both go on (only a change of the key conflicts).
 */
async function keyShareAfterUpdate(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  await a!.query('DROP TABLE IF EXISTS tray_ref; CREATE TABLE tray_ref (t int REFERENCES tray)');
  await a!.query('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT sum(v) FROM tray');
  await b!.query('UPDATE tray SET v = 9 WHERE id = 1');
  const locked = await answer(a!, 'SELECT id, v FROM tray WHERE id = 1 FOR KEY SHARE');
  await b!.query('UPDATE tray SET v = 8 WHERE id = 2');
  const referenced = await answer(a!, 'INSERT INTO tray_ref VALUES (2) RETURNING t');
  await a!.query('COMMIT');
  await a!.query('DROP TABLE tray_ref');
  await closeAll([a!, b!]);
  return { locked, referenced };
}

/**
 * A transaction that rolled back to a savepoint, each statement sent alone and without a
 * semicolon, must go on while another holds the row lock it gave up.
 */
async function undoneThenTaken(engine: Engine) {
  const [a, b] = await scene(engine, 'a', 'b');
  for (const sql of [
    'BEGIN',
    'SAVEPOINT s',
    'UPDATE tray SET v = 1 WHERE id = 1',
    'ROLLBACK TO s',
  ]) {
    await a!.query(sql);
  }
  await b!.query('BEGIN');
  await b!.query('UPDATE tray SET v = 2 WHERE id = 1');
  const goesOn = await within(answer(a!, 'SELECT id, v FROM tray WHERE id < 3 ORDER BY id'), 2000);
  await b!.query('COMMIT');
  const after = await answer(a!, 'SELECT id, v FROM tray WHERE id < 3 ORDER BY id');
  const ends = await answer(a!, 'COMMIT');
  await closeAll([a!, b!]);
  return { goesOn, after, ends };
}

/**
 * A REPEATABLE READ reader goes on while another transaction is open (nothing committed
 * yet), then after it commits; then its UPDATE waits for a third transaction's row, which
 * that one changes and commits: a server fails the UPDATE with 40001.
 */
async function repeatableReadAcrossWaits(engine: Engine) {
  const [a, b, c] = await scene(engine, 'a', 'b', 'c');
  await a!.query('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT sum(v) FROM tray');
  await b!.query('BEGIN');
  await b!.query('UPDATE tray SET v = 2 WHERE id = 2');
  const open = await answer(a!, 'SELECT sum(v) FROM tray');
  await b!.query('COMMIT');
  const committed = await answer(a!, 'SELECT sum(v) FROM tray');
  await c!.query('BEGIN');
  await c!.query('UPDATE tray SET v = 3 WHERE id = 3');
  const waiting = answer(a!, 'UPDATE tray SET v = 9 WHERE id >= 3');
  const first = await within(waiting, 400);
  await c!.query('COMMIT');
  const after = await within(waiting, 3000);
  await a!.query('ROLLBACK');
  await closeAll([a!, b!, c!]);
  return { open, committed, first, after };
}

describe('a parked transaction that goes on, on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('goes on as a replay when nothing committed since it began, and keeps its locks', async () => {
    const expected = {
      goesOn: [
        ['1', '11'],
        ['3', '10'],
      ],
      locked: '55P03 could not obtain lock on row in relation "tray"',
      rows: [
        ['1', '11'],
        ['2', '2'],
        ['3', '10'],
        ['4', '0'],
      ],
    };
    expect(await interleavedWriters(engines.server.engine)).toEqual(expected);
    expect(await interleavedWriters(engines.pglite)).toEqual(expected);
  });

  it('a statement waiting for its rows waits through the replay and ends with its commit', async () => {
    const expected = { first: 'waiting', goesOn: [['5']], still: 'waiting', after: [['101']] };
    expect(await waiterOnReplayed(engines.server.engine)).toEqual(expected);
    expect(await waiterOnReplayed(engines.pglite)).toEqual(expected);
  });

  it('ROLLBACK TO SAVEPOINT lets a statement waiting for the lock it gave up go on', async () => {
    const expected = { first: 'waiting', after: [['1']] };
    expect(await rollbackToFreesWaiter(engines.server.engine)).toEqual(expected);
    expect(await rollbackToFreesWaiter(engines.pglite)).toEqual(expected);
  });

  it('a SERIALIZABLE one whose read another open transaction wrote over is refused, where a server fails that one', async () => {
    expect(await serializableReplayAfterWrite(engines.server.engine)).toEqual({
      goesOn: [],
      aEnds: [],
      bEnds: '40001 could not serialize access due to read/write dependencies among transactions',
    });
    const onPglite = await serializableReplayAfterWrite(engines.pglite);
    expect(kindOf(onPglite.goesOn)).toBe('parked-goes-on');
  });

  it('after another transaction committed, it is refused as parked-goes-on', async () => {
    const onServer = await afterACommit(engines.server.engine);
    expect(onServer.goesOn).toEqual([
      ['1', '0'],
      ['2', '7'],
      ['3', '0'],
      ['4', '0'],
      ['5', '0'],
    ]);
    expect(kindOf((await afterACommit(engines.pglite)).goesOn)).toBe('parked-goes-on');
  });

  it('after a commit that wrote only tables it never locked, READ COMMITTED goes on as a replay', async () => {
    const expected = {
      wrote: [
        ['1', '1'],
        ['2', '1'],
      ],
      committed: [['1']],
      goesOn: [
        ['1', '10'],
        ['3', '0'],
      ],
      locked: '55P03 could not obtain lock on row in relation "tray"',
      rows: [
        ['1', '10'],
        ['2', '1'],
        ['3', '0'],
        ['4', '0'],
      ],
    };
    expect(await afterACommitTo(engines.server.engine, 'shelf')).toEqual(expected);
    expect(await afterACommitTo(engines.pglite, 'shelf')).toEqual(expected);
  });

  it('after a commit that wrote a table it locked, or the catalog, it is refused as parked-goes-on', async () => {
    const onServer = await afterACommitTo(engines.server.engine, 'tray');
    expect(onServer.goesOn).toEqual([
      ['1', '10'],
      ['3', '0'],
    ]);
    expect(onServer.rows).toEqual([
      ['1', '10'],
      ['2', '1'],
      ['3', '0'],
      ['4', '5'],
    ]);
    const onPglite = await afterACommitTo(engines.pglite, 'tray');
    expect(kindOf(onPglite.goesOn)).toBe('parked-goes-on');
    expect(onPglite.goesOn).toMatch(/a table it read or wrote was written since/);
    const catalog = await afterACommitTo(engines.pglite, 'catalog');
    expect(kindOf(catalog.goesOn)).toBe('parked-goes-on');
    expect(catalog.goesOn).toMatch(/the catalog changed since/);
  });

  it('after a commit to other rows of a table it changed by WHERE, READ COMMITTED goes on as a replay', async () => {
    const onServer = await confinedWriter(engines.server.engine, 'other');
    expect(onServer.goesOn).toEqual([
      ['1', '1'],
      ['2', '1'],
      ['3', '0'],
      ['4', '5'],
      ['9', '9'],
    ]);
    expect(await confinedWriter(engines.pglite, 'other')).toEqual(onServer);
  });

  it('after a commit of a row its WHERE now matches, it is refused before anything is rolled back', async () => {
    const onServer = await confinedWriter(engines.server.engine, 'match');
    expect(onServer.goesOn).toEqual([
      ['0', '0'],
      ['1', '1'],
      ['2', '1'],
      ['3', '0'],
      ['4', '0'],
      ['9', '9'],
    ]);
    const onPglite = await confinedWriter(engines.pglite, 'match');
    expect(kindOf(onPglite.goesOn)).toBe('parked-goes-on');
    expect(onPglite.goesOn).toMatch(/more rows match one of them now/);
    // Still parked, it commits as it was.
    expect(onPglite.rows).toEqual(onServer.rows);
  });

  it.each(['COMMIT', 'ROLLBACK', 'ROLLBACK TO p'] as const)(
    'after %s in a transaction that only locked rows, a claim that skipped one goes on holding its own row, taken again by its key',
    async (end) => {
      const held = '55P03 could not obtain lock on row in relation "tray"';
      const onServer = await skippedHolderEnded(engines.server.engine, end);
      expect(onServer).toEqual({
        claimed: [['2']],
        goesOn: [['9']],
        held,
        again: [['2', '9']],
        free: [['1']],
      });
      expect(await skippedHolderEnded(engines.pglite, end)).toEqual(onServer);
    },
  );

  it('a parked transaction’s own SET deadlock_timeout decides which statement the deadlock fails', async () => {
    const expected = {
      firstEarly: 'waiting',
      second: '40P01 deadlock detected',
      firstLate: [],
      after: [['100s']],
    };
    expect(await ownDeadlockTimeout(engines.server.engine)).toEqual(expected);
    expect(await ownDeadlockTimeout(engines.pglite)).toEqual(expected);
  });

  it('once a reader saw its XID it goes on under a new one, which stays hidden; now() stands still through a replay, statement_timestamp() is refused', async () => {
    const onServer = await xidShown(engines.server.engine);
    expect(onServer).toEqual({
      goesOn: [['2']],
      state: [['idle in transaction']],
      look: [['t']],
      rows: [['t']],
    });
    const onPglite = await xidShown(engines.pglite);
    expect(onPglite.goesOn).toEqual(onServer.goesOn);
    expect(onPglite.state).toEqual(onServer.state);
    expect(kindOf(onPglite.look)).toBe('xid-renumbered');
    expect(kindOf(onPglite.rows)).toBe('xid-renumbered');
    const clock = await readTheClock(engines.server.engine);
    expect(clock).toEqual({ goesOn: [['t', 't']], afterStatementTime: [['4']] });
    const clockHere = await readTheClock(engines.pglite);
    expect(clockHere.goesOn).toEqual(clock.goesOn);
    expect(kindOf(clockHere.afterStatementTime)).toBe('parked-goes-on');
    expect(clockHere.afterStatementTime).toMatch(/statement_timestamp/);
  });

  it('the survivor of a deadlock goes on, though the victim’s DETAIL named its XID', async () => {
    const expected = {
      victim: '40P01 deadlock detected',
      survivor: [],
      goesOn: [
        ['1', '1'],
        ['2', '1'],
      ],
      rows: [
        ['1', '1'],
        ['2', '1'],
        ['3', '0'],
        ['4', '0'],
      ],
    };
    expect(await deadlockSurvivor(engines.server.engine)).toEqual(expected);
    expect(await deadlockSurvivor(engines.pglite)).toEqual(expected);
  });

  it.each([
    [
      'a SELECT … FOR UPDATE SKIP LOCKED that returns the key',
      'keyed',
      ['1', '0'],
      ['2', '0'],
      ['3', '0'],
    ],
    [
      'the article’s UPDATE … WHERE id = (SELECT … SKIP LOCKED) RETURNING id',
      'update',
      ['1'],
      ['2'],
      ['3'],
    ],
  ] as const)(
    'a worker whose claim, %s, would take the same row again goes on after the other worker committed',
    async (_what, shape, first, second, third) => {
      const onServer = await workersInTurn(engines.server.engine, shape);
      expect(onServer).toEqual({
        first: [first],
        second: [second],
        goesOn: [['2']],
        third: [third],
        again: [['2']],
        rows: [
          ['1', '1'],
          ['2', '2'],
          ['3', '2'],
          ['4', '0'],
        ],
      });
      expect(await workersInTurn(engines.pglite, shape)).toEqual(onServer);
    },
  );

  it('workers claim from a job table with serial ids and clock defaults and go on, as does one that queued a note stamped now()', async () => {
    const onServer = await jobTable(engines.server.engine, 'apart');
    expect(onServer).toEqual({
      first: [['1']],
      second: [['2']],
      goesOn: [['done']],
      afterInsert: [['1', 't']],
      rows: [
        ['1', 'queued'],
        ['2', 'done'],
        ['3', 'queued'],
        ['4', 'queued'],
      ],
    });
    expect(await jobTable(engines.pglite, 'apart')).toEqual(onServer);
  });

  it('a worker whose claim took one of several jobs due at once goes on with that job', async () => {
    const onServer = await jobTable(engines.server.engine, 'tied');
    expect(onServer.second).toEqual([['2']]);
    expect(onServer.goesOn).toEqual([['done']]);
    expect(await jobTable(engines.pglite, 'tied')).toEqual(onServer);
  });

  it('a claim whose rows were tied in its order goes on with the row it took, not the one its plan meets first now', async () => {
    const onServer = await tiedClaim(engines.server.engine);
    expect(onServer.goesOn).toEqual([['1']]);
    expect(await tiedClaim(engines.pglite)).toEqual(onServer);
  });

  it.each(Object.keys(hiders) as (keyof typeof hiders)[])(
    'a value from a volatile function reached through a %s is refused going on, as its replay would write another',
    async (how) => {
      expect(await hiddenVolatile(engines.server.engine, how)).toEqual([['1']]);
      const onPglite = await hiddenVolatile(engines.pglite, how);
      expect(kindOf(onPglite)).toBe('parked-goes-on');
    },
  );

  it.each(['fk', 'rule'] as const)(
    'a write that fills a column from a volatile default behind its text (%s) is refused going on',
    async (how) => {
      expect(await defaultBehindWrite(engines.server.engine, how)).toEqual(
        how === 'fk' ? [['0']] : [['1']],
      );
      const onPglite = await defaultBehindWrite(engines.pglite, how);
      expect(kindOf(onPglite)).toBe('parked-goes-on');
      expect(onPglite).toMatch(/default that is not a constant/);
    },
  );

  it('a claim goes on while another worker still holds the row that comes before its own', async () => {
    const onServer = await threeWorkers(engines.server.engine);
    expect(onServer.claimed).toEqual([[['1', '0']], [['2', '0']], [['3', '0']]]);
    expect(onServer.goesOn).toEqual([['3']]);
    expect(await threeWorkers(engines.pglite)).toEqual(onServer);
  });

  it.each(['knob', 'tray'] as const)(
    'after a commit to a table it read in passing (%s, by a subquery), it is refused before anything is rolled back',
    async (read) => {
      const onServer = await readInPassing(engines.server.engine, read);
      expect(onServer.goesOn).toEqual([['5']]);
      const onPglite = await readInPassing(engines.pglite, read);
      expect(kindOf(onPglite.goesOn)).toBe('parked-goes-on');
      expect(onPglite.goesOn).toMatch(/where its statements read/);
      expect(onPglite.rows).toEqual(onServer.rows);
    },
  );

  it.each(['inherited', 'offset'] as const)(
    'a claim keyed by what PostgreSQL does not enforce over its rows (%s) is refused when a holder let go',
    async (how) => {
      const onServer = await unenforcedKey(engines.server.engine, how);
      expect(onServer.goesOn).toEqual([['1']]);
      expect(onServer.unnamed).toMatch(/^55P03 could not obtain lock on row/);
      const onPglite = await unenforcedKey(engines.pglite, how);
      expect(onPglite.claimed).toEqual(onServer.claimed);
      expect(onPglite.unnamed).toEqual(onServer.unnamed);
      expect(kindOf(onPglite.goesOn)).toBe('parked-goes-on');
    },
  );

  it('a SKIP LOCKED claim whose answer does not show which row it locked is refused after the other worker committed', async () => {
    const onServer = await workersInTurn(engines.server.engine, 'unkeyed');
    expect(onServer.goesOn).toEqual([['2']]);
    const onPglite = await workersInTurn(engines.pglite, 'unkeyed');
    expect(kindOf(onPglite.goesOn)).toBe('parked-goes-on');
    expect(onPglite.goesOn).toMatch(/does not show which rows it locked/);
  });

  it('after EXPLAIN ANALYZE, whose times a replay would measure anew, going on is refused before anything is rolled back', async () => {
    const onServer = await measured(engines.server.engine);
    expect(onServer.goesOn).toEqual([['9']]);
    const onPglite = await measured(engines.pglite);
    expect(kindOf(onPglite.goesOn)).toBe('parked-goes-on');
    expect(onPglite.goesOn).toMatch(/EXPLAIN ANALYZE/);
    // Still parked, it commits as it was.
    expect(onPglite.rows).toEqual(onServer.rows);
  });

  it('while a replayed transaction comes after a younger one, a look at XIDs is refused as xid-renumbered', async () => {
    expect(await renumbered(engines.server.engine)).toEqual({
      look: [['a'], ['b']],
      later: [['a']],
    });
    const onPglite = await renumbered(engines.pglite);
    expect(kindOf(onPglite.look)).toBe('xid-renumbered');
    expect(onPglite.later).toEqual([['a']]);
  });
  it('REPEATABLE READ goes on after commits with the snapshot it first took, as a replay that imports it', async () => {
    const before = [
      ['1', '0'],
      ['2', '0'],
      ['3', '0'],
      ['4', '0'],
    ];
    const expected = {
      first: [['0']],
      again: before,
      count: [['4']],
      writes: [['1']],
      changed: '40001 could not serialize access due to concurrent update',
      rows: [
        ['1', '0'],
        ['2', '7'],
        ['3', '0'],
        ['5', '5'],
      ],
    };
    expect(await repeatableReadAfterCommits(engines.server.engine)).toEqual(expected);
    expect(await repeatableReadAfterCommits(engines.pglite)).toEqual(expected);
  });

  it('REPEATABLE READ is refused when no transaction holds its snapshot’s horizon, or it asks for ACCESS EXCLUSIVE', async () => {
    const onServer = await repeatableReadBeyondImport(engines.server.engine);
    expect(onServer).toEqual({
      holderEnded: [['0']],
      exclusive: [],
      resident: [['5']],
      exclusiveAfter: [],
      undone: [['9']],
    });
    const onPglite = await repeatableReadBeyondImport(engines.pglite);
    expect(kindOf(onPglite.holderEnded)).toBe('parked-goes-on');
    expect(kindOf(onPglite.exclusive)).toBe('parked-goes-on');
    expect(onPglite.resident).toEqual(onServer.resident);
    expect(kindOf(onPglite.exclusiveAfter)).toBe('parked-goes-on');
    expect(kindOf(onPglite.undone)).toBe('parked-goes-on');
  });

  it('REPEATABLE READ under a role without superuser rights goes on after a commit', async () => {
    const expected = { again: [['0', 'regress_tray']] };
    expect(await repeatableReadUnderRole(engines.server.engine)).toEqual(expected);
    expect(await repeatableReadUnderRole(engines.pglite)).toEqual(expected);
  });

  it('REPEATABLE READ locks FOR KEY SHARE, and checks a foreign key on, a row updated since its snapshot, as a server does', async () => {
    const expected = { locked: [['1', '0']], referenced: [['2']] };
    expect(await keyShareAfterUpdate(engines.server.engine)).toEqual(expected);
    expect(await keyShareAfterUpdate(engines.pglite)).toEqual(expected);
  });
  it('after ROLLBACK TO SAVEPOINT sent without semicolons, going on while another holds the row is refused, not hung', async () => {
    const after = [
      ['1', '2'],
      ['2', '0'],
    ];
    expect(await undoneThenTaken(engines.server.engine)).toEqual({
      goesOn: [
        ['1', '0'],
        ['2', '0'],
      ],
      after,
      ends: [],
    });
    const onPglite = await undoneThenTaken(engines.pglite);
    expect(kindOf(onPglite.goesOn)).toBe('parked-goes-on');
    expect(onPglite.after).toEqual(after);
    expect(onPglite.ends).toEqual([]);
  });
  it('REPEATABLE READ keeps its snapshot through replays before and after a commit, and meets a row changed while it waited with 40001', async () => {
    const expected = {
      open: [['0']],
      committed: [['0']],
      first: 'waiting',
      after: '40001 could not serialize access due to concurrent update',
    };
    expect(await repeatableReadAcrossWaits(engines.server.engine)).toEqual(expected);
    expect(await repeatableReadAcrossWaits(engines.pglite)).toEqual(expected);
  });
});
