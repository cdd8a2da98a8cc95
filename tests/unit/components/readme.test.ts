// The README lists every demo, the URL parameters of each tool demo with their ranges, and
// those of each scenario demo, as the registry and the scenario files define them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demos } from '../../../src/components/demo-list';
import { loadScenario } from '../../../src/scenario/load';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe('README.md', () => {
  it('names every demo of the registry', () => {
    for (const demo of demos) expect(readme).toContain(`\`${demo.id}\``);
  });

  it('names every parameter of every tool demo, with its range or its options', () => {
    for (const demo of demos) {
      if (demo.kind !== 'tool') continue;
      for (const p of demo.parameters) {
        if (p.kind === 'number') expect(readme).toContain(`\`${p.name}\` (${p.min}–${p.max}`);
        else if (p.kind === 'flag') expect(readme).toContain(`\`${p.name}=1\``);
        else for (const o of p.options) expect(readme).toContain(`\`${o.value}\``);
      }
    }
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
