// The plan of a scenario for the reader's choices, the claims judged on a step's output,
// and a recording played back, on a small scenario written here.
import { describe, expect, it } from 'vitest';
import { checkClaim, type StepOutput } from '../../../src/scenario/claims';
import {
  defaultSelection,
  planCountdown,
  planSteps,
  PlanError,
  type Selection,
} from '../../../src/scenario/plan';
import type { StepReport } from '../../../src/scenario/play';
import { RecordedPlay } from '../../../src/scenario/recorded-play';
import { scenarioSchema, type Scenario } from '../../../src/scenario/schema';

const scenario: Scenario = {
  id: 'tiny',
  ...scenarioSchema.parse({
    title: 'Tiny',
    summary: 'A scenario for the tests.',
    lesson: 'Plans follow choices.',
    sessions: [{ name: 'a' }, { name: 'b' }],
    setup: 'CREATE TABLE t (id int)',
    teardown: 'DROP TABLE t',
    choices: [
      {
        id: 'mode',
        label: 'Mode',
        options: [
          { value: 'quick', label: 'Quick', set: { lock: 'NOWAIT' } },
          { value: 'slow', label: 'Slow', set: { lock: '' } },
        ],
      },
    ],
    parameters: [
      { id: 'hold', label: 'Hold', unit: 's', default: 2, min: 1, max: 5, step: 1, test: 1 },
    ],
    countdown: { from: 'start', seconds: '{{hold}}', says: 'b gives up' },
    steps: [
      { id: 'start', session: 'a', sql: 'BEGIN', say: 'a begins.' },
      {
        session: 'b',
        sql: 'SELECT * FROM t FOR UPDATE {{lock}}',
        say: 'b locks, {{hold}} s.',
        claims: [
          { says: 'b waits {{hold}} s', when: { mode: 'slow' }, lasts: { at_least: '{{hold}}' } },
          { says: 'b does not wait', when: { mode: 'quick' }, waits: false },
        ],
      },
      { session: 'a', sql: 'COMMIT', say: 'a commits.', after: '{{hold}}', chain: true },
      { session: 'b', when: { mode: 'slow' }, sql: 'SELECT 1', say: 'b again.' },
    ],
  }),
};

const slow: Selection = { ...defaultSelection(scenario), choices: { mode: 'slow' } };

describe('planSteps', () => {
  it('keeps the steps and claims of the chosen options, with {{…}} filled in', () => {
    const quick = planSteps(scenario, defaultSelection(scenario));
    expect(quick.map((s) => s.sql)).toEqual([
      'BEGIN',
      'SELECT * FROM t FOR UPDATE NOWAIT',
      'COMMIT',
    ]);
    expect(quick[1]!.claims.map((c) => c.says)).toEqual(['b does not wait']);

    const steps = planSteps(scenario, slow);
    expect(steps).toHaveLength(4);
    expect(steps[1]!.say).toBe('b locks, 2 s.');
    expect(steps[1]!.claims).toEqual([
      expect.objectContaining({ says: 'b waits 2 s', lasts: { at_least: '2' } }),
    ]);
    expect(steps[2]!.afterMs).toBe(2000);
    expect(steps.map((s) => s.chain)).toEqual([false, false, true, false]);
  });

  it('refuses a parameter outside its range in words', () => {
    const wrong = { ...slow, parameters: { hold: 9 } };
    expect(() => planSteps(scenario, wrong)).toThrow(PlanError);
    expect(() => planSteps(scenario, wrong)).toThrow('Hold: 9 is outside 1–5.');
  });
});

describe('planCountdown', () => {
  it('starts at the step named by id and lasts the filled-in seconds', () => {
    const steps = planSteps(scenario, slow);
    expect(planCountdown(scenario, slow, steps)).toEqual({ step: 0, ms: 2000, says: 'b gives up' });
    const noCountdown: Scenario = { ...scenario, countdown: undefined };
    expect(planCountdown(noCountdown, slow, steps)).toBeNull();
  });
});

function output(partial: Partial<StepOutput>): StepOutput {
  return { waited: false, results: [], notices: [], elapsedMs: 1, ...partial };
}

describe('checkClaim: lasts', () => {
  const claim = planSteps(scenario, slow)[1]!.claims[0]!;
  it('holds when the step answered no sooner than the seconds it names', () => {
    expect(checkClaim(claim, output({ waited: true, elapsedMs: 2150 }), {})).toEqual({
      says: 'b waits 2 s',
      held: true,
      seen: 'it answered after 2.15 s',
    });
  });
  it('fails when it answered sooner', () => {
    expect(checkClaim(claim, output({ elapsedMs: 12 }), {}).held).toBe(false);
  });
});

