import { describe, expect, it } from 'vitest';
import { blankStrings, mergeParts, statementNeeds } from '../../../src/engine/pglite/waits';
import { leadingKeyword, splitStatements, topLevel } from '../../../src/engine/split-statements';

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

describe('leadingKeyword', () => {
  it('reads the first word after any comments, upper-cased', () => {
    expect(leadingKeyword('lock table t')).toBe('LOCK');
    expect(leadingKeyword("-- claim\n/* first */ set lock_timeout = '1s'")).toBe('SET');
    expect(leadingKeyword('  -- only a comment')).toBe('');
  });
});

describe('topLevel', () => {
  it('blanks quotes, comments and what parentheses enclose, and keeps the length', () => {
    const sql = `MERGE INTO t USING (SELECT 1 ON x) s ON s.k = 'ON' -- ON\nWHEN MATCHED`;
    const flat = topLevel(sql);
    expect(flat).toHaveLength(sql.length);
    expect(flat.match(/\bON\b/g)).toHaveLength(1);
    expect(flat).toMatch(/USING \( +\) s/);
  });
});

describe('mergeParts', () => {
  it('finds the target, the data source and the join condition at the top level', () => {
    expect(
      mergeParts(
        `MERGE INTO target t USING (SELECT 1 as key, 'ON' as val) s ON s.key = t.key ` +
          `WHEN NOT MATCHED THEN INSERT VALUES (s.key, s.val)`,
      ),
    ).toEqual({
      target: 'target',
      alias: 't',
      source: `(SELECT 1 as key, 'ON' as val) s`,
      on: 's.key = t.key',
    });
    expect(
      mergeParts('MERGE INTO ledger USING src ON src.id = ledger.id WHEN MATCHED THEN DELETE'),
    ).toEqual({
      target: 'ledger',
      alias: null,
      source: 'src',
      on: 'src.id = ledger.id',
    });
  });

  it('gives nothing for other statements, a WITH clause, ONLY or a quoted target', () => {
    expect(mergeParts('UPDATE t SET x = 1')).toBeNull();
    expect(
      mergeParts('WITH s AS (SELECT 1) MERGE INTO t USING s ON true WHEN MATCHED THEN DELETE'),
    ).toBeNull();
    expect(mergeParts('MERGE INTO ONLY t USING s ON true WHEN MATCHED THEN DELETE')).toBeNull();
    expect(mergeParts('MERGE INTO "T" USING s ON true WHEN MATCHED THEN DELETE')).toBeNull();
  });
});

describe('statementNeeds with comments', () => {
  it('reads the statement behind a block comment or a line comment', () => {
    const claim = 'SELECT id FROM q WHERE id = 1 FOR UPDATE';
    const plain = statementNeeds(claim);
    expect(plain).toEqual({ mode: 'RowShareLock', rows: { kind: 'lock-rows' } });
    expect(statementNeeds(`/* claim */ ${claim}`)).toEqual(plain);
    expect(statementNeeds(`-- claim\n${claim}`)).toEqual(plain);
    expect(statementNeeds('SELECT id FROM q /* FOR UPDATE */')).toEqual({
      mode: 'AccessShareLock',
      rows: { kind: 'none' },
    });
  });
});

describe('statementNeeds of ALTER TABLE', () => {
  const mode = (sql: string) => statementNeeds(sql).mode;
  it('takes the strongest lock of its subcommands, as AlterTableGetLockLevel does', () => {
    expect(mode('ALTER TABLE jobs SET (fillfactor = 80)')).toBe('ShareUpdateExclusiveLock');
    expect(mode('ALTER TABLE jobs ALTER COLUMN state SET STATISTICS 200')).toBe(
      'ShareUpdateExclusiveLock',
    );
    expect(mode('ALTER TABLE ONLY jobs DISABLE TRIGGER ALL')).toBe('ShareRowExclusiveLock');
    expect(mode('ALTER TABLE jobs ADD CONSTRAINT fk FOREIGN KEY (a) REFERENCES t (id)')).toBe(
      'ShareRowExclusiveLock',
    );
    expect(mode('ALTER TABLE jobs SET (fillfactor = 80), DISABLE TRIGGER t')).toBe(
      'ShareRowExclusiveLock',
    );
    expect(mode('ALTER TABLE jobs SET (fillfactor = 80), ADD COLUMN x int')).toBe(
      'AccessExclusiveLock',
    );
    expect(mode('ALTER TABLE jobs SET (user_catalog_table = true)')).toBe('AccessExclusiveLock');
    expect(mode('ALTER TABLE jobs RENAME TO tasks')).toBe('AccessExclusiveLock');
    expect(mode('ALTER INDEX jobs_pkey SET (fillfactor = 80)')).toBe('AccessExclusiveLock');
  });
});

describe('blankStrings', () => {
  it('blanks string literals, doubled quotes and all, and leaves names and bodies', () => {
    expect(blankStrings("SELECT 'it''s jobs' FROM jobs WHERE n = 'jobs'")).toBe(
      "SELECT '' FROM jobs WHERE n = ''",
    );
  });
});
