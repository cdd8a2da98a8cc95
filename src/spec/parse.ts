// The isolation tester's `.spec` format, read the way PostgreSQL reads it: the tokens of
// src/test/isolation/specscanner.l and the grammar of specparse.y, plus the checks and the
// permutation order of isolationtester.c (check_testspec, run_all_permutations).

/** One `step name { sql }` of a session. */
export interface Step {
  name: string;
  /** The text between the braces, with spaces and tabs (not newlines) trimmed at both ends. */
  sql: string;
  /** Index of the owning session in `TestSpec.sessions`. */
  session: number;
  /**
   * Bound parameters: the step goes over the extended protocol. A `.spec` file never sets
   * them (the tester sends the simple protocol); scenarios may.
   */
  params?: unknown[];
}

/** One `session name` block. */
export interface SpecSession {
  name: string;
  setupSql: string | null;
  teardownSql: string | null;
  steps: Step[];
}

/**
 * A blocking marker on a permutation step: `(*)` waits once, `(other)` until step `other`
 * has completed, `(other notices N)` until `other`'s session has sent N more notices.
 */
export type Blocker =
  | { kind: 'once' }
  | { kind: 'step'; step: string }
  | { kind: 'notices'; step: string; count: number };

/** A step named in a `permutation` line, with its blocking markers. */
export interface PermutationStep {
  name: string;
  blockers: Blocker[];
}

/** A parsed spec file. */
export interface TestSpec {
  setupSqls: string[];
  teardownSql: string | null;
  /**
   * Teardown blocks after `teardownSql`, each its own query string. A `.spec` file has at
   * most one teardown; a scenario may need more (DROP DATABASE runs outside a block).
   */
  teardownSqls?: string[];
  sessions: SpecSession[];
  /** Empty when the spec names none: then every interleaving runs. */
  permutations: PermutationStep[][];
}

/** The spec cannot be read or is inconsistent; the message is the tester's own wording. */
export class SpecError extends Error {
  readonly line?: number;
  constructor(message: string, line?: number) {
    super(message);
    this.name = 'SpecError';
    this.line = line;
  }
}

type Token =
  | { type: 'keyword'; word: Keyword; line: number }
  | { type: 'identifier'; text: string; line: number }
  | { type: 'sqlblock'; text: string; line: number }
  | { type: 'integer'; value: number; line: number }
  | { type: 'punct'; char: '(' | ')' | ',' | '*'; line: number }
  | { type: 'eof'; line: number };

const keywords = ['notices', 'permutation', 'session', 'setup', 'step', 'teardown'] as const;
type Keyword = (typeof keywords)[number];

// specscanner.l: {space} is [ \t\r\f], so a newline is never trimmed from a SQL block.
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\f';
// ident_start [A-Za-z\200-\377_], ident_cont adds digits and `$` (bytes >= 0x80 count).
const isIdentStart = (c: string) => /[A-Za-z_]/.test(c) || c.charCodeAt(0) >= 0x80;
const isIdentCont = (c: string) => isIdentStart(c) || /[0-9$]/.test(c);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (isSpace(c)) {
      i++;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
    } else if (isIdentStart(c)) {
      let j = i + 1;
      while (j < text.length && isIdentCont(text[j]!)) j++;
      const word = text.slice(i, j);
      // A keyword rule comes before {identifier} and matches as long, so it wins.
      if ((keywords as readonly string[]).includes(word))
        tokens.push({ type: 'keyword', word: word as Keyword, line });
      else tokens.push({ type: 'identifier', text: word, line });
      i = j;
    } else if (c === '"') {
      let name = '';
      i++;
      for (;;) {
        if (i >= text.length)
          throw new SpecError(`unterminated quoted identifier at line ${line}`, line);
        const q = text[i]!;
        if (q === '\n')
          throw new SpecError(`unexpected newline in quoted identifier at line ${line}`, line);
        if (q === '"') {
          if (text[i + 1] === '"') {
            name += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        name += q;
        i++;
      }
      tokens.push({ type: 'identifier', text: name, line });
    } else if (c === '{') {
      i++;
      while (i < text.length && isSpace(text[i]!)) i++;
      let body = '';
      for (;;) {
        if (i >= text.length) throw new SpecError(`unterminated sql block at line ${line}`, line);
        const s = text[i]!;
        if (s === '}') {
          i++;
          break;
        }
        if (isSpace(s)) {
          // `{space}*"}"` ends the block: trailing spaces before the brace are dropped.
          let j = i;
          while (j < text.length && isSpace(text[j]!)) j++;
          if (text[j] === '}') {
            i = j + 1;
            break;
          }
        }
        if (s === '\n') line++;
        body += s;
        i++;
      }
      tokens.push({ type: 'sqlblock', text: body, line });
    } else if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < text.length && /[0-9]/.test(text[j]!)) j++;
      tokens.push({ type: 'integer', value: Number(text.slice(i, j)), line });
      i = j;
    } else if (c === '(' || c === ')' || c === ',' || c === '*') {
      tokens.push({ type: 'punct', char: c, line });
      i++;
    } else {
      throw new SpecError(`syntax error at line ${line}: unexpected character "${c}"`, line);
    }
  }
  tokens.push({ type: 'eof', line });
  return tokens;
}

function describe(t: Token): string {
  switch (t.type) {
    case 'keyword':
      return `"${t.word}"`;
    case 'identifier':
      return `name "${t.text}"`;
    case 'sqlblock':
      return 'a { sql } block';
    case 'integer':
      return `number ${t.value}`;
    case 'punct':
      return `"${t.char}"`;
    case 'eof':
      return 'end of file';
  }
}

