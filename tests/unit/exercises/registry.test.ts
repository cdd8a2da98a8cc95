// The exercise registry as the docs and pages read it: unique ids, each exercise's parts
// where they belong, and the README naming every exercise.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demos } from '../../../src/components/demo-list';
import { exerciseById, exerciseDemoId, exercises } from '../../../src/exercises';
import { slotsRanges } from '../../../src/sim/slots';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe('the exercise registry', () => {
  it('has at least four exercises with unique ids, each with hints and checks', () => {
    expect(exercises.length).toBeGreaterThanOrEqual(4);
    expect(new Set(exercises.map((e) => e.id)).size).toBe(exercises.length);
    for (const e of exercises) {
      expect(e.id).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(e.hints.length).toBeGreaterThan(0);
      expect(e.checks.length).toBeGreaterThan(0);
      expect(exerciseById(e.id)).toBe(e);
      expect(exerciseDemoId(e.id)).toBe(`exercise/${e.id}`);
    }
  });

  it('names a demo of the registry as what each exercise practises', () => {
    for (const e of exercises) expect(demos.map((d) => d.id)).toContain(e.practises);
  });

  it('gives every console tab and solution step a session of the exercise', () => {
    for (const e of exercises) {
      if (e.kind !== 'sessions') continue;
      const names = e.scenario.sessions.map((s) => s.name);
      for (const t of e.tabs) expect(names).toContain(t.session);
      for (const s of e.solution.steps) expect(e.tabs.map((t) => t.session)).toContain(s.session);
      expect(names).toContain(e.checkSession);
      expect(e.tabs.map((t) => t.session)).not.toContain(e.checkSession);
    }
  });

  it('starts every slots exercise, and its solution, inside the demo’s ranges', () => {
    for (const e of exercises) {
      if (e.kind !== 'slots') continue;
      for (const config of [e.start, { ...e.start, ...e.solution.settings }])
        for (const [key, value] of Object.entries(config)) {
          const range = slotsRanges[key as keyof typeof slotsRanges];
          expect(value).toBeGreaterThanOrEqual(range.min);
          expect(value).toBeLessThanOrEqual(range.max);
        }
      for (const key of Object.keys(e.solution.settings)) expect(e.fixed).not.toContain(key);
    }
  });

  it('is named in the README, exercise by exercise', () => {
    expect(readme).toContain('/embed/exercise/<id>/');
    for (const e of exercises) expect(readme).toContain(`\`${e.id}\``);
  });
});
