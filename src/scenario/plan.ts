// A scenario with the reader's choices made: the steps that run, in order, with their SQL
// filled in, and the same steps as an isolation spec, so that the spec runner (which
// knows how PostgreSQL's isolation tester tells a waiting step from a slow one) runs them.
import type { TestSpec } from '../spec/parse';
import type { Claim, Scenario, ScenarioSession } from './schema';

/** The reader's choices (choice id → option value) and parameters (id → number). */
export interface Selection {
  choices: Record<string, string>;
  parameters: Record<string, number>;
}

/** One step as it runs: its place, its session, its SQL with every `{{key}}` filled in. */
export interface PlannedStep {
  /** Its place among the steps that run, from 0. */
  index: number;
  /** Its place in the scenario file's `steps`. */
  source: number;
  /** Its name in the spec the runner is given (`step1`, `step2`, …). */
  name: string;
  /** Its `id` in the scenario file, if it has one. */
  id?: string;
  /** The index of its session in `scenario.sessions`. */
  session: number;
  /** Its SQL; empty for a modelled step. */
  sql: string;
  /** The line of the scenario's code it is, if any. */
  line?: number;
  /** A modelled process acts instead of the session sending SQL. */
  model?: { by: string; disconnect: boolean; reconnect: boolean };
  say: string;
  /** Milliseconds to wait before sending it. */
  afterMs: number;
  /** Sent right after the step before it, in the same Next. */
  chain: boolean;
  /** Bound parameters: sent over the extended protocol. */
  params?: (string | number | null)[];
  keep: Record<string, string | { column: string } | { notice: string }>;
  /** The claims that belong to this selection. */
  claims: Claim[];
}

/** The steps one press of Next sends from `position`: that step and those chained to it. */
export function pressFrom(steps: PlannedStep[], position: number): PlannedStep[] {
  let end = position + 1;
  while (steps[end]?.chain) end++;
  return steps.slice(position, end);
}

/** A scenario cannot be planned for this selection; the message says why. */
export class PlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanError';
  }
}

/** The selection every choice and parameter starts at. */
export function defaultSelection(scenario: Scenario): Selection {
  return {
    choices: Object.fromEntries(
      scenario.choices.map((c) => [c.id, c.default ?? c.options[0]!.value]),
    ),
    parameters: Object.fromEntries(scenario.parameters.map((p) => [p.id, p.default])),
  };
}

/** Every combination of the choices' options, for tests that cover them all. */
export function everyChoice(scenario: Scenario): Record<string, string>[] {
  return scenario.choices.reduce<Record<string, string>[]>(
    (combos, choice) =>
      combos.flatMap((combo) => choice.options.map((o) => ({ ...combo, [choice.id]: o.value }))),
    [{}],
  );
}

/** Whether a `when` condition holds for these choices. */
export function holds(
  when: Record<string, string | string[]> | undefined,
  choices: Record<string, string>,
): boolean {
  return Object.entries(when ?? {}).every(([id, values]) =>
    [values].flat().includes(choices[id] ?? ''),
  );
}

/** The option chosen for each choice. */
export function chosenOptions(scenario: Scenario, selection: Selection) {
  return scenario.choices.map((choice) => {
    const value = selection.choices[choice.id] ?? choice.default ?? choice.options[0]!.value;
    const option = choice.options.find((o) => o.value === value);
    if (!option) throw new PlanError(`${choice.label}: there is no option “${value}”.`);
    return { choice, option };
  });
}

/** Whether this selection is played from PostgreSQL 18's recorded output. */
export function isRecorded(scenario: Scenario, selection: Selection): boolean {
  return chosenOptions(scenario, selection).some(({ option }) => option.recorded);
}

/** A recording's key: the choices that decide the steps, in the file's order. */
export function selectionKey(scenario: Scenario, selection: Selection): string {
  return chosenOptions(scenario, selection)
    .map(({ choice, option }) => `${choice.id}=${option.value}`)
    .join('&');
}

