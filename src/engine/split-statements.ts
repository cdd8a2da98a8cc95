import { byText } from './by-text';

/** One statement of a script, with where it starts in the script (0-based characters). */
export interface ScriptStatement {
  sql: string;
  offset: number;
}

/**
 * Splits a script at top-level semicolons the way psql does before sending each
 * statement on its own, so `...; VACUUM` works (a multi-statement query string runs in
 * one implicit transaction, where VACUUM is refused). Knows quotes, quoted identifiers,
 * dollar quotes, E'' escapes and both comment forms; keeps comments with the statement.
 */
export const splitStatements: (script: string) => readonly ScriptStatement[] = byText(split);

function split(script: string): readonly ScriptStatement[] {
  const statements: ScriptStatement[] = [];
  let start = 0;
  const push = (end: number) => {
    const text = script.slice(start, end);
    if (/[^\s;]/.test(stripComments(text))) {
      const lead = text.length - text.trimStart().length;
      statements.push({ sql: text.trim(), offset: start + lead });
    }
  };
  // Parentheses count, so a semicolon inside CREATE RULE ( ...; ... ) stays put.
  scan(script, (i, depth) => {
    if (script[i] === ';' && depth === 0) {
      push(i + 1);
      start = i + 1;
    }
  });
  push(script.length);
  return Object.freeze(statements.map((statement) => Object.freeze(statement)));
}

/**
 * `sql` with everything that is not at its top level blanked out (quotes, quoted
 * identifiers, comments, and what parentheses enclose, the parentheses kept), same
 * length, so that a keyword found in it is one of the statement's own clauses.
 */
export function topLevel(sql: string): string {
  const kept = new Array<string>(sql.length).fill(' ');
  scan(sql, (i, depth) => {
    if (depth === 0) kept[i] = sql[i]!;
  });
  return kept.join('');
}

/**
 * Calls `visit` for each character of `script` outside quotes, quoted identifiers,
 * dollar quotes and comments, with how many parentheses enclose it (a parenthesis
 * itself counts as outside the pair it opens or closes).
 */
function scan(script: string, visit: (i: number, depth: number) => void): void {
  let i = 0;
  let depth = 0;
  const n = script.length;
  while (i < n) {
    const c = script[i]!;
    const next = script[i + 1];
    if (c === '-' && next === '-') {
      const end = script.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
    } else if (c === '/' && next === '*') {
      let nest = 1;
      i += 2;
      while (i < n && nest > 0) {
        if (script[i] === '/' && script[i + 1] === '*') {
          nest++;
          i += 2;
        } else if (script[i] === '*' && script[i + 1] === '/') {
          nest--;
          i += 2;
        } else i++;
      }
    } else if (c === "'" || c === '"') {
      // E'...' strings take backslash escapes; a bare E (not the end of a word) marks one.
      const escapes = c === "'" && /(^|\W)[eE]$/.test(script.slice(Math.max(0, i - 2), i));
      i++;
      while (i < n) {
        if (escapes && script[i] === '\\') i += 2;
        else if (script[i] === c && script[i + 1] === c) i += 2;
        else if (script[i] === c) break;
        else i++;
      }
      i++;
    } else if (c === '$') {
      const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(script.slice(i));
      const prev = script[i - 1];
      if (tag && !(prev && /[A-Za-z0-9_]/.test(prev))) {
        const end = script.indexOf(tag[0], i + tag[0].length);
        i = end === -1 ? n : end + tag[0].length;
      } else {
        visit(i, depth);
        i++;
      }
    } else if (c === '(') {
      visit(i, depth);
      depth++;
      i++;
    } else if (c === ')') {
      depth = Math.max(0, depth - 1);
      visit(i, depth);
      i++;
    } else {
      visit(i, depth);
      i++;
    }
  }
}

/** A statement's first word, upper-cased, after any comments ('' when there is none). */
export function leadingKeyword(statement: string): string {
  return /^\s*([A-Za-z_]+)/.exec(stripComments(statement))?.[1]?.toUpperCase() ?? '';
}

function stripComments(text: string): string {
  return text.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
}

/** An identifier as SQL writes it: plain, or in double quotes (for building patterns). */
export const identifier = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)`;

/** `name`, written as `identifier` matches it, as PostgreSQL stores it: quoted as written, else folded to lower case. */
export function storedIdentifier(name: string): string {
  return name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name.toLowerCase();
}
