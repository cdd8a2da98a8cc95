// Locks the session layer used to get wrong on PGlite, each run the same way on a real
// PostgreSQL 18: the answer must be the server's, or a refusal that names its kind.
import { describe, expect, it } from 'vitest';
import type { Engine, Session } from '../../src/engine/types';
import { answer, answerOrLockWait, kindOf, within } from '../support/answer';
import { bothEngines } from '../support/both-engines';

async function sessions(engine: Engine, n: number): Promise<Session[]> {
  const opened: Session[] = [];
  for (let i = 0; i < n; i++) opened.push(await engine.openSession({ applicationName: `s${i}` }));
  return opened;
}

/**
 * LOCK TABLE … NOWAIT where another transaction holds a conflicting lock: a writer's
 * ROW EXCLUSIVE, or a reader's ACCESS SHARE (a transaction PGlite closed after it read).
 */
async function lockNowait(engine: Engine, other: 'writer' | 'reader') {
  const [setup, holder, locker] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS bin; CREATE TABLE bin (id int PRIMARY KEY, v int); INSERT INTO bin VALUES (1, 0)',
  );
  await holder!.query(
    other === 'writer'
      ? 'BEGIN; UPDATE bin SET v = 3 WHERE id = 1'
      : 'BEGIN; SELECT count(*) FROM bin',
  );
  await locker!.query('BEGIN');
  const mode = other === 'writer' ? 'SHARE' : 'ACCESS EXCLUSIVE';
  const locked = await within(answer(locker!, `LOCK TABLE bin IN ${mode} MODE NOWAIT`), 2000);
  await locker!.query('ROLLBACK');
  await holder!.query('COMMIT');
  for (const s of [setup!, holder!, locker!]) await s.close();
  return locked;
}

/**
 * FOR KEY SHARE held on a row; another session updates a column that is in a unique index
 * only beside an expression, or only as an INCLUDE column: no key a foreign key could
 * refer to, so the update takes FOR NO KEY UPDATE, which does not wait.
 */
async function notKeyColumns(engine: Engine) {
  const [holder, writer] = await sessions(engine, 2);
  await holder!.query(
    'DROP TABLE IF EXISTS nk; CREATE TABLE nk (id int PRIMARY KEY, a int, b text, c int); ' +
      'CREATE UNIQUE INDEX nk_ab ON nk (a, lower(b)); CREATE UNIQUE INDEX nk_c ON nk (id) INCLUDE (c); ' +
      "INSERT INTO nk VALUES (1, 1, 'x', 1)",
  );
  await holder!.query('BEGIN; SELECT id FROM nk WHERE id = 1 FOR KEY SHARE');
  const expression = await within(answer(writer!, 'UPDATE nk SET a = 10 WHERE id = 1'), 1500);
  const included = await within(answer(writer!, 'UPDATE nk SET c = 10 WHERE id = 1'), 1500);
  await holder!.query('COMMIT');
  for (const s of [holder!, writer!]) await s.close();
  return { expression, included };
}

/** A reader idle in its transaction holds ACCESS SHARE on what it read: LOCK TABLE waits. */
async function lockAfterRead(engine: Engine) {
  const [setup, reader, locker] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS shelf; CREATE TABLE shelf (id int); INSERT INTO shelf VALUES (1)',
  );
  await reader!.query('BEGIN; SELECT count(*) FROM shelf');
  const locking = answer(locker!, 'BEGIN; LOCK TABLE shelf');
  const first = await within(locking, 400);
  await reader!.query('COMMIT');
  const after = await within(locking, 2000);
  await locker!.query('COMMIT');
  for (const s of [setup!, reader!, locker!]) await s.close();
  return { first, after };
}

/**
 * LOCK TABLE outside a transaction block fails before it locks anything, however strong
 * a lock another transaction holds; in a string of several it runs in their implicit
 * block, and waits.
 */
async function lockOutsideBlock(engine: Engine) {
  const [setup, holder, locker] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS crate; CREATE TABLE crate (id int PRIMARY KEY, v int); INSERT INTO crate VALUES (1, 0)',
  );
  await holder!.query('BEGIN; UPDATE crate SET v = 1 WHERE id = 1');
  const alone = await within(answer(locker!, 'LOCK TABLE crate IN SHARE MODE'), 1000);
  const implicit = answer(locker!, 'LOCK TABLE crate IN SHARE MODE; SELECT v FROM crate');
  const first = await within(implicit, 400);
  await holder!.query('COMMIT');
  const after = await within(implicit, 2000);
  for (const s of [setup!, holder!, locker!]) await s.close();
  return { alone, first, after };
}

/**
 * A string of several outside a transaction block runs statement by statement on a
 * server: a SET before the statement that waits applies to its wait.
 */
async function setThenWait(engine: Engine) {
  const [setup, holder, waiter] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS till; CREATE TABLE till (id int PRIMARY KEY, v int); INSERT INTO till VALUES (1, 0), (2, 0)',
  );
  await holder!.query('BEGIN; UPDATE till SET v = 1 WHERE id = 1');
  const sql = "SET lock_timeout = '50ms'; UPDATE till SET v = 2 WHERE id = 1";
  const leading = await within(answer(waiter!, sql), 3000);
  const between = answer(
    waiter!,
    "RESET lock_timeout; UPDATE till SET v = 3 WHERE id = 2; SET lock_timeout = '50ms'; UPDATE till SET v = 3 WHERE id = 1",
  );
  const first = await within(between, 3000);
  await holder!.query('ROLLBACK');
  const after = await within(between, 3000);
  for (const s of [setup!, holder!, waiter!]) await s.close();
  return { leading, first, after };
}

