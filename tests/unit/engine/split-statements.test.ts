import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../../src/engine/split-statements';

const sqls = (script: string) => splitStatements(script).map((s) => s.sql);

describe('splitStatements', () => {
  it('splits at top-level semicolons and keeps each statement with its offset', () => {
    const script = 'CREATE TABLE t (id int);\n  INSERT INTO t VALUES (1);\nVACUUM (VERBOSE) t';
    expect(splitStatements(script)).toEqual([
      { sql: 'CREATE TABLE t (id int);', offset: 0 },
      { sql: 'INSERT INTO t VALUES (1);', offset: 27 },
      { sql: 'VACUUM (VERBOSE) t', offset: 53 },
    ]);
  });

  it('leaves semicolons inside strings, identifiers, dollar quotes and comments alone', () => {
    expect(
      sqls(
        `SELECT 'a;b', "x;y", E'it\\'s;', $$c;d$$, $f$e;$$;f$f$; -- one; comment\nSELECT /* a; /* nested; */ b; */ 2`,
      ),
    ).toEqual([
      `SELECT 'a;b', "x;y", E'it\\'s;', $$c;d$$, $f$e;$$;f$f$;`,
      '-- one; comment\nSELECT /* a; /* nested; */ b; */ 2',
    ]);
  });

  it('drops empty statements and comment-only tails', () => {
    expect(sqls(';; SELECT 1 ;  -- done\n')).toEqual(['SELECT 1 ;']);
  });

  it('treats a doubled quote as part of the string', () => {
    expect(sqls("SELECT 'it''s; fine'; SELECT 2")).toEqual(["SELECT 'it''s; fine';", 'SELECT 2']);
  });
});
