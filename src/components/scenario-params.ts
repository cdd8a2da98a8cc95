// A scenario demo's URL: the reader's choices (`?lock=wait`), its numbers (`?hold=5`), the
// step to start at (`?step=3`) and `autoplay=1`, defined from the scenario file itself
// (its choices and parameters) so the parser, the teacher's docs and the embed builder
// read one list. Nothing here throws: a value the demo cannot use is named in a sentence
// and the default stands.
import { defaultSelection, type Selection } from '../scenario/plan';
import type { Scenario } from '../scenario/schema';
import { embedParamNames } from './embed-params';
import {
  describeParamProblem,
  readParams,
  readValue,
  type ParamProblem,
  type ParamSpec,
} from './url-params';

/** What a scenario URL asks for. */
export interface ScenarioParams {
  selection: Selection;
  /** How many steps to play before handing over to the reader (0: none). */
  step: number;
  autoplay: boolean;
  /** The parameters that could not be used as given, by kind. */
  reasons: ParamProblem[];
  /** One plain sentence per parameter that was ignored or changed. */
  problems: string[];
}

/** The scenario's choices and numbers as URL parameters, in the file's order. */
export function scenarioChoiceParameters(scenario: Scenario): ParamSpec[] {
  const defaults = defaultSelection(scenario);
  return [
    ...scenario.choices.map((c): ParamSpec => ({
      kind: 'choice',
      name: c.id,
      options: c.options.map((o) => ({ value: o.value, label: o.label })),
      default: defaults.choices[c.id]!,
      says: c.label,
    })),
    ...scenario.parameters.map((p): ParamSpec => ({
      kind: 'number',
      name: p.id,
      min: p.min,
      max: p.max,
      step: p.step,
      // Any number in range plays; the step is the form's.
      whole: false,
      default: p.default,
      says: p.label,
      ...(p.unit ? { unit: p.unit } : {}),
    })),
  ];
}

/** `step=N`: its range is the number of steps the chosen run has. */
export function stepParameter(steps: number): ParamSpec {
  return {
    kind: 'number',
    name: 'step',
    min: 0,
    max: steps,
    step: 1,
    whole: true,
    default: 0,
    says: 'open at this step: the steps before it are played at once (Back replays)',
  };
}

export const autoplayParameter: ParamSpec = {
  kind: 'flag',
  name: 'autoplay',
  default: false,
  says: 'play the steps one after another by itself',
};

/**
 * Every URL parameter of `scenario`: its choices and numbers, then `step` (up to `steps`,
 * the most any run of it has) and `autoplay`.
 */
export function scenarioParameters(scenario: Scenario, steps: number): ParamSpec[] {
  return [...scenarioChoiceParameters(scenario), stepParameter(steps), autoplayParameter];
}

/** Reads `search` for `scenario`; `stepsFor` is how many steps a selection has. */
export function readScenarioParams(
  search: string,
  scenario: Scenario,
  stepsFor: (selection: Selection) => number,
): ScenarioParams {
  const specs = [...scenarioChoiceParameters(scenario), autoplayParameter];
  const { values, problems } = readParams(specs, search, [...embedParamNames, 'step']);
  const selection = defaultSelection(scenario);
  for (const c of scenario.choices) selection.choices[c.id] = String(values[c.id]);
  for (const p of scenario.parameters) selection.parameters[p.id] = Number(values[p.id]);
  let step = 0;
  const stepText = new URLSearchParams(search).get('step');
  if (stepText !== null) {
    const read = readValue(stepParameter(stepsFor(selection)), stepText);
    // A step that is not a whole number starts at the beginning, not at a rounded step.
    if (read.problem?.kind === 'not-whole') problems.push({ ...read.problem, used: 0 });
    else {
      if (read.problem) problems.push(read.problem);
      step = Number(read.value);
    }
  }
  return {
    selection,
    step,
    autoplay: values.autoplay === true,
    reasons: problems,
    problems: problems.map(describeParamProblem),
  };
}

/**
 * The query string for `selection` at `step`: what "Copy link to this step" gives, and
 * what the address follows. The parameters every embed takes (theme, load, present) are
 * kept from `current`, so a reload or a copied link comes back in the same mode.
 */
export function scenarioSearch(
  scenario: Scenario,
  selection: Selection,
  step: number,
  current = '',
): string {
  const defaults = defaultSelection(scenario);
  const params = new URLSearchParams();
  for (const c of scenario.choices)
    if (selection.choices[c.id] !== defaults.choices[c.id])
      params.set(c.id, selection.choices[c.id]!);
  for (const p of scenario.parameters)
    if (selection.parameters[p.id] !== defaults.parameters[p.id])
      params.set(p.id, String(selection.parameters[p.id]));
  if (step > 0) params.set('step', String(step));
  for (const [name, value] of new URLSearchParams(current))
    if (embedParamNames.includes(name)) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}
