// src/engine/ARCHITECTURE.md, "Protocol matters": a READ COMMITTED reader that went idle in its
// transaction holds no snapshot after a simple-protocol query, but after an
// extended-protocol one its finished portal keeps the snapshot, and the horizon with it.
import { describe, expect, it } from 'vitest';
import { bothEngines, vacuumTuples } from '../support/both-engines';
import type { Engine } from '../../src/engine/types';

/** The `tuples:` line of VACUUM (VERBOSE) after a reader read `how` and went idle. */
async function afterIdleReader(engine: Engine, how: 'simple' | 'extended'): Promise<string> {
  const reader = await engine.openSession({ applicationName: 'reader' });
  const cleaner = await engine.openSession({ applicationName: 'cleaner' });
  await cleaner.query(
    'DROP TABLE IF EXISTS ledger; CREATE TABLE ledger (id int); INSERT INTO ledger SELECT generate_series(1, 50)',
  );
  await reader.query('BEGIN');
  if (how === 'simple') await reader.query('SELECT count(*) FROM ledger WHERE id > 0');
  else await reader.query('SELECT count(*) FROM ledger WHERE id > $1', [0]);
  await cleaner.query('DELETE FROM ledger WHERE id <= 10');
  const { notices } = await cleaner.query('VACUUM (VERBOSE) ledger');
  await reader.query('COMMIT');
  await reader.close();
  await cleaner.close();
  return vacuumTuples(notices)!;
}

describe('a READ COMMITTED reader idle in its transaction, by protocol', () => {
  const engines = bothEngines();

  it('pins the horizon only after an extended-protocol read, on both engines', async () => {
    const expected = {
      simple: 'tuples: 10 removed, 40 remain, 0 are dead but not yet removable',
      extended: 'tuples: 0 removed, 50 remain, 10 are dead but not yet removable',
    };
    for (const engine of [engines.server.engine, engines.pglite]) {
      expect({
        simple: await afterIdleReader(engine, 'simple'),
        extended: await afterIdleReader(engine, 'extended'),
      }).toEqual(expected);
    }
  });
});
