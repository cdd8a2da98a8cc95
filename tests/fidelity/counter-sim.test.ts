// The counter simulation's worker program on PGlite through the session layer and on a
// real PostgreSQL 18: the same seed and script must give the same event log on both,
// once pids and XIDs (which differ between servers) are replaced. (The test server runs
// without autovacuum, as PGlite has none: see src/engine/settings.ts.)
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types';
import { startCounterSim } from '../../src/sim/counter-sim';
import type { SimEvent } from '../../src/sim/events';
import type { Observation } from '../../src/sim/observe';
import type { Shape } from '../../src/sim/settings';
import { bothEngines } from '../support/both-engines';
import {
  crowdedCounter,
  doubleClaims,
  expectedAttempts,
  normaliseEvents,
  troubles,
} from '../unit/sim/run-checks';

interface Outcome {
  events: SimEvent[];
  /** Sessions as pg_stat_activity showed them at the end: name, state, and an XID if held. */
  sessions: string[];
  jobs: Observation['jobs'];
  attempts: [number, number][];
}

/** Runs a scripted sim with a kill in it and reads the outcome from the engine. */
async function run(engine: Engine, settings: Record<string, unknown>): Promise<Outcome> {
  const sim = await startCounterSim(engine, settings);
  await sim.advance(2000);
  const working = sim.state.workers.find((w) => w.status === 'working');
  if (working) await sim.killWorker(working.name);
  await sim.advance(4000);
  const seen = await sim.observe();
  const observer = await engine.openSession({ applicationName: 'test' });
  const attempts = (
    await observer.query('SELECT id, attempts FROM jobs WHERE attempts > 0 ORDER BY id')
  ).results[0]!.rows.map(([id, n]) => [Number(id), Number(n)] as [number, number]);
  await observer.close();
  await sim.stop();
  return {
    events: [...sim.events()],
    sessions: seen.sessions
      .filter((s) => s.applicationName !== 'test')
      .map(
        (s) =>
          `${s.applicationName} ${s.state}${s.xid === null ? '' : ' holding an XID'}` +
          (s.waiting ? ` waiting ${s.waiting}` : ''),
      )
      .sort(),
    jobs: seen.jobs,
    attempts,
  };
}

/** The run on both engines; asserts they agree, and returns PostgreSQL 18's. */
async function onBoth(
  engines: { server: { engine: Engine }; pglite: Engine },
  settings: Record<string, unknown>,
): Promise<Outcome> {
  const server = await run(engines.server.engine, settings);
  const pglite = await run(engines.pglite, settings);
  expect(troubles(server.events)).toEqual([]);
  expect(normaliseEvents(pglite.events)).toEqual(normaliseEvents(server.events));
  expect({ ...pglite, events: [] }).toEqual({ ...server, events: [] });
  return server;
}

const workload = {
  seed: 21,
  workers: 4,
  connections: 2,
  api: 1,
  uploadRate: 3,
  initialJobs: 4,
  workMinMs: 800,
  workMaxMs: 3000,
  heartbeatLimitMs: 2500,
  sweepEveryMs: 1000,
  vacuumEveryMs: 2000,
};

describe('the counter simulation on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  for (const shape of ['hold', 'claim-close'] as Shape[]) {
    it(`${shape}: the same claims, records, sweeps and VACUUM reports on both engines`, async () => {
      const outcome = await onBoth(engines, { ...workload, shape });
      const { events } = outcome;
      expect(doubleClaims(events, shape)).toEqual([]);
      expect(new Map(outcome.attempts)).toEqual(expectedAttempts(events, shape));
      expect(events.some((e) => e.type === 'worker-killed' && e.jobId !== null)).toBe(true);
      const reports = events.filter((e) => e.type === 'vacuum' && e.table === 'events');
      expect(reports.length).toBeGreaterThan(1);
      if (shape === 'hold') {
        // A working worker's claim holds the cutoff, on a table no worker touches.
        expect(reports.every((r) => r.type === 'vacuum' && r.heldBy?.startsWith('worker-'))).toBe(
          true,
        );
        expect(reports.some((r) => r.type === 'vacuum' && r.notYetRemovable > 0)).toBe(true);
        expect(
          outcome.sessions.some((s) => /^worker-\d+ idle in transaction holding an XID$/.test(s)),
        ).toBe(true);
      } else {
        expect(reports.every((r) => r.type === 'vacuum' && r.notYetRemovable === 0)).toBe(true);
        expect(events.some((e) => e.type === 'jobs-swept')).toBe(true);
        expect(outcome.sessions.filter((s) => s.endsWith('holding an XID'))).toEqual([]);
      }
    });
  }

  it('30 workers with 3 connections and 2 API pools of 5 + 10: the same seats and refusals', async () => {
    const outcome = await onBoth(engines, { ...crowdedCounter, shape: 'claim-close' });
    const refused = outcome.events.filter((e) => e.type === 'session-refused');
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused.map((e) => e.type === 'session-refused' && e.message))).toEqual(
      new Set(['remaining connection slots are reserved for roles with the SUPERUSER attribute']),
    );
  });
});
