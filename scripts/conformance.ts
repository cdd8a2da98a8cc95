// `npm run conformance`: every spec in ../shared/pg-isolation/specs on a real PostgreSQL 18
// and on PGlite through the session layer, against PostgreSQL's expected outputs. Prints a
// table; exits 1 if the server's output differs from every expected file, if PGlite
// differs on a permutation it claims to express, or if PGlite calls a permutation not
// expressible for any reason but a parked session having to go on. Skips, saying so,
// without the folder.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Engine } from '../src/engine/types.ts';
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

const names = readdirSync(path.join(shared, 'specs'))
  .filter((f) => f.endsWith('.spec'))
  .map((f) => f.slice(0, -'.spec'.length))
  .sort();

async function run(name: string, engine: Engine): Promise<string> {
  let out = '';
  await runSpec(parseSpec(readFileSync(path.join(shared, 'specs', `${name}.spec`), 'utf8')), {
    engine,
    testName: name,
    write: (text) => (out += text),
  });
  return out;
}

const server = await startTestServer(regressSettings);
const rows: string[][] = [];
let failed = false;
let expressed = 0;
let total = 0;
let refused = 0;
const otherReasons: string[] = [];
try {
  for (const name of names) {
    const expected = [`${name}.out`, `${name}_1.out`]
      .map((f) => path.join(shared, 'expected', f))
      .filter(existsSync)
      .map((f) => readFileSync(f, 'utf8'));
    const onServer = await run(name, server.engine);
    const pglite = await createNodePgliteEngine(regressSettings);
    const onPglite = await run(name, pglite);
    await pglite.close();
    const serverMatches = expected.includes(onServer);
    const verdicts = judge(onPglite, expected);
    failed ||= !serverMatches || verdicts.differs.length > 0 || verdicts.otherReasons.length > 0;
    refused += verdicts.notExpressible;
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
for (const reason of otherReasons) console.log(`not expressible for another reason: ${reason}`);
process.exit(failed ? 1 : 0);