/** lock_timeout and statement_timeout end a statement that waits for a lock. */
async function timeoutsOnWaits(engine: Engine) {
  const [setup, holder, waiter] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS ledger; CREATE TABLE ledger (id int PRIMARY KEY, v int); INSERT INTO ledger VALUES (1, 0)',
  );
  await holder!.query('BEGIN; UPDATE ledger SET v = 1 WHERE id = 1');
  await waiter!.query("SET lock_timeout = '50ms'");
  const lock = await within(answer(waiter!, 'UPDATE ledger SET v = 2 WHERE id = 1'), 3000);
  await waiter!.query("SET lock_timeout = 0; SET statement_timeout = '50ms'");
  const statement = await within(answer(waiter!, 'UPDATE ledger SET v = 3 WHERE id = 1'), 3000);
  await waiter!.query('RESET statement_timeout');
  await holder!.query('ROLLBACK');
  for (const s of [setup!, holder!, waiter!]) await s.close();
  return { lock, statement };
}

/**
 * Session-level advisory locks: a key spelled otherwise (`09`) or behind a comment, and a
 * key given back by a session that does not hold it.
 */
async function advisoryKeys(engine: Engine) {
  const [a, b, c] = await sessions(engine, 3);
  await a!.query('SELECT pg_advisory_lock(9)');
  const pending = answer(b!, 'SELECT pg_advisory_lock(09)');
  const spelled = await within(pending, 600);
  await a!.query('SELECT 1 /* pg_advisory_unlock(9) */');
  const notOwned = await answer(c!, 'SELECT pg_advisory_unlock(9)');
  const stillWaiting = await within(pending, 300);
  const owned = await answer(a!, 'SELECT pg_advisory_unlock(9)');
  const granted = await within(pending, 3000);
  await b!.query('SELECT pg_advisory_unlock_all()');
  for (const s of [a!, b!, c!]) await s.close();
  return { spelled, notOwned, stillWaiting, owned, granted };
}

/**
 * A transaction-level advisory lock that a parked transaction holds: taken alone, it
 * waits; inside a larger statement it is refused on PGlite (it would wait part-way).
 */
async function xactAdvisory(engine: Engine) {
  const [holder, other, trier] = await sessions(engine, 3);
  await holder!.query('BEGIN; SELECT pg_advisory_xact_lock(7), txid_current()');
  const alone = answer(other!, 'SELECT pg_advisory_xact_lock(7)');
  const first = await within(alone, 400);
  const tried = await answer(trier!, 'SELECT pg_try_advisory_xact_lock(7)');
  await holder!.query('COMMIT');
  const after = await within(alone, 2000);
  for (const s of [holder!, other!, trier!]) await s.close();
  return { first, tried, after };
}

async function xactAdvisoryInside(engine: Engine) {
  const [holder, other] = await sessions(engine, 2);
  await holder!.query('BEGIN; SELECT pg_advisory_xact_lock(8), txid_current()');
  const inside = answer(other!, 'SELECT 1 AS one WHERE pg_advisory_xact_lock(8) IS NOT NULL');
  const first = await within(inside, 400);
  await holder!.query('COMMIT');
  const after = await within(inside, 2000);
  for (const s of [holder!, other!]) await s.close();
  return { first, after };
}

/**
 * One query string in a transaction block, whose second UPDATE waits: the first one has
 * run meanwhile, so its row is locked for a third session, and the string's SET applies.
 */
async function waitPartWay(engine: Engine) {
  const [setup, holder, waiter, third] = await sessions(engine, 4);
  await setup!.query(
    'DROP TABLE IF EXISTS duo; CREATE TABLE duo (id int PRIMARY KEY, v int); INSERT INTO duo VALUES (1, 0), (2, 0)',
  );
  await holder!.query('BEGIN; UPDATE duo SET v = 1 WHERE id = 2');
  const string = answer(
    waiter!,
    "BEGIN; UPDATE duo SET v = 2 WHERE id = 1; SET LOCAL lock_timeout = '2s'; UPDATE duo SET v = 2 WHERE id = 2",
  );
  const first = await within(string, 100);
  const locked = await answer(third!, 'SELECT id FROM duo WHERE id = 1 FOR UPDATE NOWAIT');
  const after = await within(string, 8000);
  await waiter!.query('ROLLBACK');
  await holder!.query('ROLLBACK');
  for (const s of [setup!, holder!, waiter!, third!]) await s.close();
  return { first, locked, after };
}

/**
 * A table lock request behind a waiting one: it queues behind the waiter unless its
 * session already holds a lock the waiter's request conflicts with (then it goes ahead).
 */
async function lockQueue(engine: Engine) {
  const [setup, reader, locker, other] = await sessions(engine, 4);
  await setup!.query('DROP TABLE IF EXISTS queue; CREATE TABLE queue ()');
  await reader!.query('BEGIN; LOCK TABLE queue IN ACCESS SHARE MODE');
  const exclusive = answer(locker!, 'BEGIN; LOCK TABLE queue IN ACCESS EXCLUSIVE MODE');
  await answerOrLockWait(exclusive, setup!, locker!);
  await other!.query('BEGIN');
  const behind = await within(answer(other!, 'LOCK TABLE queue IN ACCESS SHARE MODE'), 400);
  const ahead = await within(answer(reader!, 'LOCK TABLE queue IN ROW SHARE MODE'), 2000);
  await reader!.query('COMMIT');
  await within(exclusive, 2000);
  await locker!.query('COMMIT');
  await within(answer(other!, 'SELECT 1'), 2000);
  await other!.query('ROLLBACK');
  for (const s of [setup!, reader!, locker!, other!]) await s.close();
  return { behind, ahead };
}

