// A long run on one engine: the same few steps over and over, each time on a table made
// afresh and dropped after, as a spec's permutations or a reader's afternoon do. What the
// layer remembers of earlier rounds must not make later ones slower: the time of the last
// rounds over the first, in one run (`long-run-late-over-early`, goal at most 1.5).
import '../scripts/resolve-ts.ts';

const { createNodePgliteEngine } = await import('../src/engine/pglite/node.ts');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * One round: A writes a row and is set aside while B writes another, then A goes on (a
 * replay, which puts its row after B's) and reads the table, and commits or rolls back;
 * the table goes.
 */
async function round(
  a: Awaited<ReturnType<Awaited<ReturnType<typeof createNodePgliteEngine>>['openSession']>>,
  b: typeof a,
  i: number,
): Promise<number> {
  const table = `long_run_${i}`;
  const started = performance.now();
  await a.query(
    `CREATE TABLE ${table} (id int PRIMARY KEY, v int); INSERT INTO ${table} SELECT g, 0 FROM generate_series(1, 20) g`,
  );
  await a.query(`BEGIN; UPDATE ${table} SET v = 1 WHERE id = 1`);
  await b.query(`UPDATE ${table} SET v = 2 WHERE id = 2`);
  await a.query(`SELECT count(*) FROM ${table} WHERE v > 0`);
  await a.query(i % 2 === 0 ? 'COMMIT' : 'ROLLBACK');
  await b.query(`SELECT id FROM ${table} WHERE v > 0 ORDER BY id`);
  await a.query(`DROP TABLE ${table}`);
  return performance.now() - started;
}

/** Prints `long-run-late-over-early`: the median round of the last tenth over the first's. */
export async function benchLongRun(rounds = 400): Promise<void> {
  const engine = await createNodePgliteEngine();
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) times.push(await round(a, b, i));
  await a.close();
  await b.close();
  await engine.close();
  const tenth = Math.max(1, Math.floor(rounds / 10));
  // The first rounds warm up; the second tenth stands for the start.
  const early = median(times.slice(tenth, 2 * tenth));
  const late = median(times.slice(-tenth));
  console.log(
    `long-run-late-over-early: ${(late / early).toFixed(2)}  (goal: at most 1.5; ${rounds} rounds, ` +
      `median round ${early.toFixed(1)} ms early, ${late.toFixed(1)} ms late)`,
  );
}
