// The decision table's verdict: the column more answers count for, or a tie.
import { describe, expect, it } from 'vitest';
import { decided } from '../../../src/components/player/Decide';
import { loadScenario } from '../../../src/scenario/load';

const spec = loadScenario('enqueue').decide!;

describe('who owns the status of this job', () => {
  it('counts each answer for the column it points to', () => {
    expect(decided(spec, [true, true, false, false])).toBe('postgres');
    expect(decided(spec, [false, false, true, true])).toBe('broker');
    expect(decided(spec, [true, undefined, undefined, undefined])).toBe('postgres');
  });

  it('calls an even split a tie, and no answers no verdict', () => {
    expect(decided(spec, [true, true, true, true])).toBeNull();
    expect(decided(spec, [undefined, undefined, undefined, undefined])).toBeNull();
  });
});