/**
 * Two sessions that hold a lock on one table each ask for a lock the other's conflicts
 * with: the second request meets the first in the wait queue, and a server fails it at
 * once with a deadlock, before it waits; the first then gets its lock. `first` takes
 * what each holds: ACCESS SHARE by reading, or ROW EXCLUSIVE by writing (an XID too).
 */
async function deadlockInQueue(engine: Engine, first: 'read' | 'write') {
  const [setup, a, b] = await sessions(engine, 3);
  await setup!.query('DROP TABLE IF EXISTS ring; CREATE TABLE ring (id int)');
  const take = first === 'read' ? 'SELECT count(*) FROM ring' : 'INSERT INTO ring VALUES (1)';
  await a!.query(`BEGIN; ${take}`);
  await b!.query(`BEGIN; ${take}`);
  const aLocks = answer(a!, 'LOCK TABLE ring IN ACCESS EXCLUSIVE MODE');
  const aFirst = await answerOrLockWait(aLocks, setup!, a!);
  const bLocks = await within(answer(b!, 'LOCK TABLE ring IN ACCESS EXCLUSIVE MODE'), 400);
  const aAfter = await within(aLocks, 2000);
  await a!.query('COMMIT');
  const bAfter = await answer(b!, 'COMMIT');
  for (const s of [setup!, a!, b!]) await s.close();
  return { aFirst, bLocks, aAfter, bAfter };
}

/**
 * A CONCURRENTLY command beside a READ COMMITTED reader idle in its transaction: DETACH
 * PARTITION CONCURRENTLY commits its first part, then waits for every lock on the table,
 * the reader's ACCESS SHARE too; CREATE INDEX CONCURRENTLY waits only for writers' locks
 * and for snapshots, and the idle reader holds neither.
 */
async function concurrentlyBesideReader(engine: Engine, statement: string) {
  const [setup, reader, other] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS parts1, parts; CREATE TABLE parts (a int) PARTITION BY LIST (a); ' +
      'CREATE TABLE parts1 PARTITION OF parts FOR VALUES IN (1); INSERT INTO parts VALUES (1)',
  );
  await reader!.query('BEGIN; SELECT count(*) FROM parts');
  const running = answer(other!, statement);
  const first = await within(running, 500);
  await reader!.query('COMMIT');
  await within(running, 3000);
  await setup!.query('DROP TABLE IF EXISTS parts1, parts');
  for (const s of [setup!, reader!, other!]) await s.close();
  return first;
}

/**
 * A SELECT on a parent table waits for a lock on a child: on a server it found the
 * children before the wait and reads the ones it found, whatever the holder changed in
 * the catalog meanwhile. `holder` is what the other transaction does to the child.
 */
async function childLockedDuringPlan(engine: Engine, holder: string) {
  const [setup, a, b] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS kid, mom; CREATE TABLE mom (a int); INSERT INTO mom VALUES (1); ' +
      'CREATE TABLE kid () INHERITS (mom); INSERT INTO kid VALUES (10)',
  );
  await a!.query(`BEGIN; ${holder}`);
  const sum = answer(b!, 'SELECT sum(a) FROM mom');
  const first = await within(sum, 400);
  await a!.query('COMMIT');
  const after = await within(sum, 3000);
  await setup!.query('DROP TABLE IF EXISTS kid, mom');
  for (const s of [setup!, a!, b!]) await s.close();
  return { first, after };
}

/**
 * A built-in function that opens a table by a name the statement holds only as a string
 * (pg_relation_size), or by a link nothing in the text shows (a publication's tables),
 * waits for a lock another transaction holds on it, and goes on once it is free.
 */
async function functionOpensLocked(
  engine: Engine,
  query: string,
  hold = 'LOCK TABLE bin IN ACCESS EXCLUSIVE MODE',
) {
  const [setup, holder, reader] = await sessions(engine, 3);
  await setup!.query(
    'DROP PUBLICATION IF EXISTS shelfpub; DROP TABLE IF EXISTS bin; CREATE TABLE bin (id int); ' +
      'INSERT INTO bin VALUES (1); CREATE PUBLICATION shelfpub FOR TABLE bin; ' +
      'DROP SEQUENCE IF EXISTS bin_seq; CREATE SEQUENCE bin_seq',
  );
  await holder!.query(`BEGIN; ${hold}`);
  const reading = answer(reader!, query);
  const first = await within(reading, 400);
  await holder!.query('COMMIT');
  const after = await within(reading, 5000);
  await setup!.query('DROP PUBLICATION shelfpub; DROP TABLE bin; DROP SEQUENCE bin_seq');
  for (const s of [setup!, holder!, reader!]) await s.close();
  return { first, after };
}

/**
 * TRUNCATE and VACUUM check their privilege on the table before they lock it, ALTER and
 * DROP its ownership: a role without it fails (or is warned and skipped) at once, beside
 * a reader idle in its transaction that would make them wait.
 */
async function deniedBeforeWait(engine: Engine, statement: string) {
  const [setup, reader, other] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS crib; DROP ROLE IF EXISTS regress_crib; CREATE ROLE regress_crib; ' +
      'CREATE TABLE crib (a int); GRANT SELECT, INSERT ON crib TO regress_crib',
  );
  await reader!.query('BEGIN; SELECT count(*) FROM crib');
  await other!.query('SET ROLE regress_crib');
  const notices: string[] = [];
  // 'A | B' runs A first, on its own; '@reader A' runs A in the reader's session.
  const steps = statement.split(' | ');
  for (const step of steps.slice(0, -1)) {
    await (step.startsWith('@reader ') ? reader! : other!).query(step.replace('@reader ', ''));
  }
  const first = await within(
    other!.query(steps.at(-1)!, undefined, { onNotice: (n) => notices.push(n.message) }).then(
      () => 'done',
      (e: Error) => e.message,
    ),
    1000,
  );
  if (/\bBEGIN\b/.test(statement)) await other!.query('ROLLBACK');
  await reader!.query('COMMIT');
  await other!.query('RESET ROLE');
  await setup!.query('DROP TABLE crib; DROP ROLE regress_crib');
  for (const s of [setup!, reader!, other!]) await s.close();
  return { first, notices };
}

