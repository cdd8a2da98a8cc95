// `npm run record`: plays every scenario option marked `recorded` on a real PostgreSQL 18
// and writes what it printed to content/recordings/<id>.json, for the player to show
// where PGlite cannot. Never edit those files by hand; run this again instead.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import './resolve-ts.ts';

const { loadScenario, scenarioIds } = await import('../src/scenario/load.ts');
const { defaultSelection, selectionKey } = await import('../src/scenario/plan.ts');
const { recordedSelections, recordRun, serverVersion } =
  await import('../src/scenario/recording.ts');
const { startTestServer } = await import('../src/engine/server/server.ts');

const out = path.join(process.cwd(), 'content', 'recordings');
mkdirSync(out, { recursive: true });
const server = await startTestServer();
try {
  const version = await serverVersion(server.engine);
  for (const id of scenarioIds()) {
    const scenario = loadScenario(id);
    const selections = recordedSelections(scenario, defaultSelection(scenario));
    if (selections.length === 0) continue;
    const runs: Record<string, { events: unknown[] }> = {};
    for (const selection of selections) {
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
