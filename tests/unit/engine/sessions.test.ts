import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import {
  NotExpressibleError,
  PgError,
  type Engine,
  type RefusalKind,
  type Session,
} from '../../../src/engine/types';

const rows = async (s: Session, sql: string) => (await s.query(sql)).results.at(-1)!.rows;
const fail = async (s: Session, sql: string) =>
  (await s.query(sql).then(
    () => {
      throw new Error(`expected ${sql} to fail`);
    },
    (e: unknown) => e,
  )) as PgError;
const vacuum = async (s: Session, table: string) =>
  (await s.query(`VACUUM (VERBOSE) ${table}`)).notices.map((n) => n.message).join('\n');

describe('many sessions on one PGlite backend', () => {
  let engine: Engine;
  let a: Session;
  let b: Session;

  beforeEach(async () => {
    engine = await createNodePgliteEngine();
    a = await engine.openSession({ applicationName: 'worker-a' });
    b = await engine.openSession({ applicationName: 'worker-b' });
    await b.query(
      "CREATE TABLE jobs (id int PRIMARY KEY, status text NOT NULL DEFAULT 'queued'); INSERT INTO jobs (id) SELECT generate_series(1, 6)",
    );
  });
  afterEach(() => engine.close());

  it('the article’s claim runs beside a parked claim and takes the next job', async () => {
    const claim = `UPDATE jobs SET status = 'running'
       WHERE id = (SELECT id FROM jobs WHERE status = 'queued' ORDER BY id
                   FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING id`;
    await a.query('BEGIN');
    expect(await rows(a, claim)).toEqual([['1']]);
    expect(await rows(b, `BEGIN; ${claim}`)).toEqual([['2']]);
    // The catalog's own function lists the layer's parked transactions; the view
    // pg_prepared_xacts shows a reader none, as a server would (sim-schema.ts).
    expect(await rows(b, 'SELECT count(*) FROM sim.layer_prepared_xacts()')).toEqual([['1']]);
    expect(await rows(b, 'SELECT count(*) FROM pg_catalog.pg_prepared_xacts')).toEqual([['0']]);
  });

  it('two workers claiming with FOR UPDATE SKIP LOCKED get different jobs', async () => {
    const claim = 'SELECT id FROM jobs ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED';
    await a.query('BEGIN');
    expect(await rows(a, claim)).toEqual([['1'], ['2']]);
    await b.query('BEGIN');
    expect(await rows(b, claim)).toEqual([['3'], ['4']]);
    expect(await rows(b, 'SELECT gid FROM sim.layer_prepared_xacts()')).toHaveLength(1);
  });

  it('a parked writer holds its XID: VACUUM cannot remove what died after it began', async () => {
    await a.query('BEGIN');
    await a.query("UPDATE jobs SET status = 'running' WHERE id = 1");
    const [[xid]] = await rows(a, 'SELECT pg_current_xact_id()::text');
    await b.query('DELETE FROM jobs WHERE id > 3');
    const blocked = await vacuum(b, 'jobs');
    expect(blocked).toContain('tuples: 0 removed, 6 remain, 3 are dead but not yet removable');
    expect(blocked).toContain(`removable cutoff: ${xid},`);
    expect(await rows(b, 'SELECT transaction::text FROM sim.layer_prepared_xacts()')).toEqual([
      [xid],
    ]);

    expect((await a.query('COMMIT')).results.map((r) => r.command)).toEqual(['COMMIT']);
    expect(await vacuum(b, 'jobs')).toContain(
      'tuples: 4 removed, 3 remain, 0 are dead but not yet removable',
    );
    expect(await rows(b, 'SELECT status FROM jobs WHERE id = 1')).toEqual([['running']]);
  });

  it('a parked session goes on as a replay until another transaction commits, then is told why', async () => {
    await a.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    await b.query('SELECT 1');
    expect(await rows(a, 'SELECT status FROM jobs WHERE id = 1')).toEqual([['running']]);
    await b.query("UPDATE jobs SET status = 'done' WHERE id = 2");
    const e = await a.query('SELECT 1').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NotExpressibleError);
    expect((e as Error).message).toMatch(
      /parked.*can only COMMIT or ROLLBACK.*other transactions committed since it began/,
    );
    await a.query('ROLLBACK');
    expect(await rows(b, 'SELECT status FROM jobs WHERE id = 1')).toEqual([['queued']]);
    expect(await rows(b, 'SELECT count(*) FROM sim.layer_prepared_xacts()')).toEqual([['0']]);
  });

  it('a READ COMMITTED reader is not parked and sees later commits, as on a server', async () => {
    await a.query('BEGIN');
    expect(await rows(a, 'SELECT count(*) FROM jobs')).toEqual([['6']]);
    await b.query('DELETE FROM jobs WHERE id = 6');
    expect(await rows(b, 'SELECT count(*) FROM sim.layer_prepared_xacts()')).toEqual([['0']]);
    expect(await rows(a, 'SELECT count(*) FROM jobs')).toEqual([['5']]);
    expect((await a.query('COMMIT')).results.map((r) => r.command)).toEqual(['COMMIT']);
  });

  it('a REPEATABLE READ reader is stood in for: the horizon stays where its snapshot was', async () => {
    await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await rows(a, 'SELECT count(*) FROM jobs');
    await b.query('DELETE FROM jobs WHERE id > 4');
    expect(await vacuum(b, 'jobs')).toContain('2 are dead but not yet removable');
    await a.query('COMMIT');
    expect(await vacuum(b, 'jobs')).toContain('2 removed');
  });

  it('a failed transaction stays failed across other sessions until ROLLBACK', async () => {
    await a.query('BEGIN');
    expect((await fail(a, 'SELECT 1/0')).code).toBe('22012');
    await b.query('SELECT 1');
    const aborted = await fail(a, 'SELECT 1');
    expect(aborted.code).toBe('25P02');
    expect((await a.query('ROLLBACK')).results.map((r) => r.command)).toEqual(['ROLLBACK']);
    expect(await rows(a, 'SELECT 2')).toEqual([['2']]);
  });

  it('keeps each session’s settings to itself', async () => {
    await a.query("SET statement_timeout = '5s'");
    expect(await rows(b, 'SHOW statement_timeout')).toEqual([['0']]);
    expect(await rows(a, 'SHOW statement_timeout')).toEqual([['5s']]);
    expect(await rows(a, 'SHOW application_name')).toEqual([['worker-a']]);
    expect(await rows(b, 'SHOW application_name')).toEqual([['worker-b']]);
    // Set part-way through a string, by function, and after other sessions' turns.
    await a.query(
      "SELECT 1; SET work_mem = '8MB'; SELECT set_config('search_path', 'public', false)",
    );
    await b.query("SELECT set_config('work_mem', '2MB', false)");
    await a.query('SELECT 2');
    await b.query('SELECT 3');
    expect(
      await rows(a, "SELECT current_setting('work_mem'), current_setting('search_path')"),
    ).toEqual([['8MB', 'public']]);
    expect(await rows(b, 'SHOW work_mem')).toEqual([['2MB']]);
  });

  it('a statement in flight (pg_sleep) lets others run, and pg_cancel_backend ends it with 57014', async () => {
    const sleeping = a.query('SELECT pg_sleep(30)').then(
      () => 'slept',
      (e: PgError) => e.code,
    );
    expect(
      await rows(b, 'SELECT state, wait_event FROM pg_stat_activity WHERE pid = ' + a.pid),
    ).toEqual([['active', 'PgSleep']]);
    expect(await rows(b, `SELECT pg_cancel_backend(${a.pid})`)).toEqual([['t']]);
    expect(await sleeping).toBe('57014');
    expect(await rows(b, 'SELECT count(*) FROM sim.layer_prepared_xacts()')).toEqual([['0']]);
    expect(await rows(a, 'SELECT 1')).toEqual([['1']]);
  });

  it('closing a parked session rolls its transaction back', async () => {
    await a.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    await b.query('SELECT 1');
    await a.close();
    expect(await rows(b, 'SELECT status FROM jobs WHERE id = 1')).toEqual([['queued']]);
    expect(await rows(b, 'SELECT count(*) FROM sim.layer_prepared_xacts()')).toEqual([['0']]);
  });

  describe('refusals, by kind', () => {
    /** The kind of refusal `sql` meets on `s`, or `ran`, or the error it failed with. */
    const outcome = (s: Session, sql: string): Promise<RefusalKind | string> =>
      s.query(sql).then(
        () => 'ran',
        (e: unknown) => (e instanceof NotExpressibleError ? e.kind : String(e)),
      );

    it('a parked transaction that would go on after another committed is refused as parked-goes-on', async () => {
      // Its WHERE reads beyond the rows it changes: another's commit may change its answer.
      await a.query(
        "BEGIN; UPDATE jobs SET status = 'running' WHERE id = (SELECT min(id) FROM jobs)",
      );
      await b.query("UPDATE jobs SET status = 'done' WHERE id = 2");
      expect(await outcome(a, 'SELECT 1')).toBe('parked-goes-on');
    });

    it('what belongs to the backend, or another database, is refused by kind', async () => {
      expect(await outcome(a, 'CREATE TEMP TABLE mine (x int)')).toBe('temporary-object');
      expect(await outcome(a, 'LISTEN jobs')).toBe('backend-wide-object');
      const elsewhere = await engine
        .openSession({ database: 'elsewhere' })
        .catch((e: unknown) => e);
      expect((elsewhere as NotExpressibleError).kind).toBe('other-database');
    });

    it('advisory locks the layer cannot keep apart are refused by kind', async () => {
      expect(await outcome(a, 'SELECT pg_advisory_lock_shared(1)')).toBe('advisory-untracked');
      await a.query('SELECT pg_advisory_lock(7)');
      expect(await outcome(b, 'SELECT pg_try_advisory_lock(7)')).toBe('advisory-try');
      expect(await outcome(b, 'SELECT 1 WHERE pg_advisory_lock(7) IS NOT NULL')).toBe(
        'advisory-part-way',
      );
    });

    it('a parked transaction’s statement the layer cannot check is refused as wait-unchecked', async () => {
      await a.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
      await b.query("BEGIN; UPDATE jobs SET status = 'b' WHERE id = 2");
      // A is parked now: sent, its statement would have to go on first.
      expect(
        await outcome(a, "UPDATE jobs SET status = 'x' FROM (SELECT 1) s WHERE jobs.id = 2"),
      ).toBe('wait-unchecked');
    });

    it('a session holding an XID waits, and goes on once the holder rolls back', async () => {
      await a.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
      await b.query(
        "BEGIN ISOLATION LEVEL REPEATABLE READ; UPDATE jobs SET status = 'b' WHERE id = 2",
      );
      const waiting = outcome(b, "UPDATE jobs SET status = 'b' WHERE id = 1");
      const early = await Promise.race([waiting, new Promise((r) => setTimeout(r, 300, 'waits'))]);
      expect(early).toBe('waits');
      await a.query('ROLLBACK');
      expect(await waiting).toBe('ran');
      await b.query('COMMIT');
      expect(await rows(a, 'SELECT status FROM jobs WHERE id <= 2 ORDER BY id')).toEqual([
        ['b'],
        ['b'],
      ]);
    });

    // CREATE INDEX CONCURRENTLY commits its first part, then waits for older transactions
    // (their locks on the table, their snapshots): a prepared one would hang PGlite.
    it('a CONCURRENTLY build beside prepared transactions is refused as waits-for-older', async () => {
      const build = 'CREATE INDEX CONCURRENTLY ON jobs (status)';
      await a.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
      expect(await outcome(b, build)).toBe('waits-for-older');
      await a.query('COMMIT');
      expect(await outcome(b, build)).toBe('ran');
    });

    it('a reader’s own PREPARE TRANSACTION is refused as prepared-by-reader', async () => {
      await a.query('BEGIN');
      await a.query('INSERT INTO jobs (id) VALUES (7)');
      expect(await outcome(a, "PREPARE TRANSACTION 'mine'")).toBe('prepared-by-reader');
      expect(await rows(b, "SELECT count(*) FROM pg_prepared_xacts WHERE gid = 'mine'")).toEqual([
        ['0'],
      ]);
      await a.query('ROLLBACK');
      expect(await rows(b, 'SELECT count(*) FROM jobs')).toEqual([['6']]);
    });

    it('a transaction that could not be parked is refused once as transaction-lost', async () => {
      await b.close();
      await a.query('CREATE TEMP TABLE mine (x int)'); // alone, a session may
      const c = await engine.openSession();
      // A transaction that used a temporary table cannot be prepared (PrepareTransaction
      // in src/backend/access/transam/xact.c), so setting it aside loses it.
      await a.query('BEGIN; INSERT INTO mine VALUES (1)');
      await c.query('SELECT 1');
      expect(await outcome(a, 'SELECT 1')).toBe('transaction-lost');
      expect(await outcome(a, 'SELECT 1')).toBe('ran');
    });
  });
});

