import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import { parseCommandTag } from '../../../src/engine/command-tag';
import { PgError, type Engine, type Session } from '../../../src/engine/types';

describe('parseCommandTag', () => {
  it('drops the OID that INSERT tags carry and keeps the row count', () => {
    expect(parseCommandTag('INSERT 0 5')).toEqual({ command: 'INSERT', rowCount: 5 });
    expect(parseCommandTag('SELECT 0')).toEqual({ command: 'SELECT', rowCount: 0 });
    expect(parseCommandTag('CREATE TABLE')).toEqual({ command: 'CREATE TABLE', rowCount: null });
  });
});

describe('the PGlite engine in Node', () => {
  let engine: Engine;
  let session: Session;

  beforeAll(async () => {
    engine = await createNodePgliteEngine();
    session = await engine.openSession({ applicationName: 'unit' });
  });
  afterAll(() => engine.close());

  it('runs PostgreSQL 18 started with room for prepared transactions', async () => {
    const { results } = await session.query(
      "SELECT current_setting('server_version_num')::int / 10000 AS major, current_setting('max_prepared_transactions') AS prepared",
    );
    expect(results[0]!.rows).toEqual([['18', '64']]);
  });

  it('names the columns of a statement sent with bound parameters', async () => {
    const { results } = await session.query('SELECT $1::int + 1 AS next, $2::text AS label', [
      41,
      'x',
    ]);
    expect(results[0]!.fields.map((f) => f.name)).toEqual(['next', 'label']);
    expect(results[0]!.rows).toEqual([['42', 'x']]);
  });

  it('returns every statement of a simple query with its command tag', async () => {
    const { results } = await session.query(
      'CREATE TABLE t (id int, label text); INSERT INTO t VALUES (1, NULL), (2, $$b$$); SELECT * FROM t ORDER BY id',
    );
    expect(results.map((r) => [r.command, r.rowCount])).toEqual([
      ['CREATE TABLE', null],
      ['INSERT', 2],
      ['SELECT', 2],
    ]);
    expect(results[2]!.fields.map((f) => f.name)).toEqual(['id', 'label']);
    expect(results[2]!.rows).toEqual([
      ['1', null],
      ['2', 'b'],
    ]);
  });

  it('keeps two columns that share a name', async () => {
    const { results } = await session.query('SELECT 1, 2');
    expect(results[0]!.fields.map((f) => f.name)).toEqual(['?column?', '?column?']);
    expect(results[0]!.rows).toEqual([['1', '2']]);
  });

  it('binds parameters over the extended protocol', async () => {
    const { results } = await session.query('SELECT $1::int + $2::int AS sum, $3::text AS n', [
      2,
      3,
      null,
    ]);
    expect(results[0]!.rows).toEqual([['5', null]]);
  });

  it('reports a syntax error with SQLSTATE, severity and position', async () => {
    const error = await session.query('SELECT 1;\nSELEC 2').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PgError);
    const e = error as PgError;
    expect([e.code, e.severity, e.message]).toEqual([
      '42601',
      'ERROR',
      'syntax error at or near "SELEC"',
    ]);
    expect(e.position).toBe(11);
  });

  it('keeps the results of statements before the one that failed', async () => {
    const error = (await session
      .query('SELECT 7 AS seven; SELECT 1/0')
      .catch((e: unknown) => e)) as PgError;
    expect(error.code).toBe('22012');
    expect(error.partial.results.map((r) => r.rows)).toEqual([[['7']]]);
  });

  it('reports detail and hint', async () => {
    await session.query('CREATE TABLE u (id int PRIMARY KEY); INSERT INTO u VALUES (1)');
    const e = (await session.query('INSERT INTO u VALUES (1)').catch((x: unknown) => x)) as PgError;
    expect(e.code).toBe('23505');
    expect(e.detail).toBe('Key (id)=(1) already exists.');
  });

  it('refuses VACUUM inside the implicit transaction of a multi-statement query, as a server does', async () => {
    const e = (await session.query('SELECT 1; VACUUM').catch((x: unknown) => x)) as PgError;
    expect([e.code, e.message]).toEqual(['25001', 'VACUUM cannot run inside a transaction block']);
  });

  it('aborts a transaction after an error until ROLLBACK, then works again', async () => {
    await session.query('BEGIN');
    await session.query('SELECT 1/0').catch(() => {});
    const e = (await session.query('SELECT 1').catch((x: unknown) => x)) as PgError;
    expect(e.code).toBe('25P02');
    await session.query('ROLLBACK');
    const { results } = await session.query('SELECT 1 AS ok');
    expect(results[0]!.rows).toEqual([['1']]);
  });

  it('hands VACUUM (VERBOSE) lines over as notices with the removable cutoff', async () => {
    await session.query(
      'CREATE TABLE v (id int); INSERT INTO v SELECT generate_series(1, 100); DELETE FROM v WHERE id <= 40',
    );
    const { notices } = await session.query('VACUUM (VERBOSE) v');
    const text = notices.map((n) => n.message).join('\n');
    expect(notices.every((n) => n.severity === 'INFO')).toBe(true);
    expect(text).toMatch(/removable cutoff: \d+/);
    expect(text).toMatch(/tuples: 40 removed, 60 remain, 0 are dead but not yet removable/);
  });

  it('closing a session rolls back its transaction and drops its temp tables', async () => {
    await session.close(); // temporary tables need a session of their own on one backend
    const s = await engine.openSession();
    await s.query(
      'CREATE TEMP TABLE scratch (x int); BEGIN; CREATE TABLE kept_only_if_committed (x int)',
    );
    await s.close();
    const next = await engine.openSession();
    const { results } = await next.query(
      "SELECT to_regclass('kept_only_if_committed') IS NULL AS gone, to_regclass('pg_temp.scratch') IS NULL AS temp_gone",
    );
    expect(results[0]!.rows).toEqual([['t', 't']]);
    await next.close();
  });
});