/** Fills `{{key}}` in scenario text from the chosen options and the parameters. */
function filler(scenario: Scenario, selection: Selection): (text: string) => string {
  const values: Record<string, string> = {};
  for (const { choice, option } of chosenOptions(scenario, selection))
    Object.assign(values, choice.set, option.set);
  for (const p of scenario.parameters) {
    const value = selection.parameters[p.id] ?? p.default;
    if (!Number.isFinite(value) || value < p.min || value > p.max)
      throw new PlanError(`${p.label}: ${value} is outside ${p.min}–${p.max}.`);
    values[p.id] = String(value);
  }
  // A value may itself hold `{{key}}` (an option's SQL naming another choice's clause).
  const fill = (text: string, depth = 0): string => {
    if (depth > 4) throw new PlanError(`{{…}} nested too deep in: ${text.slice(0, 60)}`);
    const filled = text.replace(/\{\{\s*([\w-]+)\s*\}\}/g, (_m, key: string) => {
      const value = values[key];
      if (value === undefined) throw new PlanError(`nothing sets {{${key}}}`);
      return value;
    });
    return filled === text ? text : fill(filled, depth + 1);
  };
  return fill;
}

/** The steps that run for `selection`, in order, with their text filled in. */
export function planSteps(scenario: Scenario, selection: Selection): PlannedStep[] {
  const fill = filler(scenario, selection);
  const sessions = scenario.sessions.map((s) => s.name);
  return scenario.steps
    .flatMap((step, source) => {
      if (!holds(step.when, selection.choices)) return [];
      const after = step.after === undefined ? 0 : Number(fill(String(step.after)));
      if (!Number.isFinite(after) || after < 0)
        throw new PlanError(`step ${source + 1}: bad delay`);
      return [
        {
          index: 0,
          source,
          name: '',
          session: sessions.indexOf(step.session),
          ...(step.id ? { id: step.id } : {}),
          sql: fill(step.sql ?? '').trim(),
          ...(step.model ? { model: { ...step.model, by: fill(step.model.by) } } : {}),
          ...(step.line ? { line: step.line } : {}),
          say: fill(step.say).trim(),
          afterMs: after * 1000,
          chain: step.chain,
          ...(step.params ? { params: step.params } : {}),
          keep: step.keep ?? {},
          claims: step.claims
            .filter((c) => holds(c.when, selection.choices))
            .map((c) => ({
              ...c,
              says: fill(c.says),
              ...(c.lasts ? { lasts: { at_least: fill(String(c.lasts.at_least)) } } : {}),
            })),
        },
      ];
    })
    .map((step, index) => ({ ...step, index, name: `step${index + 1}` }));
}

/** The countdown `selection` shows: from which step, for how long, until what. */
export function planCountdown(
  scenario: Scenario,
  selection: Selection,
  steps: PlannedStep[],
): { step: number; ms: number; says: string } | null {
  const countdown = scenario.countdown;
  const from = countdown && steps.find((s) => s.id === countdown.from);
  if (!countdown || !from) return null;
  const fill = filler(scenario, selection);
  return {
    step: from.index,
    ms: Number(fill(String(countdown.seconds))) * 1000,
    says: fill(countdown.says),
  };
}

/** The scenario's sessions as they connect for `selection`. */
export function planSessions(scenario: Scenario, selection: Selection): ScenarioSession[] {
  const fill = filler(scenario, selection);
  return scenario.sessions.map((s) => ({
    ...s,
    ...(s.database ? { database: fill(s.database) } : {}),
  }));
}

/** The databases this selection needs besides `postgres`. */
export function planDatabases(scenario: Scenario, selection: Selection): string[] {
  return scenario.databases.filter((d) => holds(d.when, selection.choices)).map((d) => d.name);
}

/** The setup or teardown blocks that belong to `selection`, filled in. */
function blocks(list: Scenario['setup'], scenario: Scenario, selection: Selection): string[] {
  const fill = filler(scenario, selection);
  return [list]
    .flat()
    .filter((b) => typeof b === 'string' || holds(b.when, selection.choices))
    .map((b) => fill(typeof b === 'string' ? b : b.sql));
}

/** The planned steps as an isolation spec with one permutation: the steps in order. */
export function toSpec(scenario: Scenario, selection: Selection, steps: PlannedStep[]): TestSpec {
  return {
    setupSqls: blocks(scenario.setup, scenario, selection),
    teardownSql: null,
    teardownSqls: blocks(scenario.teardown, scenario, selection),
    sessions: scenario.sessions.map((s, i) => ({
      name: s.name,
      setupSql: null,
      teardownSql: null,
      steps: steps
        .filter((step) => step.session === i && !step.model)
        .map((step) => ({
          name: step.name,
          sql: step.sql,
          session: i,
          ...(step.params ? { params: step.params } : {}),
        })),
    })),
    permutations: [
      steps.filter((step) => !step.model).map((step) => ({ name: step.name, blockers: [] })),
    ],
  };
}