describe('pg_stat_activity and signals for the simulated sessions', () => {
  let engine: Engine;
  let reader: Session;
  let worker: Session;

  const articleQuery = `SELECT pid, application_name, state, age(COALESCE(backend_xmin, backend_xid)) AS holding_back_by, now() - xact_start AS open_for FROM pg_stat_activity WHERE datname = current_database() AND COALESCE(backend_xmin, backend_xid) IS NOT NULL ORDER BY holding_back_by DESC;`;

  beforeEach(async () => {
    engine = await createNodePgliteEngine();
    reader = await engine.openSession({ applicationName: 'reader' });
    worker = await engine.openSession({ applicationName: 'worker-07' });
    await reader.query(
      'CREATE TABLE jobs (id int PRIMARY KEY, status text); INSERT INTO jobs VALUES (1, $$queued$$)',
    );
  });
  afterEach(() => engine.close());

  it('each session sees its own synthetic pid', async () => {
    expect(await rows(reader, 'SELECT pg_backend_pid()')).toEqual([[String(reader.pid)]]);
    expect(await rows(worker, 'SELECT pg_backend_pid()')).toEqual([[String(worker.pid)]]);
    // Again after the backend went back and forth between them.
    expect(await rows(reader, 'SELECT pg_backend_pid()')).toEqual([[String(reader.pid)]]);
  });

  it('the article’s query finds the idle writer by backend_xid; backend_xmin IS NOT NULL misses it', async () => {
    await worker.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    const [[xid]] = await rows(worker, 'SELECT pg_current_xact_id()::text');
    const found = await rows(reader, articleQuery);
    const byName = Object.fromEntries(found.map((r) => [r[1], r]));
    expect(byName['worker-07']!.slice(0, 3)).toEqual([
      String(worker.pid),
      'worker-07',
      'idle in transaction',
    ]);
    // The reader itself is listed too, as on a server: it is running the query.
    expect(byName['reader']![2]).toBe('active');
    const xmins = await rows(
      reader,
      'SELECT application_name, backend_xid::text, backend_xmin::text FROM pg_stat_activity WHERE backend_xmin IS NOT NULL ORDER BY 1',
    );
    expect(xmins.map((r) => r[0])).toEqual(['reader']);
    const writer = await rows(
      reader,
      "SELECT backend_xid::text, state FROM pg_stat_activity WHERE application_name = 'worker-07'",
    );
    expect(writer).toEqual([[xid, 'idle in transaction']]);
  });

  it('pg_terminate_backend ends a parked writer: its transaction rolls back, its client reads FATAL 57P01', async () => {
    await worker.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    expect(await rows(reader, `SELECT pg_terminate_backend(${worker.pid})`)).toEqual([['t']]);
    expect(await rows(reader, 'SELECT status FROM jobs')).toEqual([['queued']]);
    expect(
      await rows(
        reader,
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'worker-07'",
      ),
    ).toEqual([['0']]);
    const fatal = await fail(worker, 'COMMIT');
    expect([fatal.severity, fatal.code, fatal.message]).toEqual([
      'FATAL',
      '57P01',
      'terminating connection due to administrator command',
    ]);
  });

  it('pg_terminate_backend of a pid that is no session warns and returns false, as a server does', async () => {
    const { results, notices } = await reader.query('SELECT pg_terminate_backend(1)');
    expect(results[0]!.rows).toEqual([['f']]);
    expect(notices.map((n) => `${n.severity}: ${n.message}`)).toEqual([
      'WARNING: PID 1 is not a PostgreSQL backend process',
    ]);
  });
});

