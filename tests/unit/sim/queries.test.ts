import { describe, expect, it } from 'vitest';
import { enqueueSql, holdClaimSql, literal } from '../../../src/sim/queries';

describe('the literals the sim inlines', () => {
  it('quotes names and timestamps the sim made', () => {
    expect(literal('worker-07')).toBe("'worker-07'");
    expect(literal('2025-01-06T09:00:00.000Z')).toBe("'2025-01-06T09:00:00.000Z'");
  });

  it('refuses anything that could end the literal or the statement', () => {
    for (const text of ["it's", 'a;b', 'x\\y', "'); DROP TABLE jobs; --"]) {
      expect(() => literal(text)).toThrow(/not a literal the sim makes/);
    }
    expect(() => holdClaimSql("worker-07'", '2025-01-06T09:00:00.000Z')).toThrow(
      /not a literal the sim makes/,
    );
  });

  it('sends the upload and its job as one transaction, and opens the hold claim with BEGIN', () => {
    expect(enqueueSql('upload-1', '2025-01-06T09:00:00.000Z')).toMatch(
      /^BEGIN; INSERT INTO uploads .*; INSERT INTO jobs .*; COMMIT$/,
    );
    expect(holdClaimSql('worker-07', '2025-01-06T09:00:00.000Z')).toMatch(
      /^BEGIN; UPDATE jobs SET .* WHERE id = \(SELECT id FROM jobs .* FOR UPDATE SKIP LOCKED LIMIT 1\) RETURNING id, kind, payload$/,
    );
  });
});