describe('RecordedPlay', () => {
  const steps = planSteps(scenario, slow);
  const answered = (step: number, sent: number) => ({
    sent,
    step,
    status: 'completed' as const,
    output: output({}),
    claims: [],
  });
  // As recordRun writes it: step 2 waits when sent, and answers once step 3 is sent.
  const events = [
    answered(0, 1),
    { sent: 2, step: 1, status: 'waiting' as const },
    answered(2, 3),
    answered(1, 3),
    answered(3, 4),
  ];

  it('sends a step and the steps chained to it in one next, each after its delay', async () => {
    const reports: string[] = [];
    const slept: string[] = [];
    const play = new RecordedPlay(scenario, slow, events, {
      onReport: (r: StepReport) => reports.push(`${r.step.index + 1} ${r.status}`),
      sleep: async (ms, before) => void slept.push(`${ms} before ${before.index + 1}`),
    });
    expect(play.steps).toEqual(steps);
    await play.next();
    expect([play.position, reports]).toEqual([1, ['1 completed']]);
    await play.next();
    expect(play.position).toBe(3);
    expect(reports).toEqual(['1 completed', '2 waiting', '3 completed', '2 completed']);
    expect(slept).toEqual(['2000 before 3']);
    await play.next();
    expect([play.position, play.done]).toEqual([4, true]);
  });
});

describe('modelled steps', () => {
  const base = {
    title: 'Modelled',
    summary: 'A process the page models acts between two statements.',
    lesson: 'Modelled steps send nothing.',
    sessions: [{ name: 'api' }, { name: 'you' }],
    setup: 'CREATE TABLE t (id int)',
    teardown: 'DROP TABLE t',
  };
  const steps = [
    { session: 'api', sql: 'INSERT INTO t VALUES (1)', say: 'The API writes.' },
    { session: 'api', model: { by: 'the OOM killer', disconnect: true }, say: 'It dies.' },
    { session: 'you', sql: 'SELECT * FROM t', say: 'The row is there.' },
  ];

  it('plans them in order, and leaves them out of the spec the runner is given', async () => {
    const { toSpec } = await import('../../../src/scenario/plan');
    const s: Scenario = {
      id: 'modelled',
      ...scenarioSchema.parse({ ...base, modelled: 'The API process is modelled.', steps }),
    };
    const planned = planSteps(s, defaultSelection(s));
    expect(planned.map((p) => p.model?.by ?? p.sql)).toEqual([
      'INSERT INTO t VALUES (1)',
      'the OOM killer',
      'SELECT * FROM t',
    ]);
    const spec = toSpec(s, defaultSelection(s), planned);
    expect(spec.permutations[0]!.map((p) => p.name)).toEqual(['step1', 'step3']);
    expect(spec.sessions[0]!.steps.map((st) => st.name)).toEqual(['step1']);
  });

  it('asks for the sentence that says what is modelled, and for sql or model, not both', () => {
    expect(scenarioSchema.safeParse({ ...base, steps }).success).toBe(false);
    const both = [{ session: 'api', sql: 'SELECT 1', model: { by: 'x' }, say: 'Both.' }];
    expect(scenarioSchema.safeParse({ ...base, modelled: 'Modelled.', steps: both }).success).toBe(
      false,
    );
    const claimed = [
      { session: 'api', model: { by: 'x' }, say: 'x', claims: [{ says: 'ok', ok: true }] },
    ];
    expect(
      scenarioSchema.safeParse({ ...base, modelled: 'Modelled.', steps: claimed }).success,
    ).toBe(false);
  });
});

describe('a differs claim', () => {
  const output: StepOutput = {
    waited: false,
    elapsedMs: 3,
    results: [
      {
        command: 'UPDATE',
        rowCount: 1,
        fields: [{ name: 'pid', dataTypeID: 23 }],
        rows: [['4242']],
      },
    ],
    notices: [],
  };
  const claim = { says: 'a new backend', differs: { column: 'pid', from: '{pid}' } };

  it('holds when the column is not the value kept before', () => {
    expect(checkClaim(claim, output, { pid: '4141' })).toEqual({
      says: 'a new backend',
      held: true,
      seen: 'another value',
    });
  });

  it('fails on the same value, and on a missing column', () => {
    expect(checkClaim(claim, output, { pid: '4242' }).held).toBe(false);
    const other = { ...claim, differs: { column: 'nope', from: '1' } };
    expect(checkClaim(other, output, {}).seen).toBe('no column nope');
  });
});
