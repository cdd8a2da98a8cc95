// The ninth blocker state: REPEATABLE READ in a different database. On a server it does
// not hold back VACUUM of this database's tables (ComputeXidHorizons in procarray.c only
// counts backends of the same database for them). PGlite's one backend cannot connect to
// a second database, so the engine says so instead of showing something else.
import { describe, expect, it } from 'vitest';
import { bothEngines } from '../support/both-engines';
import { NotExpressibleError } from '../../src/engine/types';

describe('a REPEATABLE READ blocker in another database', () => {
  const engines = bothEngines();

  it('on PostgreSQL 18 leaves this database’s dead tuples removable', async () => {
    const cleaner = await engines.server.engine.openSession({ applicationName: 'cleaner' });
    await cleaner.query('CREATE DATABASE elsewhere');
    await cleaner.query(
      'CREATE TABLE ledger (id int); INSERT INTO ledger SELECT generate_series(1, 50)',
    );
    const blocker = await engines.server.engine.openSession({ database: 'elsewhere' });
    await blocker.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await blocker.query('SELECT 1');
    await cleaner.query('DELETE FROM ledger WHERE id <= 10');
    const { notices } = await cleaner.query('VACUUM (VERBOSE) ledger');
    expect(notices.map((n) => n.message).join('\n')).toContain(
      'tuples: 10 removed, 40 remain, 0 are dead but not yet removable',
    );
    await blocker.query('COMMIT');
  });

  it('on PGlite is refused as not expressible, saying why', async () => {
    const error = await engines.pglite
      .openSession({ database: 'elsewhere' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotExpressibleError);
    expect((error as Error).message).toMatch(/connected to the database postgres for good/);
  });
});
