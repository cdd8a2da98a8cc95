// A scenario demo's URL: the reader's choices (`?lock=wait`), its numbers (`?hold=5`), the
// step to start at (`?step=3`) and `autoplay=1`. Nothing here throws: a value the demo
// cannot use is named in a sentence and the default stands.
import { defaultSelection, type Selection } from '../scenario/plan';
import type { Scenario } from '../scenario/schema';
import { embedParamNames } from './embed-params';

/** What a scenario URL asks for. */
export interface ScenarioParams {
  selection: Selection;
  /** How many steps to play before handing over to the reader (0: none). */
  step: number;
  autoplay: boolean;
  /** One plain sentence per parameter that was ignored or changed. */
  problems: string[];
}

/** Parameters every embed takes, read by embed-params.ts. */
const shared = new Set<string>(embedParamNames);

/** Reads `search` for `scenario`; `steps` is how many steps the default selection has. */
export function readScenarioParams(
  search: string,
  scenario: Scenario,
  stepsFor: (selection: Selection) => number,
): ScenarioParams {
  const params = new URLSearchParams(search);
  const selection = defaultSelection(scenario);
  const problems: string[] = [];
  let stepText: string | null = null;
  let autoplay = false;
  for (const [key, value] of params) {
    const choice = scenario.choices.find((c) => c.id === key);
    const parameter = scenario.parameters.find((p) => p.id === key);
    if (choice) {
      if (choice.options.some((o) => o.value === value)) selection.choices[key] = value;
      else
        problems.push(
          `${key}=${value} is not one of ${choice.options.map((o) => o.value).join(', ')}; ` +
            `using ${selection.choices[key]}`,
        );
    } else if (parameter) {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n)) {
        problems.push(`${key} must be a number, not “${value}”; using ${parameter.default}`);
      } else if (n < parameter.min || n > parameter.max) {
        const clamped = Math.min(parameter.max, Math.max(parameter.min, n));
        problems.push(
          `${key}=${value} is outside ${parameter.min}–${parameter.max}; using ${clamped}`,
        );
        selection.parameters[key] = clamped;
      } else selection.parameters[key] = n;
    } else if (key === 'step') stepText = value;
    else if (key === 'autoplay') {
      autoplay = ['1', 'true', ''].includes(value);
      if (!autoplay && !['0', 'false'].includes(value))
        problems.push(`autoplay must be 1 or 0, not “${value}”; not playing by itself`);
    } else if (!shared.has(key)) problems.push(`unknown parameter ${key} ignored`);
  }
  let step = 0;
  if (stepText !== null) {
    const total = stepsFor(selection);
    const n = Number(stepText);
    if (!Number.isInteger(n) || n < 0)
      problems.push(`step must be a whole number, not “${stepText}”; starting at the beginning`);
    else if (n > total) {
      problems.push(`step=${n}, but this run has ${total} steps; playing them all`);
      step = total;
    } else step = n;
  }
  return { selection, step, autoplay, problems };
}

/** The query string for `selection` at `step`: what "Copy link to this step" gives. */
export function scenarioSearch(scenario: Scenario, selection: Selection, step: number): string {
  const defaults = defaultSelection(scenario);
  const params = new URLSearchParams();
  for (const c of scenario.choices)
    if (selection.choices[c.id] !== defaults.choices[c.id])
      params.set(c.id, selection.choices[c.id]!);
  for (const p of scenario.parameters)
    if (selection.parameters[p.id] !== defaults.parameters[p.id])
      params.set(p.id, String(selection.parameters[p.id]));
  if (step > 0) params.set('step', String(step));
  const text = params.toString();
  return text ? `?${text}` : '';
}
