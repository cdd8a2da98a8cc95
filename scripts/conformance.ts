// `npm run conformance`: every spec in ../shared/pg-isolation/specs on a real PostgreSQL 18
// and on PGlite through the session layer, against PostgreSQL's expected outputs. Prints a
// table; exits 1 if the server's output differs from every expected file, if PGlite
// differs on a permutation it claims to express, or if PGlite refuses a permutation for a
// kind of reason that is not a limit of parking (a parked session having to go on). Prints
// the refusals counted by kind. Skips, saying so, without the folder.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { RefusedPermutation } from '../src/spec/conformance.ts';
import './resolve-ts.ts';

const shared = path.join(process.cwd(), '..', 'shared', 'pg-isolation');
if (!existsSync(path.join(shared, 'specs'))) {
  console.log(`conformance: skipped, ${shared} is not there`);
  process.exit(0);
}

const { parseSpec } = await import('../src/spec/parse.ts');
const { regressSettings, runSpec } = await import('../src/spec/run.ts');
const { judge } = await import('../src/spec/conformance.ts');
const { startTestServer } = await import('../src/engine/server/server.ts');
const { createNodePgliteEngine } = await import('../src/engine/pglite/node.ts');
type Engine = Awaited<ReturnType<typeof createNodePgliteEngine>>;

const names = readdirSync(path.join(shared, 'specs'))
  .filter((f) => f.endsWith('.spec'))
  .map((f) => f.slice(0, -'.spec'.length))
  .sort();

/** The tester's output for spec `name` on `engine`, and the permutations it refused. */
async function run(
  name: string,
  engine: Engine,
): Promise<{ out: string; refusals: RefusedPermutation[] }> {
  let out = '';
  const refusals: RefusedPermutation[] = [];
  await runSpec(parseSpec(readFileSync(path.join(shared, 'specs', `${name}.spec`), 'utf8')), {
    engine,
    testName: name,
    write: (text) => (out += text),
    onRefusal: (steps, kind) => refusals.push({ steps, kind }),
  });
  return { out, refusals };
}

const server = await startTestServer(regressSettings);
const rows: string[][] = [];
let failed = false;
let expressed = 0;
let total = 0;
let refused = 0;
/** Refused permutations of every spec, by the kind of refusal. */
const byKind = new Map<string, number>();
const otherReasons: string[] = [];
try {
  for (const name of names) {
    const expected = [`${name}.out`, `${name}_1.out`]
      .map((f) => path.join(shared, 'expected', f))
      .filter(existsSync)
      .map((f) => readFileSync(f, 'utf8'));
    const onServer = (await run(name, server.engine)).out;
    const pglite = await createNodePgliteEngine(regressSettings);
    const onPglite = await run(name, pglite);
    await pglite.close();
    const serverMatches = expected.includes(onServer);
    const verdicts = judge(onPglite.out, expected, onPglite.refusals);
    failed ||= !serverMatches || verdicts.differs.length > 0 || verdicts.otherReasons.length > 0;
    refused += verdicts.notExpressible;
    for (const [kind, count = 0] of Object.entries(verdicts.byKind)) {
      byKind.set(kind, (byKind.get(kind) ?? 0) + count);
    }
    otherReasons.push(...verdicts.otherReasons.map((r) => `${name}: ${r}`));
    expressed += verdicts.matches + verdicts.differs.length;
    total += verdicts.permutations;
    rows.push([
      name,
      String(verdicts.permutations),
      serverMatches ? 'yes' : 'NO',
      String(verdicts.matches),
      String(verdicts.notExpressible),
      verdicts.differs.length ? verdicts.differs.join('; ') : '0',
    ]);
  }
} finally {
  await server.stop();
}

const header = [
  'spec',
  'permutations',
  'server matches',
  'pglite matches',
  'pglite not expressible',
  'pglite differs',
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(line(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of rows) console.log(line(row));
console.log(
  `pglite expressible: ${expressed} of ${total} permutations (${((100 * expressed) / total).toFixed(0)}%)`,
);
console.log(
  `pglite not expressible because a parked session would have to go on: ${refused - otherReasons.length} of ${refused}`,
);
for (const [kind, count] of byKind) console.log(`not expressible (${kind}): ${count}`);
for (const reason of otherReasons) console.log(`not expressible for another reason: ${reason}`);
process.exit(failed ? 1 : 0);
