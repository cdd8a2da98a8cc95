import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import type { Engine, RefusalKind } from '../../../src/engine/types';
import { parseSpec } from '../../../src/spec/parse';
import { regressSettings, runSpec } from '../../../src/spec/run';

// Session a's transaction holds an XID when b takes the backend, so it is parked; b's
// write commits, so a's next statement can neither run in it nor in a replay of it.
const parkedGoesOn = `
setup { CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (2); }
teardown { DROP TABLE t; }
session a
step a1 { BEGIN; UPDATE t SET id = id WHERE id = (SELECT min(id) FROM t); }
step a2 { SELECT 1 AS one; }
step a3 { COMMIT; }
session b
step b1 { INSERT INTO t VALUES (3); }
permutation a1 b1 a2 a3
permutation a1 a3 b1
`;

// A permutation cut short by a refusal never reaches the step that gives back what the
// session kept beyond its transaction (here a prepared statement).
const leavesPrepared = `
setup { CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (2); }
teardown { DROP TABLE t; }
session a
step a0 { PREPARE q AS SELECT 1; }
step a1 { BEGIN; UPDATE t SET id = id WHERE id = (SELECT min(id) FROM t); }
step a2 { SELECT 1 AS one; }
step a3 { COMMIT; }
step a4 { DEALLOCATE q; }
session b
step b1 { INSERT INTO t VALUES (3); }
permutation a0 a1 b1 a2 a3 a4
permutation a0 a4
`;

// b waits for a, c waits for b's lock, and d's request, which would queue behind c's, is
// refused: once a rolls back, b's step ends, and only b's rollback lets c's end.
const waitsInChain = `
setup { CREATE TABLE a1 (); CREATE TABLE a2 (); }
teardown { DROP TABLE a1, a2; }
session a
setup { BEGIN; }
step a1 { LOCK TABLE a1 IN SHARE UPDATE EXCLUSIVE MODE; }
step ac { COMMIT; }
session b
setup { BEGIN; }
step b1 { LOCK TABLE a2 IN ACCESS SHARE MODE; }
step b2 { LOCK TABLE a1 IN SHARE UPDATE EXCLUSIVE MODE; }
step bc { COMMIT; }
session c
setup { BEGIN; }
step c1 { LOCK TABLE a2 IN ACCESS EXCLUSIVE MODE; }
step cc { COMMIT; }
session d
setup { BEGIN; }
step d1 { LOCK TABLE a2 IN ACCESS EXCLUSIVE MODE; }
step dc { COMMIT; }
permutation a1 b1 b2 c1 d1 ac bc cc dc
permutation a1 ac
`;

describe('runSpec on PGlite', () => {
  let engine: Engine;
  beforeEach(async () => {
    engine = await createNodePgliteEngine(regressSettings);
  });
  afterEach(() => engine.close());

  it('prints a refused permutation as not expressible and tells the caller its kind', async () => {
    let out = '';
    const refusals: [string[], RefusalKind | undefined][] = [];
    const status = await runSpec(parseSpec(parkedGoesOn), {
      engine,
      write: (text) => (out += text),
      onRefusal: (steps, kind) => refusals.push([steps, kind]),
    });
    expect(status).toBe(0);
    expect(out).toMatch(/starting permutation: a1 b1 a2 a3\nnot expressible: .+\n/);
    expect(out).toContain('starting permutation: a1 a3 b1\nstep a1:');
    expect(refusals).toEqual([[['a1', 'b1', 'a2', 'a3'], 'parked-goes-on']]);
  });

  it('starts the permutation after a refused one as the refused one would have left it', async () => {
    let out = '';
    await runSpec(parseSpec(leavesPrepared), { engine, write: (text) => (out += text) });
    expect(out).toMatch(/starting permutation: a0 a1 b1 a2 a3 a4\nnot expressible: /);
    expect(out).toContain(
      'starting permutation: a0 a4\nstep a0: PREPARE q AS SELECT 1;\nstep a4: DEALLOCATE q;\n',
    );
  });

  it('abandons a refused permutation without waiting out the step timeout when steps wait in a chain', async () => {
    let out = '';
    // A step timeout far past the test's: waiting it out would fail the test.
    await runSpec(parseSpec(waitsInChain), {
      engine,
      write: (text) => (out += text),
      maxStepWaitMs: 600_000,
    });
    expect(out).toMatch(/starting permutation: a1 b1 b2 c1 d1 ac bc cc dc\nnot expressible: /);
    expect(out).toContain('starting permutation: a1 ac\nstep a1: LOCK TABLE a1');
  }, 60_000);
});
