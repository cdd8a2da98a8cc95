import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript } from '../../../src/components/run-script';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import { PgError, type Engine, type Session } from '../../../src/engine/types';

describe('runScript', () => {
  let engine: Engine;
  let session: Session;
  beforeAll(async () => {
    engine = await createNodePgliteEngine();
    session = await engine.openSession();
  });
  afterAll(() => engine.close());

  it('runs VACUUM after other statements, since each statement goes on its own', async () => {
    const { results, notices } = await runScript(
      session,
      'CREATE TABLE t (id int);\nINSERT INTO t SELECT generate_series(1, 10);\nDELETE FROM t WHERE id > 4;\nVACUUM (VERBOSE) t;',
    );
    expect(results.map((r) => r.command)).toEqual(['CREATE TABLE', 'INSERT', 'DELETE', 'VACUUM']);
    expect(notices.map((n) => n.message).join('\n')).toContain('tuples: 6 removed, 4 remain');
  });

  it('stops at the first error and places its position in the whole script', async () => {
    const script = 'SELECT 1;\nSELECT 2;\n  SELEC 3;\nSELECT 4;';
    const error = (await runScript(session, script).catch((e: unknown) => e)) as PgError;
    expect(error).toBeInstanceOf(PgError);
    expect(error.code).toBe('42601');
    expect(script.slice(error.position! - 1, error.position! + 4)).toBe('SELEC');
    expect(error.partial.results.map((r) => r.rows)).toEqual([[['1']], [['2']]]);
  });
});
