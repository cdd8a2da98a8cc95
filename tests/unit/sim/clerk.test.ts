import { describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import { parseVacuumVerbose } from '../../../src/sim/clerk';
import { vacuumTuples } from '../../support/both-engines';

describe('parseVacuumVerbose', () => {
  it('reads the table’s report from real VACUUM (VERBOSE) notices, leaving its TOAST table out', async () => {
    const engine = await createNodePgliteEngine();
    try {
      const s = await engine.openSession();
      await s.query(
        'CREATE TABLE ledger (id int, note text); INSERT INTO ledger SELECT g, g::text FROM generate_series(1, 50) g; DELETE FROM ledger WHERE id <= 10',
      );
      const { notices } = await s.query('VACUUM (VERBOSE) ledger');
      expect(notices.some((n) => /finished vacuuming "postgres\.pg_toast\./.test(n.message))).toBe(
        true,
      );
      const [report, ...more] = parseVacuumVerbose(notices);
      expect(more).toEqual([]);
      expect(report).toMatchObject({
        table: 'ledger',
        removed: 10,
        remain: 40,
        notYetRemovable: 0,
      });
      expect(vacuumTuples(notices)).toBe(
        `tuples: ${report!.removed} removed, ${report!.remain} remain, ${report!.notYetRemovable} are dead but not yet removable`,
      );
      const next = (await s.query('SELECT pg_current_xact_id()::text')).results[0]!.rows[0]![0];
      // Nothing else runs, so the cutoff is the next XID that VACUUM saw (the one just taken).
      expect(report!.cutoff).toBe(next);
      expect(report!.cutoffAge).toBeGreaterThanOrEqual(0);
    } finally {
      await engine.close();
    }
  });

  it('says so when a report lacks the lines it reads', () => {
    const notice = {
      severity: 'INFO',
      code: '00000',
      message: 'finished vacuuming "postgres.public.jobs": index scans: 0\npages: 0 removed',
    };
    expect(() => parseVacuumVerbose([notice])).toThrow(/unexpected VACUUM \(VERBOSE\) report/);
  });
});
