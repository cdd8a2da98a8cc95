import { describe, expect, it } from 'vitest';
import { judge, permutationBlocks } from '../../../src/spec/conformance';

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
      timedOut: [],
      byKind: { 'parked-goes-on': 1 },
    });
    expect(judge(expected, ['nothing', expected]).matches).toBe(2);
  });

  it('counts a refusal under its kind, or as unknown when the engine named none', () => {
    const actual = expected.replace(
      'step a: SELECT 1;\nstep b: SELECT 2;',
      'not expressible: temporary tables belong to the backend',
    );
    expect(
      judge(actual, [expected], [{ steps: ['a', 'b'], kind: 'temporary-object' }]).byKind,
    ).toEqual({ 'temporary-object': 1 });
    expect(judge(actual, [expected]).byKind).toEqual({ unknown: 1 });
  });

  it('counts a step the tester had to cancel, and permutations never reached, as timed out', () => {
    const cancelled = expected.replace(
      'step b: SELECT 2;\nstep a: SELECT 1;',
      'step b: SELECT 2;\nisolationtester: canceling step a after 300 seconds\nstep a: SELECT 1;',
    );
    expect(judge(cancelled, [expected]).timedOut).toEqual(['b a']);
    const cut = expected.slice(0, expected.indexOf('starting permutation: b a'));
    expect(judge(cut, [expected])).toMatchObject({
      permutations: 2,
      matches: 1,
      timedOut: ['b a'],
    });
  });
});
