// A teacher's scenario as text: read as YAML, checked by the scenario schema (the same one
// the built-in scenarios pass), and by the limits of a scenario that travels in a link.
// Nothing here throws: every problem is data with a kind and, where it can be told, the
// line it is on, in plain words.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { everyChoice } from '../scenario/plan';
import {
  choiceSchema,
  claimSchema,
  optionSchema,
  parameterSchema,
  scenarioSchema,
  sessionSchema,
  stepSchema,
  type Scenario,
} from '../scenario/schema';

/** What is wrong with the text, as data: its kind, its line (from 1) when known, words. */
export interface SourceProblem {
  kind: 'empty' | 'too-large' | 'yaml' | 'not-fields' | 'unknown-field' | 'schema' | 'limit';
  line: number | null;
  message: string;
}

export type SourceReading =
  { ok: true; scenario: Scenario } | { ok: false; problems: SourceProblem[] };

/** What a scenario from a link may hold at most, so that checking and playing it stay short. */
export const customLimits = {
  /** Characters of YAML. */
  sourceChars: 64 * 1024,
  sessions: 12,
  steps: 80,
  /** Combinations of the choices' options: the check in the browser plays each one. */
  runs: 12,
};

/** Reads `text` as a scenario with id `id`; the problems, or the scenario. */
export function readScenarioSource(text: string, id: string): SourceReading {
  if (text.trim() === '')
    return fail({ kind: 'empty', line: null, message: 'The scenario is empty.' });
  if (text.length > customLimits.sourceChars)
    return fail({
      kind: 'too-large',
      line: null,
      message: `The scenario has ${text.length} characters; at most ${customLimits.sourceChars} are read.`,
    });
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineAt = (offset: number) => lines.linePos(offset).line;
  if (doc.errors.length)
    return fail(
      ...doc.errors.map((e) => ({
        kind: 'yaml' as const,
        line: lineAt(e.pos[0]),
        message: yamlWords(e.code, e.message),
      })),
    );
  const value: unknown = doc.toJS({ maxAliasCount: 50 });
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail({
      kind: 'not-fields',
      line: 1,
      message:
        'A scenario is a set of fields (title:, summary:, sessions:, steps:, …), one a line.',
    });
  const locate = (path: PropertyKey[]) => nodeLine(doc, path, lineAt);
  const unknown = unknownFields(value, locate);
  const parsed = scenarioSchema.safeParse(value);
  if (!parsed.success || unknown.length)
    return fail(
      ...unknown,
      ...(parsed.success ? [] : parsed.error.issues).map((issue) => ({
        kind: 'schema' as const,
        line: locate(issue.path),
        message: `${where(issue.path)}${issueWords(issue, valueAt(value, issue.path) === undefined)}`,
      })),
    );
  const scenario: Scenario = { ...parsed.data, id };
  const limits = limitProblems(scenario, locate);
  return limits.length ? fail(...limits) : { ok: true, scenario };
}

function fail(...problems: SourceProblem[]): SourceReading {
  return { ok: false, problems };
}

/**
 * The line of what `path` names: the field's name for a field (a list's items start on
 * the lines after it), an item's first line for an item; else the nearest one above it.
 */
function nodeLine(doc: Document, path: PropertyKey[], lineAt: (o: number) => number): number {
  for (let n = path.length; n > 0; n--) {
    const parent =
      n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1) as (string | number)[], true);
    const last = path[n - 1];
    const at = isMap(parent)
      ? parent.items.find((pair) => isScalar(pair.key) && pair.key.value === last)?.key
      : isSeq(parent) && typeof last === 'number'
        ? parent.items[last]
        : undefined;
    const range = (at as { range?: [number, number, number] } | undefined)?.range;
    if (range) return lineAt(range[0]);
  }
  return 1;
}

/** `step 3, claim 1, rows: `: where in the scenario an issue is, counted from 1. */
function where(path: PropertyKey[]): string {
  if (path.length === 0) return '';
  const counted: Record<string, string> = {
    sessions: 'session',
    steps: 'step',
    claims: 'claim',
    choices: 'choice',
    options: 'option',
    parameters: 'parameter',
    setup: 'setup block',
    teardown: 'teardown block',
    quotes: 'quotation',
    boxes: 'box',
    marks: 'mark',
    asks: 'question',
  };
  const parts: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const key = String(path[i]);
    const next = path[i + 1];
    if (typeof next === 'number' && counted[key]) {
      parts.push(`${counted[key]} ${next + 1}`);
      i++;
    } else parts.push(key);
  }
  return `${parts.join(', ')}: `;
}

const typeWords: Record<string, string> = {
  string: 'text',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list (lines that start with “- ”)',
  object: 'a set of fields',
  record: 'a set of fields',
  int: 'a whole number',
};