/**
 * LOCK in `mode` by a role with SELECT and INSERT on the table, while another transaction
 * holds SHARE: INSERT lets a role lock up to ROW EXCLUSIVE, which waits for SHARE; a
 * stronger mode is denied before any wait (LockTableAclCheck).
 */
async function lockModeByPrivilege(engine: Engine, mode: string) {
  const [setup, holder, other] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS crate2; DROP ROLE IF EXISTS regress_crate; CREATE ROLE regress_crate; ' +
      'CREATE TABLE crate2 (a int); GRANT SELECT, INSERT ON crate2 TO regress_crate',
  );
  await holder!.query('BEGIN; LOCK crate2 IN SHARE MODE');
  await other!.query('SET ROLE regress_crate');
  await other!.query('BEGIN');
  const locking = other!.query(`LOCK crate2 IN ${mode} MODE`).then(
    () => 'done',
    (e: Error) => e.message,
  );
  const first = await within(locking, 1000);
  await holder!.query('COMMIT');
  const after = await within(locking, 3000);
  await other!.query('ROLLBACK');
  await other!.query('RESET ROLE');
  await setup!.query('DROP TABLE crate2; DROP ROLE regress_crate');
  for (const s of [setup!, holder!, other!]) await s.close();
  return { first, after };
}

/**
 * VACUUM finds every table it is to work on first, then locks one at a time: a table it
 * names that is dropped while it waits for another is skipped with a warning on a server.
 */
async function vacuumLosesPartition(engine: Engine) {
  const [setup, holder, vacuumer] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS racked; CREATE TABLE racked (a int) PARTITION BY LIST (a); ' +
      'CREATE TABLE racked1 PARTITION OF racked FOR VALUES IN (1); ' +
      'CREATE TABLE racked2 PARTITION OF racked FOR VALUES IN (2)',
  );
  await holder!.query('BEGIN; LOCK racked1 IN SHARE MODE');
  const notices: string[] = [];
  const vacuum = vacuumer!
    .query('VACUUM racked1, racked2', undefined, { onNotice: (n) => notices.push(n.message) })
    .then(
      () => 'done',
      (e: Error) => e.message,
    );
  const first = await within(vacuum, 400);
  await holder!.query('DROP TABLE racked2; COMMIT');
  const after = await within(vacuum, 5000);
  await setup!.query('DROP TABLE racked');
  for (const s of [setup!, holder!, vacuumer!]) await s.close();
  return { first, after, notices };
}

/** Another session's row locks, as pg_locks shows them under that session's pid. */
async function locksByPid(engine: Engine) {
  const [setup, holder, looker] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS bin; CREATE TABLE bin (id int PRIMARY KEY, v int); INSERT INTO bin VALUES (1, 0)',
  );
  await holder!.query('BEGIN; UPDATE bin SET v = 1 WHERE id = 1');
  const seen = await within(
    answer(
      looker!,
      "SELECT mode FROM pg_locks WHERE pid = (SELECT pid FROM pg_stat_activity WHERE application_name = 's1') AND locktype = 'relation' ORDER BY mode",
    ),
    2000,
  );
  await holder!.query('ROLLBACK');
  for (const s of [setup!, holder!, looker!]) await s.close();
  return seen;
}

/**
 * A session holding ACCESS EXCLUSIVE on a table, beside statements that name it: only in
 * a string (a catalog lookup, which takes no lock on it), and to change its storage
 * parameters while another transaction writes it (SHARE UPDATE EXCLUSIVE, which lets
 * writers by: AlterTableGetLockLevel).
 */
async function namedNotLocked(engine: Engine) {
  const [setup, holder, looker] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS vault, ledger; CREATE TABLE vault (id int); CREATE TABLE ledger (id int PRIMARY KEY, v int); INSERT INTO ledger VALUES (1, 0)',
  );
  await holder!.query('BEGIN; LOCK TABLE vault IN ACCESS EXCLUSIVE MODE');
  const lookup = await within(
    answer(looker!, "SELECT count(*) FROM pg_class WHERE relname = 'vault'"),
    2000,
  );
  await holder!.query('ROLLBACK');
  await holder!.query('BEGIN; UPDATE ledger SET v = 1 WHERE id = 1');
  const fillfactor = await within(
    answer(looker!, 'ALTER TABLE ledger SET (fillfactor = 80)'),
    2000,
  );
  const adding = answer(looker!, 'ALTER TABLE ledger ADD COLUMN w int');
  const column = await within(adding, 400);
  await holder!.query('ROLLBACK');
  const after = await within(adding, 2000);
  for (const s of [setup!, holder!, looker!]) await s.close();
  return { lookup, fillfactor, column, after };
}

/**
 * ALTER TABLE subcommands beside a transaction that wrote the table (ROW EXCLUSIVE):
 * whether each waits says which lock PostgreSQL takes for it (AlterTableGetLockLevel).
 */
async function alterLevels(engine: Engine, subcommands: string[]) {
  const [setup, holder, alterer] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS shelf2, rack; CREATE TABLE rack (id int PRIMARY KEY); ' +
      'CREATE TABLE shelf2 (id int PRIMARY KEY, rack int, v int); ' +
      'ALTER TABLE shelf2 ADD CONSTRAINT small CHECK (v < 9) NOT VALID',
  );
  const seen: Record<string, unknown> = {};
  for (const sub of subcommands) {
    await holder!.query('BEGIN; INSERT INTO shelf2 VALUES (1, NULL, 0)');
    const altering = answer(alterer!, `ALTER TABLE shelf2 ${sub}`);
    seen[sub] = await within(altering, 600);
    await holder!.query('ROLLBACK');
    await within(altering, 2000);
  }
  for (const s of [setup!, holder!, alterer!]) await s.close();
  return seen;
}