describe('waits on a parked transaction, never hangs', () => {
  let engine: Engine;
  let a: Session;
  let b: Session;
  let reader: Session;

  beforeEach(async () => {
    engine = await createNodePgliteEngine();
    a = await engine.openSession({ applicationName: 'worker-a' });
    b = await engine.openSession({ applicationName: 'worker-b' });
    reader = await engine.openSession({ applicationName: 'reader' });
    await reader.query(
      "CREATE TABLE jobs (id int PRIMARY KEY, status text NOT NULL DEFAULT 'queued'); INSERT INTO jobs (id) SELECT generate_series(1, 6)",
    );
  });
  afterEach(() => engine.close());

  const claim = "SELECT id FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 2 FOR UPDATE";

  it('plain FOR UPDATE waits on Lock/transactionid, then after COMMIT gets the next rows', async () => {
    await a.query('BEGIN');
    expect(await rows(a, claim)).toEqual([['1'], ['2']]);
    await a.query("UPDATE jobs SET status = 'running' WHERE id IN (1, 2)");
    await b.query('BEGIN');
    let settled = false;
    const waiting = b.query(claim).then((r) => {
      settled = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false);
    expect(
      await rows(
        reader,
        "SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE application_name = 'worker-b'",
      ),
    ).toEqual([['active', 'Lock', 'transactionid']]);
    expect(
      await rows(reader, `SELECT pg_isolation_test_session_is_blocked(${b.pid}, '{${a.pid}}')`),
    ).toEqual([['t']]);
    await a.query('COMMIT');
    expect((await waiting).results[0]!.rows).toEqual([['3'], ['4']]);
    await b.query('COMMIT');
  });

  it('UPDATE of a row a parked transaction updated waits, then sees the committed row', async () => {
    await a.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    const waiting = b.query("UPDATE jobs SET status = 'done' WHERE id = 1");
    await new Promise((r) => setTimeout(r, 20));
    expect(
      await rows(
        reader,
        "SELECT wait_event FROM pg_stat_activity WHERE application_name = 'worker-b'",
      ),
    ).toEqual([['transactionid']]);
    await a.query('COMMIT');
    expect((await waiting).results[0]!.rowCount).toBe(1);
    expect(await rows(reader, 'SELECT status FROM jobs WHERE id = 1')).toEqual([['done']]);
  });

  it('an UPDATE of other rows does not wait', async () => {
    await a.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    expect(
      (await b.query("UPDATE jobs SET status = 'done' WHERE id = 2")).results[0]!.rowCount,
    ).toBe(1);
    await a.query('ROLLBACK');
  });

  it('SKIP LOCKED never waits', async () => {
    await a.query('BEGIN');
    await rows(a, claim);
    expect(await rows(b, `${claim} SKIP LOCKED`)).toEqual([['3'], ['4']]);
  });

  it('TRUNCATE waits on the relation a parked transaction holds', async () => {
    await a.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    const waiting = b.query('TRUNCATE jobs');
    await new Promise((r) => setTimeout(r, 20));
    expect(
      await rows(
        reader,
        "SELECT wait_event FROM pg_stat_activity WHERE application_name = 'worker-b'",
      ),
    ).toEqual([['relation']]);
    await a.query('ROLLBACK');
    await waiting;
    expect(await rows(reader, 'SELECT count(*) FROM jobs')).toEqual([['0']]);
  });

  it('sends what it cannot check in advance, and the watchdog finds the wait', async () => {
    await a.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    const waiting = b.query(
      "UPDATE jobs SET status = 'x' FROM (SELECT 1) s WHERE jobs.id = 1 RETURNING status",
    );
    // Queued behind B's statement: it runs once the watchdog has found B waiting.
    await a.query('ROLLBACK');
    expect((await waiting).results[0]!.rows).toEqual([['x']]);
  });

  // On a server a statement that waits for a row has run part-way (its WHERE clause, a
  // BEFORE trigger) and sent the notices raised so far before the wait.
  it('a statement that waited for a row and raises notices is undone and refused', async () => {
    await reader.query(`CREATE FUNCTION noisy(int) RETURNS bool LANGUAGE plpgsql AS
      $$ BEGIN RAISE NOTICE 'looking at %', $1; RETURN true; END $$`);
    await a.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    const waiting = b
      .query("UPDATE jobs SET status = 'done' WHERE id = 1 AND noisy(id)")
      .catch((e: unknown) => e);
    await a.query('ROLLBACK');
    expect(((await waiting) as NotExpressibleError).kind).toBe('notices-before-wait');
    expect(await rows(reader, 'SELECT status FROM jobs WHERE id = 1')).toEqual([['queued']]);
  });

  it('a BEFORE INSERT trigger that fired before a unique-key wait is refused the same way', async () => {
    await reader.query(`CREATE FUNCTION say() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE NOTICE 'inserting %', NEW.id; RETURN NEW; END $$;
      CREATE TRIGGER say BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION say()`);
    await a.query('BEGIN; INSERT INTO jobs (id) VALUES (7)');
    await b.query('BEGIN');
    const waiting = b.query('INSERT INTO jobs (id) VALUES (7)').catch((e: unknown) => e);
    await a.query('COMMIT');
    expect(((await waiting) as NotExpressibleError).kind).toBe('notices-before-wait');
  });

  it('a statement that waited for a row and raises no notices runs again', async () => {
    await a.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    const waiting = b.query("UPDATE jobs SET status = 'done' WHERE id = 1");
    await a.query('ROLLBACK');
    expect((await waiting).results[0]!.rowCount).toBe(1);
  });
});

describe('an UPDATE whose WHERE the locked row no longer matches', () => {
  it('does not wait, as on a server: the visible version decides', async () => {
    const engine = await createNodePgliteEngine();
    const [a, b] = [await engine.openSession(), await engine.openSession()];
    await b.query(
      "CREATE TABLE jobs (id int PRIMARY KEY, status text); INSERT INTO jobs VALUES (1, 'queued')",
    );
    await a.query("BEGIN; UPDATE jobs SET status = 'running' WHERE id = 1");
    const { results } = await b.query(
      "UPDATE jobs SET status = 'done' WHERE id = 1 AND status = 'running'",
    );
    expect(results[0]!.rowCount).toBe(0);
    await engine.close();
  });
});

describe('what one backend cannot keep apart', () => {
  it('refuses temporary tables while several sessions are open, and says why', async () => {
    const engine = await createNodePgliteEngine();
    const a = await engine.openSession();
    await a.query('CREATE TEMP TABLE mine (x int)'); // alone, a session may
    const b = await engine.openSession();
    const error = await b.query('CREATE TEMPORARY TABLE scratch (x int)').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotExpressibleError);
    expect((error as Error).message).toMatch(/temporary tables belong to the backend/);
    await engine.close();
  });
});
