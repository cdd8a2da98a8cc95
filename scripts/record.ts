// `npm run record`: plays every choice of every scenario on a real PostgreSQL 18, with the
// scenario's default numbers, and writes what it printed to content/recordings/<id>.json.
// The player shows the runs of options marked `recorded` (where PGlite cannot show them
// truthfully); the printable handouts (/demos/<id>/handout/) show every run. Never edit
// those files by hand; run this again instead. `npm run record -- horizon fix` records
// only those scenarios.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import './resolve-ts.ts';

const { loadScenario, scenarioIds } = await import('../src/scenario/load.ts');
const { selectionKey } = await import('../src/scenario/plan.ts');
const { everySelection, recordRun, serverVersion } = await import('../src/scenario/recording.ts');
const { startTestServer } = await import('../src/engine/server/server.ts');

const out = path.join(process.cwd(), 'content', 'recordings');
mkdirSync(out, { recursive: true });
const asked = process.argv.slice(2);
const ids = scenarioIds();
const unknown = asked.filter((id) => !ids.includes(id));
if (unknown.length) throw new Error(`record: no scenario named ${unknown.join(', ')}`);
const server = await startTestServer();
try {
  const version = await serverVersion(server.engine);
  for (const id of asked.length ? asked : ids) {
    const scenario = loadScenario(id);
    const runs: Record<string, { events: unknown[] }> = {};
    for (const selection of everySelection(scenario)) {
      const events = await recordRun(server.engine, scenario, selection);
      const failed = events.flatMap((e) => e.claims ?? []).filter((c) => !c.held);
      if (failed.length) {
        throw new Error(
          `${id}: the server does not bear out: ${failed.map((c) => c.says).join('; ')}`,
        );
      }
      runs[selectionKey(scenario, selection)] = { events };
    }
    const file = path.join(out, `${id}.json`);
    writeFileSync(file, `${JSON.stringify({ scenario: id, server: version, runs }, null, 2)}\n`);
    console.log(
      `record: wrote ${path.relative(process.cwd(), file)} (${Object.keys(runs).length} runs)`,
    );
  }
} finally {
  await server.stop();
}