/**
 * Two parked holders and a third session: over rows 1 to 4 of a fresh table, A runs
 * `aHolds` and B `bHolds`, each in a transaction; C sends `cRuns`, which meets what A
 * holds. C's answer before A commits, and after (B still open).
 */
async function besideTwoHolders(
  engine: Engine,
  { aHolds, bHolds, cRuns }: { aHolds: string; bHolds: string; cRuns: string },
) {
  const [setup, a, b, c] = await sessions(engine, 4);
  await setup!.query(
    'DROP TABLE IF EXISTS stall; CREATE TABLE stall (id int PRIMARY KEY, state text); ' +
      "INSERT INTO stall SELECT g, 'queued' FROM generate_series(1, 4) g",
  );
  await b!.query(`BEGIN; ${bHolds}`);
  await a!.query(`BEGIN; ${aHolds}`);
  const running = answer(c!, cRuns);
  const first = await within(running, 1000);
  await a!.query('COMMIT');
  const afterA = await within(running, 4000);
  await b!.query('COMMIT');
  await within(running, 3000);
  await setup!.query('DROP TABLE stall');
  for (const s of [setup!, a!, b!, c!]) await s.close();
  return { first, afterA };
}

/** A holds row 1, B row 4; C claims the first queued row FOR UPDATE, and meets A's. */
const claimBesideTwoHolders = (engine: Engine) =>
  besideTwoHolders(engine, {
    aHolds: "UPDATE stall SET state = 'running' WHERE id = 1",
    bHolds: "UPDATE stall SET state = 'running' WHERE id = 4",
    cRuns: "SELECT id FROM stall WHERE state = 'queued' ORDER BY id LIMIT 1 FOR UPDATE",
  });

/**
 * B holds row 1 FOR KEY SHARE, which an UPDATE of no key does not wait for; A holds row 3
 * FOR UPDATE. C's UPDATE of both waits for A alone, and goes on when A commits.
 */
const updateBesideKeyShare = (engine: Engine) =>
  besideTwoHolders(engine, {
    aHolds: 'SELECT id FROM stall WHERE id = 3 FOR UPDATE',
    bHolds: 'SELECT id FROM stall WHERE id = 1 FOR KEY SHARE',
    cRuns: "UPDATE stall SET state = 'c' WHERE id IN (1, 3) RETURNING id, state",
  });

/**
 * C holds a row of its own in an open transaction (parked once B runs); B takes row 1
 * FOR KEY SHARE; C's UPDATE of row 1 changes no key, so it does not wait for B.
 */
async function parkedUpdateBesideKeyShare(engine: Engine, lock: string) {
  const [setup, b, c] = await sessions(engine, 3);
  await setup!.query(
    'DROP TABLE IF EXISTS stall; CREATE TABLE stall (id int PRIMARY KEY, state text); ' +
      "INSERT INTO stall SELECT g, 'queued' FROM generate_series(1, 4) g",
  );
  await c!.query('BEGIN; SELECT id FROM stall WHERE id = 2 FOR UPDATE');
  await b!.query(`BEGIN; SELECT id FROM stall WHERE id = 1 ${lock}`);
  const updated = answer(c!, "UPDATE stall SET state = 'c' WHERE id = 1 RETURNING id, state");
  const first = await within(updated, 2000);
  await b!.query('ROLLBACK');
  await within(updated, 3000);
  await c!.query('ROLLBACK').catch(() => {});
  await setup!.query('DROP TABLE stall');
  for (const s of [setup!, b!, c!]) await s.close();
  return first;
}

/**
 * A reader idle in its transaction after it read `read`; another session, outside a
 * block, runs `ddl`: whether it waits, and what it answers once the reader commits. Which
 * table DDL locks is PostgreSQL's to say: a schema, an inherited child, a cascade and
 * dynamic SQL count, a column or a table of the same name elsewhere does not.
 */
async function ddlBesideReader(engine: Engine, read: string, ddl: string) {
  const [setup, reader, altering] = await sessions(engine, 3);
  await setup!.query(
    'DROP SCHEMA IF EXISTS aisle CASCADE; DROP TABLE IF EXISTS crate, crate_kid, bay CASCADE; ' +
      'CREATE SCHEMA aisle; CREATE TABLE aisle.crate (id int); CREATE TABLE crate (id int); ' +
      'CREATE TABLE crate_kid () INHERITS (crate); CREATE TABLE bay (id int)',
  );
  await reader!.query(`BEGIN; SELECT count(*) FROM ${read}`);
  const altered = answer(altering!, ddl);
  const first = await within(altered, 600);
  await reader!.query('COMMIT');
  const after = await within(altered, 3000);
  await setup!.query(
    'DROP SCHEMA IF EXISTS aisle CASCADE; DROP TABLE IF EXISTS crate, crate_kid, bay CASCADE',
  );
  for (const s of [setup!, reader!, altering!]) await s.close();
  return { first, after };
}

