import { describe, expect, it } from 'vitest';
import { readScenarioParams, scenarioSearch } from '../../../src/components/scenario-params';
import { loadScenario } from '../../../src/scenario/load';
import { planSteps, type Selection } from '../../../src/scenario/plan';

const scenario = loadScenario('skip-locked');
const stepsFor = (s: Selection) => planSteps(scenario, s).length;

describe('readScenarioParams', () => {
  it('reads a choice, a number and a step, and leaves the shared parameters alone', () => {
    const read = readScenarioParams(
      '?lock=wait&hold=5&step=2&theme=dark&present=1',
      scenario,
      stepsFor,
    );
    expect(read.selection.choices.lock).toBe('wait');
    expect(read.selection.parameters.hold).toBe(5);
    expect(read.step).toBe(2);
    expect(read.reasons).toEqual([]);
  });

  it('plays every step of a run asked past its end, and names it', () => {
    const read = readScenarioParams('?step=999', scenario, stepsFor);
    const all = stepsFor(read.selection);
    expect(read.step).toBe(all);
    expect(read.reasons).toEqual([
      { kind: 'out-of-range', name: 'step', value: '999', used: all, min: 0, max: all },
    ]);
  });

  it('starts at the beginning for a step that is not a whole number', () => {
    const read = readScenarioParams('?step=1.5', scenario, stepsFor);
    expect(read.step).toBe(0);
    expect(read.reasons.map((r) => r.kind)).toEqual(['not-whole']);
  });
});

describe('scenarioSearch', () => {
  it('gives back what it read, keeping theme, load and present', () => {
    const current = '?lock=wait&step=1&theme=dark&load=click&present=1&colour=red';
    const read = readScenarioParams(current, scenario, stepsFor);
    const search = scenarioSearch(scenario, read.selection, 3, current);
    expect(new URLSearchParams(search).toString()).toBe(
      'lock=wait&step=3&theme=dark&load=click&present=1',
    );
    const again = readScenarioParams(search, scenario, stepsFor);
    expect(again.selection).toEqual(read.selection);
    expect(again.step).toBe(3);
  });
});