/** Parses the text of a `.spec` file; throws `SpecError` naming the line of bad input. */
export function parseSpec(text: string): TestSpec {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos]!;
  const isKeyword = (word: Keyword) => {
    const t = peek();
    return t.type === 'keyword' && t.word === word;
  };
  const fail = (expected: string): never => {
    const t = peek();
    throw new SpecError(
      `syntax error at line ${t.line}: expected ${expected}, found ${describe(t)}`,
      t.line,
    );
  };
  const keyword = (word: Keyword) => {
    if (!isKeyword(word)) fail(`"${word}"`);
    pos++;
  };
  const identifier = (what: string): string => {
    const t = peek();
    if (t.type !== 'identifier') return fail(what);
    pos++;
    return t.text;
  };
  const sqlblock = (): string => {
    const t = peek();
    if (t.type !== 'sqlblock') return fail('a { sql } block');
    pos++;
    return t.text;
  };
  const punct = (char: '(' | ')' | ',' | '*') => {
    const t = peek();
    if (t.type === 'punct' && t.char === char) {
      pos++;
      return true;
    }
    return false;
  };

  // TestSpec: setup_list opt_teardown session_list opt_permutation_list
  const setupSqls: string[] = [];
  while (isKeyword('setup')) {
    pos++;
    setupSqls.push(sqlblock());
  }
  let teardownSql: string | null = null;
  if (isKeyword('teardown')) {
    pos++;
    teardownSql = sqlblock();
  }
  const sessions: SpecSession[] = [];
  do {
    keyword('session');
    const name = identifier('a session name');
    let setupSql: string | null = null;
    if (isKeyword('setup')) {
      pos++;
      setupSql = sqlblock();
    }
    const steps: Step[] = [];
    do {
      keyword('step');
      const stepName = identifier('a step name');
      steps.push({ name: stepName, sql: sqlblock(), session: sessions.length });
    } while (isKeyword('step'));
    let sessionTeardown: string | null = null;
    if (isKeyword('teardown')) {
      pos++;
      sessionTeardown = sqlblock();
    }
    sessions.push({ name, setupSql, teardownSql: sessionTeardown, steps });
  } while (isKeyword('session'));

  const permutations: PermutationStep[][] = [];
  while (isKeyword('permutation')) {
    pos++;
    const list: PermutationStep[] = [];
    do {
      const name = identifier('a step name');
      const blockers: Blocker[] = [];
      if (punct('(')) {
        do {
          if (punct('*')) blockers.push({ kind: 'once' });
          else {
            const step = identifier('a step name or "*"');
            if (isKeyword('notices')) {
              pos++;
              const n = peek();
              if (n.type !== 'integer') fail('a number');
              else {
                pos++;
                blockers.push({ kind: 'notices', step, count: n.value });
              }
            } else blockers.push({ kind: 'step', step });
          }
        } while (punct(','));
        if (!punct(')')) fail('"," or ")"');
      }
      list.push({ name, blockers });
    } while (peek().type === 'identifier');
    permutations.push(list);
  }
  if (peek().type !== 'eof')
    fail(permutations.length ? '"permutation"' : '"session" or "permutation"');

  return { setupSqls, teardownSql, sessions, permutations };
}

/**
 * The tester's post-parse checks (check_testspec): throws `SpecError` for a duplicate or
 * undefined step name or a bad blocker; returns its warnings ("unused step name: x").
 */
export function checkSpec(spec: TestSpec): string[] {
  const steps = new Map<string, Step>();
  // The tester sorts names with strcmp: compare by code unit, not by locale.
  const all = spec.sessions.flatMap((s) => s.steps);
  const sorted = [...all].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const step of sorted) {
    if (steps.has(step.name)) throw new SpecError(`duplicate step name: ${step.name}`);
    steps.set(step.name, step);
  }
  const used = new Set<string>();
  for (const permutation of spec.permutations) {
    for (const pstep of permutation) {
      if (!steps.has(pstep.name))
        throw new SpecError(`undefined step "${pstep.name}" specified in permutation`);
      used.add(pstep.name);
    }
    for (const pstep of permutation) {
      for (const blocker of pstep.blockers) {
        if (blocker.kind === 'once') continue;
        if (!permutation.some((p) => p.name === blocker.step))
          throw new SpecError(
            `undefined blocking step "${blocker.step}" referenced in permutation step "${pstep.name}"`,
          );
        if (steps.get(blocker.step)!.session === steps.get(pstep.name)!.session)
          throw new SpecError(`permutation step "${pstep.name}" cannot block on its own session`);
      }
    }
  }
  if (spec.permutations.length === 0) return [];
  return sorted.filter((s) => !used.has(s.name)).map((s) => `unused step name: ${s.name}`);
}

/**
 * Every interleaving of the sessions' steps that keeps each session's order, in the
 * tester's order (run_all_permutations_recurse: the lowest session's next step first).
 */
export function allPermutations(spec: TestSpec): PermutationStep[][] {
  const out: PermutationStep[][] = [];
  const piles = spec.sessions.map(() => 0);
  const current: PermutationStep[] = [];
  const recurse = () => {
    let found = false;
    spec.sessions.forEach((session, i) => {
      if (piles[i]! < session.steps.length) {
        current.push({ name: session.steps[piles[i]!]!.name, blockers: [] });
        piles[i]!++;
        recurse();
        piles[i]!--;
        current.pop();
        found = true;
      }
    });
    if (!found) out.push([...current]);
  };
  recurse();
  return out;
}