describe('locks on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('a query string in a transaction runs statement by statement up to the one that waits', async () => {
    const expected = {
      first: 'waiting',
      locked: '55P03 could not obtain lock on row in relation "duo"',
      after: '55P03 canceling statement due to lock timeout',
    };
    expect(await waitPartWay(engines.server.engine)).toEqual(expected);
    expect(await waitPartWay(engines.pglite)).toEqual(expected);
  });

  it('DDL waits for an idle reader exactly where PostgreSQL locks the table it read', async () => {
    const cases: [string, string][] = [
      ['aisle.crate', 'ALTER TABLE public.crate ADD COLUMN z int'],
      ['crate', 'ALTER TABLE bay ADD COLUMN crate int'],
      ['crate_kid', 'ALTER TABLE crate ADD COLUMN z int'],
      ['aisle.crate', 'DROP SCHEMA aisle CASCADE'],
      ['crate', "DO $$ BEGIN EXECUTE 'ALTER TABLE crate ADD COLUMN q int'; END $$"],
      ['crate', 'ALTER TABLE crate ADD COLUMN id int'],
    ];
    for (const [read, ddl] of cases) {
      const onServer = await ddlBesideReader(engines.server.engine, read, ddl);
      const onPglite = await ddlBesideReader(engines.pglite, read, ddl);
      // A cascade's notice may come before the wait on a server: refused, or the same.
      if (kindOf(onPglite.first) === 'notices-before-wait') {
        expect(onServer.first, ddl).toBe('waiting');
        continue;
      }
      expect(onPglite, `${read} / ${ddl}`).toEqual(onServer);
    }
    // The server's answers, for the record: the test above cannot pass on two wrong ones.
    const waits = await ddlBesideReader(
      engines.server.engine,
      'crate_kid',
      'ALTER TABLE crate ADD COLUMN z int',
    );
    expect(waits).toEqual({ first: 'waiting', after: [] });
    const free = await ddlBesideReader(
      engines.server.engine,
      'aisle.crate',
      'ALTER TABLE public.crate ADD COLUMN z int',
    );
    expect(free).toEqual({ first: [], after: [] });
  });

  it('LOCK TABLE waits for a READ COMMITTED reader idle in its transaction', async () => {
    const expected = { first: 'waiting', after: [] };
    expect(await lockAfterRead(engines.server.engine)).toEqual(expected);
    expect(await lockAfterRead(engines.pglite)).toEqual(expected);
  });

  it('a table named only in a string, or altered in a way that lets writers by, does not wait', async () => {
    const expected = { lookup: [['1']], fillfactor: [], column: 'waiting', after: [] };
    expect(await namedNotLocked(engines.server.engine)).toEqual(expected);
    expect(await namedNotLocked(engines.pglite)).toEqual(expected);
  });

  it('ALTER TABLE waits for a writer only where its lock level says so', async () => {
    const expected = {
      'ALTER COLUMN v SET STATISTICS 200': [],
      'SET (fillfactor = 80), ALTER v SET (n_distinct = 5)': [],
      'VALIDATE CONSTRAINT small': [],
      'CLUSTER ON shelf2_pkey': [],
      'DISABLE TRIGGER ALL': 'waiting',
      'ADD FOREIGN KEY (rack) REFERENCES rack (id)': 'waiting',
      'SET (user_catalog_table = true)': 'waiting',
      'ADD COLUMN w int': 'waiting',
    };
    const subcommands = Object.keys(expected);
    expect(await alterLevels(engines.server.engine, subcommands)).toEqual(expected);
    expect(await alterLevels(engines.pglite, subcommands)).toEqual(expected);
  });

  it('pg_locks shows a session’s locks under its pid on a server, and is refused on PGlite', async () => {
    expect(await locksByPid(engines.server.engine)).toEqual([
      ['RowExclusiveLock'],
      ['RowExclusiveLock'],
    ]);
    expect(kindOf(await locksByPid(engines.pglite))).toBe('backend-locks');
  });

  it('pg_prepared_xacts lists no prepared transaction while another session’s is set aside', async () => {
    const listed = async (engine: Engine) => {
      const [setup, holder, looker] = await sessions(engine, 3);
      await setup!.query(
        'DROP TABLE IF EXISTS bin; CREATE TABLE bin (id int); INSERT INTO bin VALUES (1)',
      );
      await holder!.query('BEGIN; UPDATE bin SET id = 2');
      const seen = [
        await answer(looker!, 'SELECT gid FROM pg_prepared_xacts'),
        await answer(looker!, 'SELECT count(*) FROM pg_catalog.pg_prepared_xacts'),
      ];
      await holder!.query('ROLLBACK');
      for (const s of [setup!, holder!, looker!]) await s.close();
      return seen;
    };
    expect(await listed(engines.server.engine)).toEqual([[], [['0']]]);
    expect(await listed(engines.pglite)).toEqual([[], [['0']]]);
  });

  it('LOCK TABLE alone outside a transaction block fails at once; in a string of several it waits', async () => {
    const expected = {
      alone: '25P01 LOCK TABLE can only be used in transaction blocks',
      first: 'waiting',
      after: [['1']],
    };
    expect(await lockOutsideBlock(engines.server.engine)).toEqual(expected);
    expect(await lockOutsideBlock(engines.pglite)).toEqual(expected);
  });

  it('a SET before the statement that waits in a string outside a block applies to the wait', async () => {
    const lockTimeout = '55P03 canceling statement due to lock timeout';
    expect(await setThenWait(engines.server.engine)).toEqual({
      leading: lockTimeout,
      first: lockTimeout,
      after: lockTimeout,
    });
    const onPglite = await setThenWait(engines.pglite);
    expect(onPglite.leading).toBe(lockTimeout);
    // Between two other statements, whether it applies depends on which one waits.
    expect(kindOf(onPglite.first)).toBe('set-between-statements');
  });

  it('lock_timeout and statement_timeout end a wait with the server’s errors', async () => {
    const expected = {
      lock: '55P03 canceling statement due to lock timeout',
      statement: '57014 canceling statement due to statement timeout',
    };
    expect(await timeoutsOnWaits(engines.server.engine)).toEqual(expected);
    expect(await timeoutsOnWaits(engines.pglite)).toEqual(expected);
  });

  it('an advisory key is read as PostgreSQL reads it, and one another session holds is not given back for it', async () => {
    const onServer = await advisoryKeys(engines.server.engine);
    expect(onServer.spelled).toBe('waiting');
    expect(onServer.notOwned).toEqual([['f']]);
    expect(onServer.stillWaiting).toBe('waiting');
    expect(onServer.owned).toEqual([['t']]);
    expect(onServer.granted).toEqual([['']]);
    const onPglite = await advisoryKeys(engines.pglite);
    expect(kindOf(onPglite.notOwned)).toBe('advisory-not-held');
    expect({ ...onPglite, notOwned: onServer.notOwned }).toEqual(onServer);
  });

  it('an advisory lock a statement names but never calls is not held afterwards, nor one a try did not get', async () => {
    const named = async (engine: Engine) => {
      const [a, b, c] = await sessions(engine, 3);
      const got = [
        await answer(a!, 'SELECT CASE WHEN false THEN pg_advisory_lock(71)::text END AS s'),
        await within(answer(b!, 'SELECT pg_advisory_lock(71)'), 1500),
        await answer(b!, 'SELECT pg_advisory_unlock(71)'),
      ];
      // A try that finds the key taken (by a parked transaction) takes nothing.
      await c!.query('BEGIN; SELECT pg_advisory_xact_lock(72)');
      got.push(await answer(a!, 'SELECT pg_try_advisory_lock(72)'));
      await c!.query('COMMIT');
      got.push(await within(answer(b!, 'SELECT pg_advisory_lock(72)'), 1500));
      got.push(await answer(b!, 'SELECT pg_advisory_unlock_all()'));
      for (const s of [a!, b!, c!]) await s.close();
      return got;
    };
    const expected = [[[null]], [['']], [['t']], [['f']], [['']], [['']]];
    expect(await named(engines.server.engine)).toEqual(expected);
    expect(await named(engines.pglite)).toEqual(expected);
  });

  it('pg_advisory_xact_lock waits for a parked holder; pg_try_advisory_xact_lock says false', async () => {
    const expected = { first: 'waiting', tried: [['f']], after: [['']] };
    expect(await xactAdvisory(engines.server.engine)).toEqual(expected);
    expect(await xactAdvisory(engines.pglite)).toEqual(expected);
  });

  it('an advisory lock part-way through a statement waits on a server, and is refused on PGlite', async () => {
    expect(await xactAdvisoryInside(engines.server.engine)).toEqual({
      first: 'waiting',
      after: [['1']],
    });
    const onPglite = await xactAdvisoryInside(engines.pglite);
    expect(onPglite.first).toMatch(/^not expressible \(advisory-part-way\): /);
  });

  it('a table lock request queues behind a waiting one on a server, and is refused on PGlite; one that may go ahead is granted on both', async () => {
    expect(await lockQueue(engines.server.engine)).toEqual({ behind: 'waiting', ahead: [] });
    const onPglite = await lockQueue(engines.pglite);
    expect(onPglite.behind).toMatch(/^not expressible \(lock-queue\): /);
    expect(onPglite.ahead).toEqual([]);
  });

  it('DETACH PARTITION CONCURRENTLY waits for an idle reader on a server, and is refused on PGlite; CREATE INDEX CONCURRENTLY does not wait', async () => {
    const detach = 'ALTER TABLE parts DETACH PARTITION parts1 CONCURRENTLY';
    const build = 'CREATE INDEX CONCURRENTLY ON parts1 (a)';
    expect(await concurrentlyBesideReader(engines.server.engine, detach)).toBe('waiting');
    expect(kindOf(await concurrentlyBesideReader(engines.pglite, detach))).toBe('waits-for-older');
    expect(await concurrentlyBesideReader(engines.server.engine, build)).toEqual([]);
    expect(await concurrentlyBesideReader(engines.pglite, build)).toEqual([]);
  });

  it('a statement that waited for a table lock goes on with the children it found before the wait on a server; PGlite refuses once the catalog changed', async () => {
    const lock = 'LOCK TABLE kid IN ACCESS EXCLUSIVE MODE';
    const detach = 'ALTER TABLE kid NO INHERIT mom';
    const both = { first: 'waiting', after: [['11']] };
    expect(await childLockedDuringPlan(engines.server.engine, lock)).toEqual(both);
    expect(await childLockedDuringPlan(engines.pglite, lock)).toEqual(both);
    expect(await childLockedDuringPlan(engines.server.engine, detach)).toEqual(both);
    const onPglite = await childLockedDuringPlan(engines.pglite, detach);
    expect(onPglite.first).toBe('waiting');
    expect(kindOf(onPglite.after)).toBe('catalog-changed');
  });

  it('a built-in function that opens a locked table waits for it on both, and never hangs PGlite', async () => {
    for (const query of [
      "SELECT pg_relation_size('bin') > 0 AS sized",
      "SELECT relid::regclass AS t FROM pg_get_publication_tables('shelfpub')",
    ]) {
      const onServer = await functionOpensLocked(engines.server.engine, query);
      expect(onServer.first).toBe('waiting');
      expect(await functionOpensLocked(engines.pglite, query)).toEqual(onServer);
    }
    // nextval waits for ALTER SEQUENCE's lock; PGlite's watchdog finds the wait, and the
    // catalog changed meanwhile, so it refuses rather than guess (catalog-changed).
    const alter = 'ALTER SEQUENCE bin_seq MAXVALUE 100';
    const next = "SELECT nextval('bin_seq')";
    expect(await functionOpensLocked(engines.server.engine, next, alter)).toEqual({
      first: 'waiting',
      after: [['1']],
    });
    const onPglite = await functionOpensLocked(engines.pglite, next, alter);
    expect(onPglite.first).toBe('waiting');
    expect(kindOf(onPglite.after)).toBe('catalog-changed');
  }, 40_000);

  it('TRUNCATE, VACUUM, ALTER, DROP and LOCK without the privilege end at once beside a reader, as on a server', async () => {
    for (const statement of [
      'TRUNCATE crib',
      'VACUUM crib',
      'ALTER TABLE crib ADD COLUMN b int',
      'DROP TABLE crib',
      'LOCK crib',
      'BEGIN; LOCK crib IN ACCESS EXCLUSIVE MODE',
      'BEGIN | LOCK crib',
      'BEGIN | SELECT 1 | LOCK crib',
      'SELECT 1; LOCK crib',
      'BEGIN; SELECT count(*) FROM crib; LOCK crib',
      'BEGIN; LOCK crib, nosuch',
      'BEGIN; LOCK nosuch, crib',
      'TRUNCATE crib, nosuch',
      'RESET ROLE | BEGIN | SET ROLE regress_crib | LOCK crib',
      'BEGIN | SELECT count(*) FROM crib | LOCK crib',
      'BEGIN | SELECT count(*) FROM crib | @reader SELECT 1 | LOCK crib',
      'BEGIN | INSERT INTO crib VALUES (1) | @reader SELECT 1 | LOCK crib',
    ]) {
      const onServer = await deniedBeforeWait(engines.server.engine, statement);
      expect(onServer.first).not.toBe('waiting');
      expect(await deniedBeforeWait(engines.pglite, statement), statement).toEqual(onServer);
    }
  });

  it('INSERT lets a role LOCK up to ROW EXCLUSIVE, which waits; a stronger mode is denied at once', async () => {
    const denied = 'permission denied for table crate2';
    const wants = {
      'ROW EXCLUSIVE': { first: 'waiting', after: 'done' },
      'SHARE UPDATE EXCLUSIVE': { first: denied, after: denied },
    };
    for (const [mode, want] of Object.entries(wants)) {
      expect(await lockModeByPrivilege(engines.server.engine, mode), mode).toEqual(want);
      expect(await lockModeByPrivilege(engines.pglite, mode), mode).toEqual(want);
    }
  });

  it('VACUUM skips a table dropped while it waited for another on a server; PGlite refuses', async () => {
    expect(await vacuumLosesPartition(engines.server.engine)).toEqual({
      first: 'waiting',
      after: 'done',
      notices: ['skipping vacuum of "racked2" --- relation no longer exists'],
    });
    const onPglite = await vacuumLosesPartition(engines.pglite);
    expect(onPglite.first).toBe('waiting');
    expect(onPglite.after).toMatch(/catalog changed/);
  });

  it('a table lock request that the waiting one ahead of it waits for fails at once with a deadlock', async () => {
    for (const first of ['read', 'write'] as const) {
      const want = {
        aFirst: 'waiting',
        bLocks: '40P01 deadlock detected',
        aAfter: [],
        bAfter: [],
      };
      expect(await deadlockInQueue(engines.server.engine, first)).toEqual(want);
      expect(await deadlockInQueue(engines.pglite, first)).toEqual(want);
    }
  });

  it('a claim that meets a row one of two parked transactions holds goes on when that one ends; PGlite refuses rather than guess which', async () => {
    expect(await claimBesideTwoHolders(engines.server.engine)).toEqual({
      first: 'waiting',
      afterA: [['2']],
    });
    const onPglite = await claimBesideTwoHolders(engines.pglite);
    expect(kindOf(onPglite.first)).toBe('wait-unchecked');
  });

  it.each(['FOR KEY SHARE', 'FOR KEY SHARE SKIP LOCKED'])(
    'an UPDATE of no key from a parked transaction does not wait for a row held %s',
    async (lock) => {
      const want = [['1', 'c']];
      expect(await parkedUpdateBesideKeyShare(engines.server.engine, lock)).toEqual(want);
      expect(await parkedUpdateBesideKeyShare(engines.pglite, lock)).toEqual(want);
    },
  );

  it('an UPDATE waits for the holder whose lock it conflicts with, not for a FOR KEY SHARE beside it', async () => {
    const onServer = await updateBesideKeyShare(engines.server.engine);
    expect(onServer).toEqual({
      first: 'waiting',
      afterA: [
        ['1', 'c'],
        ['3', 'c'],
      ],
    });
    const onPglite = await updateBesideKeyShare(engines.pglite);
    expect(onPglite.first).toBe('waiting');
    // Once A has committed it is not still waiting: the server's answer, or a refusal.
    const refused = String(onPglite.afterA).startsWith('not expressible');
    if (!refused) expect(onPglite.afterA).toEqual(onServer.afterA);
  });

  it.each(['writer', 'reader'] as const)(
    'LOCK TABLE … NOWAIT against a %s fails at once as on a server, or is refused where PGlite would grant it',
    async (other) => {
      const failed = '55P03 could not obtain lock on relation "bin"';
      expect(await lockNowait(engines.server.engine, other)).toBe(failed);
      const onPglite = await lockNowait(engines.pglite, other);
      if (other === 'writer') expect(onPglite).toBe(failed);
      else expect(kindOf(onPglite)).toBe('lock-nowait');
    },
  );

  it('an UPDATE of a column in a unique index beside an expression, or INCLUDEd, passes FOR KEY SHARE', async () => {
    const onServer = await notKeyColumns(engines.server.engine);
    expect(onServer).toEqual({ expression: [], included: [] });
    expect(await notKeyColumns(engines.pglite)).toEqual(onServer);
  });
});
