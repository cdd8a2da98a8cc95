// PostgreSQL's own isolation specs for SKIP LOCKED and NOWAIT, run by our runner on a
// real PostgreSQL 18 and compared byte for byte with the `.out` files PostgreSQL's test
// suite produced (read from ../shared/pg-isolation, never copied into this repository).
// Then small specs of our own for what those do not reach: blocking markers, notices,
// setup failures and the "not expressible" signal.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/engine/server/server';
import type { Engine } from '../../src/engine/types';
import { parseSpec } from '../../src/spec/parse';
import { regressSettings, runSpec } from '../../src/spec/run';

const shared = path.join(process.cwd(), '..', 'shared', 'pg-isolation');
const hasShared = existsSync(path.join(shared, 'specs'));
const specNames = hasShared
  ? readdirSync(path.join(shared, 'specs'))
      .filter((f) => f.endsWith('.spec'))
      .map((f) => f.slice(0, -'.spec'.length))
      .sort()
  : [];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(regressSettings);
});
afterAll(async () => {
  await server?.stop();
});

async function run(
  text: string,
  engine: Engine = server.engine,
  testName = 'inline',
): Promise<{ out: string; status: number }> {
  let out = '';
  const status = await runSpec(parseSpec(text), {
    engine,
    testName,
    write: (t) => (out += t),
  });
  return { out, status };
}

describe.skipIf(!hasShared)(`PostgreSQL isolation specs in ${shared}`, () => {
  it.each(specNames)('%s.spec prints its expected .out on PostgreSQL 18', async (name) => {
    const { out, status } = await run(
      readFileSync(path.join(shared, 'specs', `${name}.spec`), 'utf8'),
      server.engine,
      name,
    );
    expect(status).toBe(0);
    const alternative = path.join(shared, 'expected', `${name}_1.out`);
    const expected = readFileSync(path.join(shared, 'expected', `${name}.out`), 'utf8');
    // PostgreSQL accepts NAME_1.out as well: compare with whichever is closer.
    if (out !== expected && existsSync(alternative)) {
      const other = readFileSync(alternative, 'utf8');
      if (out === other) return;
    }
    expect(out).toBe(expected);
  });
});

if (!hasShared)
  describe('PostgreSQL isolation specs', () => {
    it.skip(`need ${shared} (specs/ and expected/), which is not there`, () => {});
  });

const lockSpec = `
setup { CREATE TABLE m (id int PRIMARY KEY); INSERT INTO m VALUES (1); }
teardown { DROP TABLE m; }
session a
step a1 { BEGIN; UPDATE m SET id = id WHERE id = 1; }
step a2 { COMMIT; }
session b
step b1 { UPDATE m SET id = id WHERE id = 1; }
step b2 { SELECT 1 AS one; }
`;

describe('runSpec on PostgreSQL 18', () => {
  it('reports a step that waits on a row lock and its completion', async () => {
    const { out } = await run(`${lockSpec}permutation a1 b1 a2 b2`);
    expect(out).toBe(
      [
        'Parsed test spec with 2 sessions',
        '',
        'starting permutation: a1 b1 a2 b2',
        'step a1: BEGIN; UPDATE m SET id = id WHERE id = 1;',
        'step b1: UPDATE m SET id = id WHERE id = 1; <waiting ...>',
        'step a2: COMMIT;',
        'step b1: <... completed>',
        'step b2: SELECT 1 AS one;',
        'one',
        '---',
        '  1',
        '(1 row)',
        '',
        '',
      ].join('\n'),
    );
  });

  it('shows a (*) step as waiting once, then completed after the next step', async () => {
    const { out } = await run(`${lockSpec}permutation a1 b2(*) a2 b1`);
    expect(out).toContain(
      [
        'step b2: SELECT 1 AS one; <waiting ...>',
        'step a2: COMMIT;',
        'step b2: <... completed>',
        'one',
      ].join('\n'),
    );
  });

  it('holds back a completed step until the step it names has completed', async () => {
    const { out } = await run(`${lockSpec}permutation a1 b1 a2(b1)`);
    // a2 completes at once, but its report waits until b1, which it released, is seen
    // completed: the tester prints a2 as waiting, then b1, then a2.
    expect(out).toMatch(
      new RegExp(
        [
          'step b1: UPDATE m SET id = id WHERE id = 1; <waiting \\.\\.\\.>',
          'step a2: COMMIT; <waiting \\.\\.\\.>',
          'step b1: <\\.\\.\\. completed>',
          'step a2: <\\.\\.\\. completed>\n$',
        ].join('\n'),
      ),
    );
  });

  it('prints notices of spec sessions with the session name, before the step', async () => {
    const { out } = await run(`
setup { DO $$BEGIN RAISE NOTICE 'hidden'; END$$; }
session n
step n1 { DO $$BEGIN RAISE NOTICE 'hello'; END$$; }
`);
    expect(out).toBe(
      'Parsed test spec with 1 sessions\n\nstarting permutation: n1\n' +
        "n: NOTICE:  hello\nstep n1: DO $$BEGIN RAISE NOTICE 'hello'; END$$;\n",
    );
  });

  it('prints the last result of a setup block and the error of a step', async () => {
    const { out } = await run(`
setup { SELECT 1 AS a; SELECT 'x' AS b; }
session e
step e1 { SELECT 1/0; }
`);
    expect(out).toBe(
      'Parsed test spec with 1 sessions\n\nstarting permutation: e1\n' +
        'b\n-\nx\n(1 row)\n\n' +
        'step e1: SELECT 1/0;\nERROR:  division by zero\n',
    );
  });

  it('stops with the tester message when setup fails', async () => {
    const { out, status } = await run('setup { SELECT nosuch; }\nsession s step s1 { SELECT 1; }');
    expect(status).toBe(1);
    expect(out).toBe(
      'Parsed test spec with 1 sessions\n\nstarting permutation: s1\n' +
        'setup failed: ERROR:  column "nosuch" does not exist\n' +
        'LINE 1: SELECT nosuch;\n               ^\n',
    );
  });

  it('prints "not expressible" for a permutation the engine signals, and goes on', async () => {
    // An engine that cannot show one statement, as PGlite's session layer signals it.
    const engine: Engine = {
      kind: 'server',
      close: () => server.engine.close(),
      async openSession(options) {
        const session = await server.engine.openSession(options);
        return {
          id: session.id,
          pid: session.pid,
          close: () => session.close(),
          query(sql, params) {
            if (sql.includes('UNSHOWABLE')) {
              const error = new Error('a parked transaction can only end');
              error.name = 'NotExpressibleError';
              return Promise.reject(error);
            }
            return session.query(sql, params);
          },
        };
      },
    };
    const { out, status } = await run(
      `${lockSpec.replace('step b2 { SELECT 1 AS one; }', 'step b2 { SELECT 1 AS one; }\nstep b3 { SELECT 2 /* UNSHOWABLE */; }')}
permutation a1 b3 a2
permutation a1 a2 b2`,
      engine,
    );
    expect(out).toBe(
      [
        'unused step name: b1',
        'Parsed test spec with 2 sessions',
        '',
        'starting permutation: a1 b3 a2',
        'not expressible: a parked transaction can only end',
        '',
        'starting permutation: a1 a2 b2',
        'step a1: BEGIN; UPDATE m SET id = id WHERE id = 1;',
        'step a2: COMMIT;',
        'step b2: SELECT 1 AS one;',
        'one',
        '---',
        '  1',
        '(1 row)',
        '',
        '',
      ].join('\n'),
    );
    expect(status).toBe(0);
  });
});
