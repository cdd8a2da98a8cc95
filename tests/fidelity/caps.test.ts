// What the in-browser engine keeps of an answer is capped (answerCaps), and what it keeps is
// PostgreSQL's own: the first rows and notices as a server sends them, and the counts of
// the rest as PostgreSQL gives them. Each cap's count is checked against a real PostgreSQL
// 18 that keeps everything.
import { describe, expect, it } from 'vitest';
import { answerCaps, PgError, type Engine } from '../../src/engine/types';
import { bothEngines } from '../support/both-engines';

async function answer(engine: Engine, sql: string) {
  const s = await engine.openSession({ applicationName: 'caps' });
  try {
    return await s.query(sql);
  } finally {
    await s.close();
  }
}

describe('caps on an answer, against PostgreSQL 18', () => {
  const engines = bothEngines();

  it('keeps the first rows of a long result, and PostgreSQL’s count of all', async () => {
    const sql = 'SELECT g, md5(g::text) FROM generate_series(1, 20000) g';
    const [server] = (await answer(engines.server.engine, sql)).results;
    const [pglite] = (await answer(engines.pglite, sql)).results;
    expect(server!.rows).toHaveLength(20000);
    expect(pglite!.rows).toEqual(server!.rows.slice(0, answerCaps.rows));
    expect(pglite!.rowCount).toBe(server!.rowCount);
    expect(pglite!.rowsOmitted).toEqual({ count: 20000 - answerCaps.rows, cap: 'rows' });
  });

  it('keeps rows up to the byte cap, and counts the rest', async () => {
    const sql = "SELECT g, repeat('x', 5000) FROM generate_series(1, 400) g";
    const [server] = (await answer(engines.server.engine, sql)).results;
    const [pglite] = (await answer(engines.pglite, sql)).results;
    const kept = pglite!.rows.length;
    expect(kept).toBeGreaterThan(0);
    expect(kept * 5000).toBeLessThanOrEqual(answerCaps.bytes);
    expect(pglite!.rows).toEqual(server!.rows.slice(0, kept));
    expect(pglite!.rowsOmitted).toEqual({ count: 400 - kept, cap: 'bytes' });
    expect(pglite!.rowCount).toBe(server!.rowCount);
  });

  it('keeps the first notices, and counts every one PostgreSQL sent', async () => {
    const sql = "DO $$BEGIN FOR i IN 1..250 LOOP RAISE NOTICE 'step %', i; END LOOP; END$$";
    const server = await answer(engines.server.engine, sql);
    const pglite = await answer(engines.pglite, sql);
    expect(server.notices).toHaveLength(250);
    expect(pglite.notices).toEqual(server.notices.slice(0, answerCaps.notices));
    expect(pglite.noticesOmitted).toBe(250 - answerCaps.notices);
  });

  it('cuts a message longer than the cap and says so', async () => {
    const sql = "DO $$BEGIN RAISE EXCEPTION '%', repeat('y', 25000); END$$";
    const failed = (engine: Engine) =>
      answer(engine, sql).then(
        () => null,
        (e: unknown) => e as PgError,
      );
    const server = (await failed(engines.server.engine))!;
    const pglite = (await failed(engines.pglite))!;
    expect(pglite.code).toBe(server.code);
    expect(server.message).toHaveLength(25000);
    expect(pglite.message.startsWith(server.message.slice(0, answerCaps.messageChars))).toBe(true);
    expect(pglite.message).toMatch(/cut here: the in-browser engine keeps 10,000 characters/);
  });
});
