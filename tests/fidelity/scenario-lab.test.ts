// The lab's template is a scenario like any other: every claim holds on PostgreSQL 18, and
// PGlite shows the same. The check before sharing plays every run on PGlite and names a
// step it refuses by the refusal's kind, a claim that fails, and a wait nothing ends.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dryRun } from '../../src/components/scenario-lab/dry-run';
import { readScenarioSource } from '../../src/components/scenario-source';
import type { Scenario } from '../../src/scenario/schema';
import { bothEngines } from '../support/both-engines';
import { goesOnSource } from '../support/custom-scenarios';
import { comparable, failedClaims, playRun } from '../support/scenario-runs';

const templateText = readFileSync(
  path.join(import.meta.dirname, '../../src/components/scenario-lab/template.yaml'),
  'utf8',
);

function scenarioOf(text: string, id: string): Scenario {
  const read = readScenarioSource(text, id);
  if (!read.ok) throw new Error(read.problems.map((p) => p.message).join('; '));
  return read.scenario;
}

const template = scenarioOf(templateText, 'lab-template');

/** Two sessions; alice, parked once bob commits, is asked to go on: the browser refuses. */
const goesOn = scenarioOf(goesOnSource, 'lab-goes-on');

/** Bob waits for Alice, who never ends her transaction. */
const stuck = scenarioOf(
  `title: A wait nothing ends
summary: Bob waits for Alice.
lesson: Someone must end the transaction.
sessions:
  - name: alice
  - name: bob
setup: CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1);
teardown: DROP TABLE t;
steps:
  - session: alice
    sql: BEGIN; UPDATE t SET id = 2;
    say: Alice writes and keeps her transaction open.
  - session: bob
    sql: UPDATE t SET id = 3;
    say: Bob waits for her.
`,
  'lab-stuck',
);

describe('the scenario lab', () => {
  const engines = bothEngines();

  it('has a template whose every claim holds on PostgreSQL 18, as PGlite shows it', async () => {
    const selection = { choices: {}, parameters: {} };
    const onServer = await playRun(engines.server.engine, template, selection);
    expect(failedClaims(onServer)).toEqual([]);
    const onPglite = await playRun(engines.pglite, template, selection);
    expect(comparable(onPglite)).toEqual(comparable(onServer));
  });

  it('checks the template as truthful in the browser', async () => {
    const results = await dryRun(engines.pglite, template);
    expect(results.map((r) => r.outcome)).toEqual([{ kind: 'truthful' }]);
  });

  it('names the step the browser refuses by its kind, and a claim that does not hold', async () => {
    const seen: string[] = [];
    const results = await dryRun(engines.pglite, goesOn, {
      onProgress: (p) => seen.push(`${p.run}/${p.runs}`),
    });
    expect(results.map((r) => r.label)).toEqual(['alice-reads=no', 'alice-reads=yes']);
    expect(results[0]!.outcome).toEqual({
      kind: 'claims',
      failed: [{ step: 2, says: 'Bob adds row 6 (wrong on purpose)', seen: expect.any(String) }],
    });
    expect(results[1]!.outcome).toMatchObject({
      kind: 'refused',
      step: 3,
      session: 'alice',
      refusal: 'parked-goes-on',
    });
    expect(seen).toContain('2/2');
  });

  it('calls a run stuck when a step still waits once every step was sent', async () => {
    const results = await dryRun(engines.pglite, stuck, { stuckMs: 1500 });
    expect(results[0]!.outcome).toEqual({ kind: 'stuck', steps: [2] });
  });

  it('stops when asked, and leaves the engine as it found it', async () => {
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const results = await dryRun(engines.pglite, stuck, {
      stuckMs: 60_000,
      stopped,
      onProgress: (p) => {
        if (p.step === 1) setTimeout(stop, 200);
      },
    });
    expect(results[0]!.outcome).toEqual({ kind: 'stopped' });
    const session = await engines.pglite.openSession();
    const { results: rows } = await session.query(
      "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'scenario_lab%'",
    );
    await session.close();
    expect(rows[0]!.rows).toEqual([['0']]);
  });
});
