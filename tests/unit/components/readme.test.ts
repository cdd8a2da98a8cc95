// The README lists every demo and the URL parameters of each scenario demo, as the
// registry and the scenario files define them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demos } from '../../../src/components/demo-list';
import { loadScenario } from '../../../src/scenario/load';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe('README.md', () => {
  it('names every demo of the registry', () => {
    for (const demo of demos) expect(readme).toContain(`\`${demo.id}\``);
  });

  it('names every choice, option and number of every scenario demo', () => {
    for (const demo of demos.filter((d) => d.kind === 'scenario')) {
      const scenario = loadScenario(demo.id);
      for (const choice of scenario.choices) {
        expect(readme).toContain(`${choice.id}=`);
        for (const option of choice.options) expect(readme).toContain(option.value);
      }
      for (const parameter of scenario.parameters) {
        expect(readme).toContain(`\`${parameter.id}\` (${parameter.min}–${parameter.max}`);
      }
    }
  });
});
