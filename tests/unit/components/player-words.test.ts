// The player's words: its status line, the first line of a step's SQL, what a Next sends.
import { describe, expect, it } from 'vitest';
import {
  chainedAfter,
  describeBusy,
  emptyRun,
  firstLine,
  sends,
  type RunView,
} from '../../../src/components/player/words';
import { adoptedSql } from '../../../src/components/Console';
import { sentence } from '../../../src/components/console-text';
import type { PlannedStep } from '../../../src/scenario/plan';
import { scenarioSchema, type Scenario } from '../../../src/scenario/schema';

const scenario: Scenario = {
  id: 'words',
  ...scenarioSchema.parse({
    title: 'Words',
    summary: 'For the tests.',
    lesson: 'Words.',
    sessions: [{ name: 'worker-a' }, { name: 'worker-b' }],
    setup: 'SELECT 1',
    teardown: 'SELECT 1',
    steps: [{ session: 'worker-a', sql: 'SELECT 1', say: 'One.' }],
  }),
};

const step = (index: number, session: number, chain = false): PlannedStep => ({
  index,
  source: index,
  name: `step${index + 1}`,
  session,
  sql: 'SELECT 1',
  say: '',
  afterMs: 0,
  chain,
  keep: {},
  claims: [],
});

describe('describeBusy', () => {
  const steps = [step(0, 0), step(1, 1), step(2, 0, true)];
  const run: RunView = { ...emptyRun, steps, reports: [undefined, undefined, undefined] };

  it('counts down to a delayed step, naming it and its session', () => {
    const busy = { kind: 'delay' as const, until: 2500, ms: 3000, before: steps[2]! };
    expect(describeBusy(busy, 1000, run, scenario)).toBe(
      'Step 3, by worker-a, goes in 1.5 s. Stop holds it here.',
    );
  });

  it('names the sessions still waiting once a step is sent', () => {
    const waiting: RunView = {
      ...run,
      position: 2,
      reports: [undefined, { step: steps[1]!, status: 'waiting' }, undefined],
    };
    expect(describeBusy(null, 0, waiting, scenario)).toBe(
      'Step 2 of 3 sent; worker-b (step 2) is waiting.',
    );
    expect(describeBusy(null, 0, { ...run, position: 1 }, scenario)).toBe(
      'Step 1 of 3 sent and answered.',
    );
    expect(describeBusy(null, 0, { ...run, position: 3, done: true }, scenario)).toBe(
      'All 3 steps have run.',
    );
  });
});

describe('firstLine', () => {
  it('says when more lines follow, and cuts a long line', () => {
    expect(firstLine('SELECT 1')).toBe('SELECT 1');
    expect(firstLine('SELECT a,\n  b FROM t')).toBe('SELECT a, …');
    expect(firstLine(`SELECT ${'x'.repeat(80)}`)).toHaveLength(70);
  });
});

describe('chainedAfter', () => {
  it('lists the steps the same Next sends after a step', () => {
    const steps = [step(0, 0), step(1, 1, true), step(2, 0, true), step(3, 1)];
    expect(chainedAfter(steps, steps[0]!)).toBe(', and the 2 steps chained to it (step 2, step 3)');
    expect(chainedAfter(steps, steps[2]!)).toBe('');
  });
});

describe('sentence', () => {
  it('ends a message with a full stop once', () => {
    expect(sentence('no such thing')).toBe('no such thing.');
    expect(sentence('done. ')).toBe('done.');
    expect(sentence('really?')).toBe('really?');
  });
});

describe('adoptedSql', () => {
  it('suggests what fits the state the demo left the session in', () => {
    expect(adoptedSql('idle in transaction', false)).toMatch(/COMMIT or ROLLBACK ends it/);
    expect(adoptedSql('idle in transaction (aborted)', false)).toMatch(/ROLLBACK;$/);
    expect(adoptedSql('active', true)).toMatch(/still waiting/);
    expect(adoptedSql('idle', false)).toMatch(/no transaction open/);
  });
});

describe('sends', () => {
  it('agrees with the session the scenario calls you', () => {
    expect(sends('worker-a')).toBe('worker-a sends');
    expect(sends('you')).toBe('you send');
  });
});
