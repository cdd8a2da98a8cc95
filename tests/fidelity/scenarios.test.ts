// Every scenario in content/scenarios/, with every combination of its choices, played on a
// real PostgreSQL 18 and on PGlite through the session layer: each claim must hold on the
// server's output, and PGlite's run must agree with the server's step by step. Every
// choice's recording (`npm run record`) must match what the server prints now; a choice the
// browser cannot show is played from it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../src/engine/pglite/node';
import { startTestServer, type TestServer } from '../../src/engine/server/server';
import type { Engine } from '../../src/engine/types';
import { loadScenario, scenarioIds } from '../../src/scenario/load';
import { defaultSelection, everyChoice, isRecorded, type Selection } from '../../src/scenario/plan';
import { recordedRun, recordingSchema, type Recording } from '../../src/scenario/recording';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { comparable, failedClaims, playRun } from '../support/scenario-runs';

const recordings = path.join(import.meta.dirname, '..', '..', 'content', 'recordings');

function recordingOf(id: string): Recording | undefined {
  const file = path.join(recordings, `${id}.json`);
  return existsSync(file)
    ? recordingSchema.parse(JSON.parse(readFileSync(file, 'utf8')))
    : undefined;
}

describe.each(scenarioIds())('scenario %s', (id) => {
  const scenario = loadScenario(id);
  const recording = recordingOf(id);
  let server: TestServer;
  let pglite: Engine;

  beforeAll(async () => {
    [server, pglite] = await Promise.all([startTestServer(), createNodePgliteEngine()]);
  });
  afterAll(async () => {
    await pglite?.close();
    await server?.stop();
  });

  const runs = everyChoice(scenario).map((choices) => {
    const selection: Selection = defaultSelection(scenario);
    selection.choices = choices;
    for (const p of scenario.parameters)
      if (p.test !== undefined) selection.parameters[p.id] = p.test;
    const label =
      Object.entries(choices)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ') || 'as written';
    return { selection, label };
  });

  it.each(runs)(
    '$label: every claim holds on PostgreSQL 18, and the browser shows the same',
    async ({ selection }) => {
      const onServer = await playRun(server.engine, scenario, selection);
      expect(failedClaims(onServer)).toEqual([]);
      // Every step completed, or was acted by a modelled process.
      expect(onServer.filter((e) => e.status !== 'waiting')).toHaveLength(
        new Set(onServer.map((e) => e.step)).size,
      );
      // Every choice has its recording (the handouts print them), made with the default
      // numbers, and it must still be what the server prints with them.
      const recorded = recordedRun(recording, scenario, selection);
      expect(recorded, 'a recording of this choice (run `npm run record`)').toBeDefined();
      const defaults = defaultSelection(scenario).parameters;
      const atDefaults = scenario.parameters.every(
        (p) => selection.parameters[p.id] === defaults[p.id],
      )
        ? onServer
        : await playRun(server.engine, scenario, { ...selection, parameters: defaults });
      expect(comparable(recorded!)).toEqual(comparable(atDefaults));
      if (!isRecorded(scenario, selection)) {
        const onPglite = await playRun(pglite, scenario, selection);
        expect(failedClaims(onPglite)).toEqual([]);
        expect(comparable(onPglite)).toEqual(comparable(onServer));
      }
    },
  );
});
