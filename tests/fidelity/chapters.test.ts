// The SQL the chapters mark runnable (```sql runnable) runs on PGlite and on PostgreSQL 18
// alike, and where the text quotes its output (a ```text output block after it), the
// server prints exactly those lines.
import { describe, expect, it } from 'vitest';
import type { Engine, QueryResult } from '../../src/engine/types';
import { bothEngines } from '../support/both-engines';
import { chapterFiles, runnableBlocks } from '../support/chapter-files';

/** Runs a chapter's blocks in order, in a schema of its own; the results of each block. */
async function runBlocks(engine: Engine, id: string, sqls: string[]): Promise<QueryResult[]> {
  const schema = `chapter_${id.replace(/-/g, '_')}`;
  const session = await engine.openSession({ applicationName: `chapter ${id}` });
  try {
    await session.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
    await session.query(`SET search_path = ${schema}, public`);
    const results: QueryResult[] = [];
    for (const sql of sqls) results.push(await session.query(sql));
    await session.query(`DROP SCHEMA ${schema} CASCADE`);
    return results;
  } finally {
    await session.close();
  }
}

/** What two engines must agree on: each statement's tag and rows. */
const comparable = (results: QueryResult[]) =>
  results.map((r) => r.results.map((s) => ({ command: s.command, rows: s.rows })));

const withBlocks = chapterFiles()
  .map((c) => ({ id: c.id, blocks: runnableBlocks(c.body) }))
  .filter((c) => c.blocks.length > 0);

describe('the chapters’ runnable SQL on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('some chapter has runnable SQL to check', () => {
    expect(withBlocks.length).toBeGreaterThan(0);
  });

  it.each(withBlocks)(
    '$id: runs alike, and prints what the text quotes',
    async ({ id, blocks }) => {
      const sqls = blocks.map((b) => b.sql);
      const onServer = await runBlocks(engines.server.engine, id, sqls);
      blocks.forEach((block, i) => {
        if (!block.output) return;
        const last = onServer[i]!.results.filter((r) => r.fields.length > 0).at(-1);
        expect(
          last?.rows.map((row) => ` ${row[0] ?? ''}`.trimEnd()),
          `block ${i + 1}`,
        ).toEqual(block.output);
      });
      const onPglite = await runBlocks(engines.pglite, id, sqls);
      expect(comparable(onPglite)).toEqual(comparable(onServer));
    },
  );
});
