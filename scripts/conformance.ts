// `npm run conformance`: PostgreSQL's own isolation specs (../shared/pg-isolation and
// ../shared/pg-isolation-more) on a real PostgreSQL 18 and on PGlite through the session
// layer, against PostgreSQL's expected outputs. Prints, per spec, its permutations,
// whether the server's output is exact, and what PGlite made of each permutation: the
// same as PostgreSQL, refused (by kind), different, or timed out; then totals and the
// seconds each spec took. Exits 1 if the server's output differs from every expected file,
// or if PGlite differs or times out on any permutation. Skips, saying so, without the
// folders.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { RefusedPermutation, Verdicts } from '../src/spec/conformance.ts';
import type { Engine } from '../src/engine/types.ts';
import './resolve-ts.ts';

const folders = ['pg-isolation', 'pg-isolation-more']
  .map((name) => path.join(process.cwd(), '..', 'shared', name))
  .filter((dir) => existsSync(path.join(dir, 'specs')));
if (folders.length === 0) {
  console.log('conformance: skipped, ../shared/pg-isolation* is not there');
  process.exit(0);
}

const { parseSpec } = await import('../src/spec/parse.ts');
const { regressSettings, runSpec } = await import('../src/spec/run.ts');
const { judge } = await import('../src/spec/conformance.ts');
const { startTestServer } = await import('../src/engine/server/server.ts');
const { createNodePgliteEngine } = await import('../src/engine/pglite/node.ts');

/** The most one spec may take on PGlite before its remaining permutations time out. */
const specBudgetMs = Number(process.env.CONFORMANCE_SPEC_SECONDS ?? 240) * 1000;
/** PGISOLATIONTIMEOUT for PGlite: a step that has not ended is cancelled after this. */
const stepWaitMs = 60_000;

const specs = folders.flatMap((dir) =>
  readdirSync(path.join(dir, 'specs'))
    .filter((f) => f.endsWith('.spec'))
    .map((f) => ({ dir, name: f.slice(0, -'.spec'.length) })),
);
specs.sort((a, b) => a.name.localeCompare(b.name));
// `npm run conformance -- NAME …` runs only the specs named.
const only = process.argv.slice(2);
if (only.length > 0) specs.splice(0, specs.length, ...specs.filter((s) => only.includes(s.name)));

interface Run {
  out: string;
  refusals: RefusedPermutation[];
  seconds: number;
  /** The run did not end within its budget. */
  stopped: boolean;
}

/** The tester's output for one spec on `engine`, stopped after `budgetMs`. */
async function run(dir: string, name: string, engine: Engine, budgetMs: number): Promise<Run> {
  const result: Run = { out: '', refusals: [], seconds: 0, stopped: false };
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const budget = new Promise<'stopped'>((resolve) => {
    timer = setTimeout(() => resolve('stopped'), budgetMs);
  });
  const running = runSpec(
    parseSpec(readFileSync(path.join(dir, 'specs', `${name}.spec`), 'utf8')),
    {
      engine,
      testName: name,
      maxStepWaitMs: stepWaitMs,
      write: (text) => (result.out += text),
      onRefusal: (steps, kind) => result.refusals.push({ steps, kind }),
    },
  );
  running.catch(() => {}); // once stopped, its engine is closed under it
  result.stopped = (await Promise.race([running, budget])) === 'stopped';
  clearTimeout(timer);
  result.seconds = (performance.now() - started) / 1000;
  return result;
}

/** The expected outputs PostgreSQL accepts for spec `name` (NAME.out, NAME_1.out, …). */
function expectedOutputs(dir: string, name: string): string[] {
  return ['', '_1', '_2', '_3']
    .map((suffix) => path.join(dir, 'expected', `${name}${suffix}.out`))
    .filter(existsSync)
    .map((file) => readFileSync(file, 'utf8'));
}

// The server as PostgreSQL's own test suite runs it: default settings, so autovacuum is
// on (some expected plans depend on it), plus the tester's time zone and date style.
const server = await startTestServer({ ...regressSettings, autovacuum: 'on' });
const rows: string[][] = [];
const totals = { permutations: 0, same: 0, refused: 0, differs: 0, timedOut: 0, serverExact: 0 };
const byKind = new Map<string, number>();
const problems: string[] = [];
const started = performance.now();
try {
  for (const { dir, name } of specs) {
    const expected = expectedOutputs(dir, name);
    const onServer = await run(dir, name, server.engine, specBudgetMs);
    const serverExact = expected.includes(onServer.out);
    const pglite = await createNodePgliteEngine(regressSettings);
    const onPglite = await run(dir, name, pglite, specBudgetMs);
    await pglite.close();
    const v: Verdicts = judge(onPglite.out, expected, onPglite.refusals);
    totals.permutations += v.permutations;
    totals.same += v.matches;
    totals.refused += v.notExpressible;
    totals.differs += v.differs.length;
    totals.timedOut += v.timedOut.length;
    if (serverExact) totals.serverExact++;
    else problems.push(`${name}: the server's output is not PostgreSQL's expected output`);
    for (const steps of v.differs) problems.push(`${name}: PGlite differs on ${steps}`);
    for (const steps of v.timedOut) problems.push(`${name}: PGlite timed out on ${steps}`);
    for (const [kind, count = 0] of Object.entries(v.byKind)) {
      byKind.set(kind, (byKind.get(kind) ?? 0) + count);
    }
    const kinds = Object.entries(v.byKind)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(', ');
    rows.push([
      name,
      String(v.permutations),
      serverExact ? 'yes' : 'NO',
      String(v.matches),
      kinds ? `${v.notExpressible} (${kinds})` : '0',
      String(v.differs.length),
      String(v.timedOut.length),
      `${onServer.seconds.toFixed(1)} / ${onPglite.seconds.toFixed(1)}`,
    ]);
    console.error(`conformance: ${name} done`);
  }
} finally {
  await server.stop();
}

const header = [
  'spec',
  'permutations',
  'server exact',
  'pglite same',
  'pglite refused (by kind)',
  'pglite differs',
  'pglite timed out',
  'seconds (server / pglite)',
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(line(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of rows) console.log(line(row));
const share = (n: number) => `${((100 * n) / Math.max(1, totals.permutations)).toFixed(0)}%`;
console.log(`specs: ${specs.length}; server exact: ${totals.serverExact} of ${specs.length}`);
console.log(
  `permutations: ${totals.permutations}; pglite same: ${totals.same} (${share(totals.same)}); ` +
    `refused: ${totals.refused}; differs: ${totals.differs}; timed out: ${totals.timedOut}`,
);
console.log(`pglite expressed: ${totals.same} of ${totals.permutations} (${share(totals.same)})`);
for (const [kind, count] of [...byKind].sort((a, b) => b[1] - a[1])) {
  console.log(`refused (${kind}): ${count}`);
}
console.log(`conformance-seconds: ${((performance.now() - started) / 1000).toFixed(0)}`);
for (const problem of problems) console.log(`problem: ${problem}`);
process.exit(problems.length ? 1 : 0);
