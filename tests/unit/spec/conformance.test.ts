import { describe, expect, it } from 'vitest';
import { judge, mustContinue, permutationBlocks } from '../../../src/spec/conformance';

const expected = [
  'Parsed test spec with 2 sessions',
  '',
  'starting permutation: a b',
  'step a: SELECT 1;',
  'step b: SELECT 2;',
  '',
  'starting permutation: b a',
  'step b: SELECT 2;',
  'step a: SELECT 1;',
  '',
].join('\n');

describe('judge', () => {
  it('splits .out text into permutation blocks', () => {
    expect(permutationBlocks(expected).map((b) => b.steps)).toEqual([
      'starting permutation: a b',
      'starting permutation: b a',
    ]);
  });

  it('counts matching, not expressible and differing permutations apart', () => {
    const actual = expected
      .replace(
        'step a: SELECT 1;\nstep b: SELECT 2;',
        'not expressible: this session’s transaction is parked: …',
      )
      .replace('step b: SELECT 2;\nstep a: SELECT 1;', 'step b: SELECT 2;\nstep a: SELECT 9;');
    expect(judge(actual, [expected], [{ steps: ['a', 'b'], kind: 'parked-goes-on' }])).toEqual({
      permutations: 2,
      matches: 0,
      notExpressible: 1,
      differs: ['b a'],
      byKind: { 'parked-goes-on': 1 },
      otherReasons: [],
    });
    expect(judge(expected, ['nothing', expected]).matches).toBe(2);
  });

  it('lists "not expressible" verdicts whose kind is not a parked session going on', () => {
    const actual = expected.replace(
      'step a: SELECT 1;\nstep b: SELECT 2;',
      'not expressible: temporary tables belong to the backend',
    );
    expect(
      judge(actual, [expected], [{ steps: ['a', 'b'], kind: 'temporary-object' }]).otherReasons,
    ).toEqual(['a b: temporary-object']);
    expect(judge(actual, [expected]).otherReasons).toEqual(['a b: unknown']);
    expect(mustContinue('advisory-part-way')).toBe(true);
  });
});
