// A teacher's scenario text: what the lab says is wrong with it, with the line, in words,
// and that every built-in scenario reads as it is (but for what only a built-in may do).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readScenarioSource, type SourceProblem } from '../../../src/components/scenario-source';
import { scenarioDir, scenarioIds } from '../../../src/scenario/load';

const template = readFileSync(
  path.join(import.meta.dirname, '../../../src/components/scenario-lab/template.yaml'),
  'utf8',
);

function problems(text: string): SourceProblem[] {
  const read = readScenarioSource(text, 'custom');
  if (read.ok) throw new Error('the scenario was read');
  return read.problems;
}

/** The template with `from` replaced by `to` (which must be there). */
function edit(from: string, to: string): string {
  expect(template).toContain(from);
  return template.replace(from, to);
}

const lineOf = (text: string, needle: string) =>
  text.slice(0, text.indexOf(needle)).split('\n').length;

describe('reading a scenario of your own', () => {
  it('reads the template', () => {
    const read = readScenarioSource(template, 'custom-1');
    expect(read.ok).toBe(true);
    if (read.ok)
      expect(read.scenario).toMatchObject({ id: 'custom-1', title: 'Two sessions, one row' });
  });

  it.each(scenarioIds())('reads the built-in %s, or names only its recorded options', (id) => {
    const text = readFileSync(path.join(scenarioDir, `${id}.yaml`), 'utf8');
    const read = readScenarioSource(text, id);
    if (read.ok) return;
    for (const p of read.problems) {
      expect(p.kind).toBe('limit');
      expect(p.message).toMatch(/“recorded”/);
      expect(text.split('\n')[p.line! - 1]).toMatch(/recorded: true/);
    }
  });

  it('names a step’s unknown session, on its line', () => {
    const text = edit('  - session: bob\n    sql: UPDATE', '  - session: bobby\n    sql: UPDATE');
    expect(problems(text)).toEqual([
      {
        kind: 'schema',
        line: lineOf(text, 'bobby'),
        message: 'step 2, session: no session is named bobby',
      },
    ]);
  });

  it('names a field it does not know, with the one meant', () => {
    const text = edit(
      '  - session: alice\n    sql: COMMIT;',
      '  - sesion: alice\n    sql: COMMIT;',
    );
    const found = problems(text);
    expect(found).toContainEqual({
      kind: 'unknown-field',
      line: lineOf(text, 'sesion'),
      message: 'step 4: “sesion” is not a field here (did you mean “session”?)',
    });
    expect(found).toContainEqual(
      expect.objectContaining({ message: 'step 4, session: is missing' }),
    );
  });

  it('says a missing field is missing, and a wrong type in words', () => {
    expect(problems(template.replace(/^lesson:[\s\S]*?^sessions:/m, 'sessions:'))).toEqual([
      { kind: 'schema', line: 1, message: 'lesson: is missing' },
    ]);
    const text = edit('    chain: true', '    chain: yes');
    expect(problems(text)).toEqual([
      {
        kind: 'schema',
        line: lineOf(text, 'chain: yes'),
        message: 'step 3, chain: should be true or false',
      },
    ]);
  });

  it('gives YAML’s own complaint a line and plain words', () => {
    const text = edit('  - name: bob\n', '  - name: bob\n\t  role: x\n');
    const [first] = problems(text);
    expect(first).toMatchObject({ kind: 'yaml', line: lineOf(text, '\t') });
    expect(first!.message).toMatch(/^YAML: a tab is used to indent/);
    expect(problems('title: a\ntitle: b\n')[0]).toMatchObject({ kind: 'yaml', line: 2 });
  });

  it('refuses an empty text, a list, and a flood', () => {
    expect(problems('  \n')[0]!.kind).toBe('empty');
    expect(problems('- a\n- b\n')[0]!.kind).toBe('not-fields');
    expect(problems(`# ${'x'.repeat(70_000)}\n`)[0]!.kind).toBe('too-large');
  });

  it('holds a scenario of your own to a number of runs the browser can check', () => {
    const options = (n: number) =>
      Array.from({ length: n }, (_, i) => `      - { value: o${i}, label: O${i} }`).join('\n');
    const text = template.replace(
      'steps:\n',
      `choices:\n  - id: a\n    label: A\n    options:\n${options(4)}\n  - id: b\n    label: B\n    options:\n${options(4)}\nsteps:\n`,
    );
    expect(problems(text)).toEqual([
      expect.objectContaining({ kind: 'limit', line: lineOf(text, 'choices:') }),
    ]);
  });
});