/** What `value` holds at `path`, if anything. */
function valueAt(value: unknown, path: PropertyKey[]): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** A zod issue in plain words; `missing` when nothing is written where it points. */
function issueWords(issue: z.core.$ZodIssue, missing: boolean): string {
  switch (issue.code) {
    case 'invalid_type':
      return missing ? 'is missing' : `should be ${typeWords[issue.expected] ?? issue.expected}`;
    case 'too_small':
      if (issue.origin === 'string') return 'is empty';
      if (issue.origin === 'array') return `needs at least ${String(issue.minimum)}`;
      return `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'array') return `may have at most ${String(issue.maximum)}`;
      return `must be at most ${String(issue.maximum)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_union': {
      const expected = issue.errors.flatMap((e) =>
        e.flatMap((i) => (i.code === 'invalid_type' ? [i.expected] : [])),
      );
      if (missing) return 'is missing';
      if (expected.length === issue.errors.length)
        return `should be ${[...new Set(expected)].map((t) => typeWords[t] ?? t).join(' or ')}`;
      return 'does not have any of the shapes this field takes (see src/scenario/schema.ts)';
    }
    default:
      return issue.message;
  }
}

/** YAML's complaint in plain words, for the complaints teachers meet most. */
function yamlWords(code: string, message: string): string {
  const words: Record<string, string> = {
    TAB_AS_INDENT: 'a tab is used to indent; YAML indents with spaces',
    DUPLICATE_KEY: 'this field is given twice',
    MISSING_CHAR: `something is not closed: ${message.toLowerCase()}`,
    BAD_INDENT: 'this line is not indented as the lines around it need',
    MULTILINE_IMPLICIT_KEY:
      'a field name runs over more than one line (is a “:” missing, or indented too far?)',
    BLOCK_AS_IMPLICIT_KEY:
      'a field is indented under a field that already has a value on its own line',
  };
  return `YAML: ${words[code] ?? message}`;
}

/** The fields each part of a scenario takes, for naming a field that is not one of them. */
const shapes: { path: (string | '*')[]; keys: string[] }[] = [
  { path: [], keys: Object.keys(scenarioSchema.shape) },
  { path: ['sessions', '*'], keys: Object.keys(sessionSchema.shape) },
  { path: ['steps', '*'], keys: Object.keys(stepSchema.shape) },
  { path: ['steps', '*', 'claims', '*'], keys: Object.keys(claimSchema.shape) },
  { path: ['choices', '*'], keys: Object.keys(choiceSchema.shape) },
  { path: ['choices', '*', 'options', '*'], keys: Object.keys(optionSchema.shape) },
  { path: ['parameters', '*'], keys: Object.keys(parameterSchema.shape) },
];

/** Fields the schema does not know, which it would drop without a word. */
function unknownFields(value: object, locate: (p: PropertyKey[]) => number): SourceProblem[] {
  const problems: SourceProblem[] = [];
  const visit = (node: unknown, path: (string | number)[]) => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, [...path, i]));
      return;
    }
    const shape = shapes.find(
      (s) =>
        s.path.length === path.length &&
        s.path.every((p, i) => (p === '*' ? typeof path[i] === 'number' : p === path[i])),
    );
    for (const [key, child] of Object.entries(node)) {
      if (shape && !shape.keys.includes(key)) {
        const near = shape.keys.find((k) => distance(k, key) <= 2);
        problems.push({
          kind: 'unknown-field',
          line: locate([...path, key]),
          message: `${where(path)}“${key}” is not a field here${near ? ` (did you mean “${near}”?)` : ''}`,
        });
      }
      if (shapes.some((s) => s.path.length > path.length)) visit(child, [...path, key]);
    }
  };
  visit(value, []);
  return problems;
}

/** The edit distance between two short words. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const kept = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = kept;
    }
  }
  return row[b.length]!;
}

/** What a scenario from a link may not do, though a built-in one may. */
function limitProblems(scenario: Scenario, locate: (p: PropertyKey[]) => number): SourceProblem[] {
  const problems: SourceProblem[] = [];
  if (scenario.sessions.length > customLimits.sessions)
    problems.push({
      kind: 'limit',
      line: locate(['sessions']),
      message: `sessions: ${scenario.sessions.length}, at most ${customLimits.sessions} in a scenario of your own`,
    });
  if (scenario.steps.length > customLimits.steps)
    problems.push({
      kind: 'limit',
      line: locate(['steps']),
      message: `steps: ${scenario.steps.length}, at most ${customLimits.steps} in a scenario of your own`,
    });
  const runs = everyChoice(scenario).length;
  if (runs > customLimits.runs)
    problems.push({
      kind: 'limit',
      line: locate(['choices']),
      message: `choices: their options make ${runs} different runs, at most ${customLimits.runs}, since the check in the browser plays each one`,
    });
  scenario.choices.forEach((choice, c) =>
    choice.options.forEach((option, o) => {
      if (option.recorded)
        problems.push({
          kind: 'limit',
          line: locate(['choices', c, 'options', o, 'recorded']),
          message: `${where(['choices', c, 'options', o])}“recorded” needs a recording of PostgreSQL 18 made by the site’s tests, which a scenario of your own cannot have`,
        });
    }),
  );
  return problems;
}

/**
 * The id a scenario of your own plays under, from its text: its tables' schema and its
 * stored answers are its own, apart from another scenario's on the same page.
 */
export function scenarioIdFor(text: string): string {
  // FNV-1a, 32 bits: short, and the same text always gives the same id.
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `custom-${hash.toString(16).padStart(8, '0')}`;
}
