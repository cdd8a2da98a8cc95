// The URL parameters a demo reads, as data: each one's name, kind, range or options and
// default. A demo's parser reads its address through `readParams` (or, for the slots
// demo, from the same ranges), and the teacher's docs, the embed builder's form and the
// tests are generated from the same definitions, so none of them can drift from what the
// demo does. Nothing here throws: a value that cannot be used is kept as a problem of a
// known kind, the default (or the nearest allowed value) stands, and only
// `describeParamProblem` turns it into words.

/** A number in a range; `whole` numbers only when `step` is a whole number. */
export interface NumberParam {
  kind: 'number';
  name: string;
  min: number;
  max: number;
  /** The form's step; values need not be multiples of it. */
  step: number;
  whole: boolean;
  default: number;
  /** What it sets, in a few words. */
  says: string;
  unit?: string;
}

/** One of a few words. */
export interface ChoiceParam {
  kind: 'choice';
  name: string;
  options: readonly { value: string; label: string }[];
  default: string;
  says: string;
}

/** On (`1`) or off (`0`). */
export interface FlagParam {
  kind: 'flag';
  name: string;
  default: boolean;
  says: string;
}

export type ParamSpec = NumberParam | ChoiceParam | FlagParam;
export type ParamValue = number | string | boolean;
export type ParamValues = Record<string, ParamValue>;

/** A parameter of the address that could not be used as given. */
export type ParamProblem =
  | { kind: 'unknown-parameter'; name: string; value: string }
  | { kind: 'not-a-number'; name: string; value: string; used: number }
  | { kind: 'out-of-range'; name: string; value: string; used: number; min: number; max: number }
  | { kind: 'not-whole'; name: string; value: string; used: number }
  | { kind: 'not-an-option'; name: string; value: string; used: string; options: string[] }
  | { kind: 'not-a-flag'; name: string; value: string; used: boolean };

const yes = ['1', 'true', ''];
const no = ['0', 'false'];

/** Every parameter's default. */
export function defaultValues(specs: readonly ParamSpec[]): ParamValues {
  return Object.fromEntries(specs.map((s) => [s.name, s.default]));
}

/**
 * Reads `specs` from a query string. Names in `ignore` belong to another reader (e.g. the
 * parameters every embed takes); any other name no spec has is an `unknown-parameter`.
 * A number out of range is brought into it; any other bad value leaves the default.
 */
export function readParams(
  specs: readonly ParamSpec[],
  search: string,
  ignore: readonly string[] = [],
): { values: ParamValues; problems: ParamProblem[] } {
  const params = new URLSearchParams(search);
  const values = defaultValues(specs);
  const problems: ParamProblem[] = [];
  for (const [name, text] of params) {
    const spec = specs.find((s) => s.name === name);
    if (!spec) {
      if (!ignore.includes(name)) problems.push({ kind: 'unknown-parameter', name, value: text });
      continue;
    }
    const read = readValue(spec, text);
    if (read.problem) problems.push(read.problem);
    values[name] = read.value;
  }
  return { values, problems };
}

/** One value of `spec`, as the address gives it. */
export function readValue(
  spec: ParamSpec,
  text: string,
): { value: ParamValue; problem: ParamProblem | null } {
  const { name } = spec;
  switch (spec.kind) {
    case 'number': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n))
        return {
          value: spec.default,
          problem: { kind: 'not-a-number', name, value: text, used: spec.default },
        };
      const used = clampNumber(spec, n);
      if (n < spec.min || n > spec.max)
        return {
          value: used,
          problem: {
            kind: 'out-of-range',
            name,
            value: text,
            used,
            min: spec.min,
            max: spec.max,
          },
        };
      if (used !== n)
        return { value: used, problem: { kind: 'not-whole', name, value: text, used } };
      return { value: n, problem: null };
    }
    case 'choice': {
      if (spec.options.some((o) => o.value === text)) return { value: text, problem: null };
      return {
        value: spec.default,
        problem: {
          kind: 'not-an-option',
          name,
          value: text,
          used: spec.default,
          options: spec.options.map((o) => o.value),
        },
      };
    }
    case 'flag': {
      if (yes.includes(text)) return { value: true, problem: null };
      if (no.includes(text)) return { value: false, problem: null };
      return {
        value: spec.default,
        problem: { kind: 'not-a-flag', name, value: text, used: spec.default },
      };
    }
  }
}

/** `n` within the spec's range, rounded when it must be whole. */
export function clampNumber(spec: NumberParam, n: number): number {
  const v = Math.min(spec.max, Math.max(spec.min, n));
  return spec.whole ? Math.round(v) : v;
}

/** The sentence a demo shows for `problem`: what was asked, and what is used instead. */
export function describeParamProblem(problem: ParamProblem): string {
  const { name, value } = problem;
  switch (problem.kind) {
    case 'unknown-parameter':
      return `unknown parameter ${name} ignored`;
    case 'not-a-number':
      return `${name} must be a number, not “${value}”; using ${problem.used}`;
    case 'out-of-range':
      return `${name}=${value} is outside ${problem.min}–${problem.max}; using ${problem.used}`;
    case 'not-whole':
      return `${name} must be a whole number, not ${value}; using ${problem.used}`;
    case 'not-an-option':
      return `${name}=${value} is not one of ${problem.options.join(', ')}; using ${problem.used}`;
    case 'not-a-flag':
      return `${name} must be 1 or 0, not “${value}”; ${problem.used ? 'on' : 'off'}`;
  }
}

/** The values a spec takes, as the docs print them: `0–40`, `hold | claim-close`, `1 | 0`. */
export function valuesText(spec: ParamSpec): string {
  switch (spec.kind) {
    case 'number':
      return `${spec.min}–${spec.max}${spec.unit ? ` ${spec.unit}` : ''}`;
    case 'choice':
      return spec.options.map((o) => o.value).join(' | ');
    case 'flag':
      return '1 | 0';
  }
}

/** A value as the address writes it (`1` for a flag that is on). */
export function valueText(value: ParamValue): string {
  return typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
}

/**
 * The query string (without `?`) for `values`: every value that differs from its
 * default, in the specs' order.
 */
export function paramsSearch(specs: readonly ParamSpec[], values: ParamValues): string {
  const params = new URLSearchParams();
  for (const spec of specs) {
    const value = values[spec.name];
    if (value === undefined || value === spec.default) continue;
    params.set(spec.name, valueText(value));
  }
  return params.toString();
}
