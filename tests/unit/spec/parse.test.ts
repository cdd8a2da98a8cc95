import { describe, expect, it } from 'vitest';
import { allPermutations, checkSpec, parseSpec, SpecError } from '../../../src/spec/parse';

const two = `
setup { CREATE TABLE t (id int); }
setup { INSERT INTO t VALUES (1); }
teardown { DROP TABLE t; }

session s1
setup { BEGIN; }
step s1a { SELECT 1; }
step s1b { COMMIT; }
teardown { SELECT 'bye'; }

session "s 2"
step "s2 a" { SELECT 2; }
`;

describe('parseSpec', () => {
  it('reads several top-level setups, a teardown, sessions with setup and teardown', () => {
    const spec = parseSpec(two);
    expect(spec.setupSqls).toEqual(['CREATE TABLE t (id int);', 'INSERT INTO t VALUES (1);']);
    expect(spec.teardownSql).toBe('DROP TABLE t;');
    expect(spec.sessions.map((s) => s.name)).toEqual(['s1', 's 2']);
    expect(spec.sessions[0]).toMatchObject({ setupSql: 'BEGIN;', teardownSql: "SELECT 'bye';" });
    expect(spec.sessions[1]).toMatchObject({ setupSql: null, teardownSql: null });
    expect(spec.sessions[1]!.steps).toEqual([{ name: 's2 a', sql: 'SELECT 2;', session: 1 }]);
    expect(spec.permutations).toEqual([]);
  });

  it('trims spaces and tabs but keeps newlines at the ends of a SQL block', () => {
    const spec = parseSpec('session s\nstep a {\n\tSELECT 1;\n}\nstep b {  \t SELECT 2; \t }');
    expect(spec.sessions[0]!.steps.map((s) => s.sql)).toEqual(['\n\tSELECT 1;\n', 'SELECT 2;']);
  });

  it('keeps braces-free text verbatim, including # inside SQL', () => {
    const spec = parseSpec("session s step a { SELECT '#x'; -- c\n }");
    expect(spec.sessions[0]!.steps[0]!.sql).toBe("SELECT '#x'; -- c\n");
  });

  it('ignores # comments and reads doubled quotes in a quoted name', () => {
    const spec = parseSpec('# head\nsession "a""b" # tail\nstep "x" { SELECT 1; } # more');
    expect(spec.sessions[0]!.name).toBe('a"b');
  });

  it('takes a keyword in quotes as a name and identifiers with digits and $', () => {
    const spec = parseSpec('session "setup" step s$1_x { SELECT 1; } permutation s$1_x');
    expect(spec.sessions[0]!.name).toBe('setup');
    expect(spec.permutations).toEqual([[{ name: 's$1_x', blockers: [] }]]);
  });

  it('reads permutations with every blocker form', () => {
    const spec = parseSpec(`
session s1 step a { SELECT 1; } step b { SELECT 2; }
session s2 step c { SELECT 3; }
permutation a c(a) b(*)
permutation "a"(c notices 2, *) c(a, b) b
`);
    expect(spec.permutations).toEqual([
      [
        { name: 'a', blockers: [] },
        { name: 'c', blockers: [{ kind: 'step', step: 'a' }] },
        { name: 'b', blockers: [{ kind: 'once' }] },
      ],
      [
        {
          name: 'a',
          blockers: [{ kind: 'notices', step: 'c', count: 2 }, { kind: 'once' }],
        },
        {
          name: 'c',
          blockers: [
            { kind: 'step', step: 'a' },
            { kind: 'step', step: 'b' },
          ],
        },
        { name: 'b', blockers: [] },
      ],
    ]);
  });

  it('names the line of a syntax error', () => {
    const bad = 'session s1\nstep a { SELECT 1; }\n\nsetup { SELECT 2; }\n';
    expect(() => parseSpec(bad)).toThrow(SpecError);
    expect(() => parseSpec(bad)).toThrow(/^syntax error at line 4/);
    try {
      parseSpec(bad);
    } catch (error) {
      expect((error as SpecError).line).toBe(4);
    }
  });

  it('rejects a spec without sessions, a session without steps and stray characters', () => {
    expect(() => parseSpec('setup { SELECT 1; }')).toThrow(/syntax error at line 1/);
    expect(() => parseSpec('session s1\nteardown { SELECT 1; }')).toThrow(/at line 2/);
    expect(() => parseSpec('session s1\nstep a { SELECT 1; }\n;')).toThrow(
      'syntax error at line 3: unexpected character ";"',
    );
    expect(() => parseSpec('session s1 step a { SELECT 1; }\npermutation a(')).toThrow(/at line 2/);
  });

  it('reports unterminated blocks and names', () => {
    expect(() => parseSpec('session s1\nstep a { SELECT 1;\n')).toThrow(
      'unterminated sql block at line 3',
    );
    expect(() => parseSpec('session "s1\n')).toThrow(
      'unexpected newline in quoted identifier at line 1',
    );
  });
});

describe('checkSpec', () => {
  const base = 'session s1 step a { A } step b { B }\nsession s2 step c { C }\n';

  it('warns about steps no permutation uses, in name order', () => {
    expect(checkSpec(parseSpec(`${base}permutation c`))).toEqual([
      'unused step name: a',
      'unused step name: b',
    ]);
    expect(checkSpec(parseSpec(base))).toEqual([]);
  });

  it('rejects undefined and duplicate steps and bad blockers with the tester words', () => {
    expect(() => checkSpec(parseSpec(`${base}permutation x`))).toThrow(
      'undefined step "x" specified in permutation',
    );
    expect(() => checkSpec(parseSpec('session s1 step a { A }\nsession s2 step a { B }'))).toThrow(
      'duplicate step name: a',
    );
    expect(() => checkSpec(parseSpec(`${base}permutation a b(a) c`))).toThrow(
      'permutation step "b" cannot block on its own session',
    );
    expect(() => checkSpec(parseSpec(`${base}permutation a(c)`))).toThrow(
      'undefined blocking step "c" referenced in permutation step "a"',
    );
  });
});

describe('allPermutations', () => {
  it('lists every interleaving in the tester order', () => {
    const spec = parseSpec(
      'session s1 step a { A } step b { B }\nsession s2 step c { C } step d { D }',
    );
    const names = allPermutations(spec).map((p) => p.map((s) => s.name).join(' '));
    expect(names).toEqual(['a b c d', 'a c b d', 'a c d b', 'c a b d', 'c a d b', 'c d a b']);
  });
});
