import { describe, expect, it } from 'vitest';
import {
  formatErrorPosition,
  formatNotice,
  formatResultSet,
  formatServerMessage,
} from '../../../src/spec/print';

const f = (...names: string[]) => names.map((name) => ({ name, dataTypeID: 25 }));

describe('formatResultSet', () => {
  it('right-aligns numeric columns and left-aligns text, with a rule and a row count', () => {
    expect(formatResultSet(f('id', 'data'), [['1', 'x']])).toBe(
      'id|data\n--+----\n 1|x   \n(1 row)\n\n',
    );
  });

  it('widens a column to its longest value and counts rows in the plural', () => {
    expect(
      formatResultSet(f('n', 's'), [
        ['10', 'ab'],
        ['-2.5e3', 'abcdef'],
      ]),
    ).toBe('     n|s     \n------+------\n    10|ab    \n-2.5e3|abcdef\n(2 rows)\n\n');
  });

  it('treats NULL and empty values as blank and lets them decide nothing', () => {
    expect(formatResultSet(f('pg_advisory_lock'), [['']])).toBe(
      'pg_advisory_lock\n----------------\n                \n(1 row)\n\n',
    );
    expect(formatResultSet(f('a', 'b'), [[null, '7']])).toBe('a|b\n-+-\n |7\n(1 row)\n\n');
  });

  it('makes a column text when a value starts with E or does not end in a digit', () => {
    expect(formatResultSet(f('x'), [['E5'], ['1']])).toBe('x \n--\nE5\n1 \n(2 rows)\n\n');
    expect(formatResultSet(f('x'), [['1.'], ['22']])).toBe('x \n--\n1.\n22\n(2 rows)\n\n');
    expect(formatResultSet(f('bool'), [['t']])).toBe('bool\n----\nt   \n(1 row)\n\n');
  });

  it('measures widths in bytes, as PQprint does', () => {
    expect(formatResultSet(f('w'), [['é']])).toBe('w \n--\né\n(1 row)\n\n');
  });

  it('prints zero rows and prints nothing for a result without columns', () => {
    expect(formatResultSet(f('id'), [])).toBe('id\n--\n(0 rows)\n\n');
    expect(formatResultSet([], [[], []])).toBe('');
  });
});

describe('formatServerMessage', () => {
  it('prints severity, message, detail and hint as libpq does', () => {
    expect(
      formatServerMessage({ severity: 'ERROR', message: 'boom', detail: 'd', hint: 'h' }),
    ).toBe('ERROR:  boom\nDETAIL:  d\nHINT:  h\n');
  });

  it('points at the error position under the statement line', () => {
    expect(
      formatServerMessage(
        { severity: 'ERROR', message: 'syntax error', position: 9 },
        'SELECT\n\tSELEC 1',
      ),
    ).toBe('ERROR:  syntax error\nLINE 2:  SELEC 1\n         ^\n');
    expect(formatServerMessage({ severity: 'ERROR', message: 'x', position: 3 })).toBe(
      'ERROR:  x at character 3\n',
    );
  });

  it('cuts a long line around the position', () => {
    const query = `SELECT ${'a, '.repeat(40)}zz FROM nowhere`;
    const text = formatErrorPosition(query, query.indexOf('zz') + 1);
    expect(text.split('\n')[0]).toMatch(/^LINE 1: \.\.\..*zz FROM no\.\.\.$/);
    const [line, caret] = text.split('\n');
    expect(line![caret!.indexOf('^')]).toBe('z');
  });
});

describe('formatNotice', () => {
  it('prefixes the session name', () => {
    expect(formatNotice('s1', { severity: 'NOTICE', code: '00000', message: 'hi' })).toBe(
      's1: NOTICE:  hi\n',
    );
  });
});
