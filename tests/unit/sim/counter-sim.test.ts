// The counter simulation on PGlite through the session layer: determinism, the horizon
// a held claim pins, exclusive claims, connection slots, and restoring a moment.
import { describe, expect, it } from 'vitest';
import { onFreshEngine } from '../../support/fresh-engine';
import type { Engine } from '../../../src/engine/types';
import { restoreCounterSim, startCounterSim, type CounterSim } from '../../../src/sim/counter-sim';
import type { SimEvent } from '../../../src/sim/events';
import type { Shape } from '../../../src/sim/settings';
import { crowdedCounter, doubleClaims, expectedAttempts, troubles } from './run-checks';

/** Rows of one query on a session of its own. */
async function rows(engine: Engine, sql: string): Promise<(string | null)[][]> {
  const s = await engine.openSession({ applicationName: 'test' });
  try {
    return (await s.query(sql)).results[0]!.rows;
  } finally {
    await s.close();
  }
}

const busy = {
  workers: 3,
  connections: 2,
  api: 1,
  uploadRate: 3,
  initialJobs: 2,
  workMinMs: 500,
  workMaxMs: 1500,
  vacuumEveryMs: 2500,
};

/** A short run with a kill in it: the same script every time. */
async function scriptedRun(engine: Engine, seed: number, shape: Shape): Promise<SimEvent[]> {
  const sim = await startCounterSim(engine, { ...busy, seed, shape });
  await sim.advance(2000);
  await sim.killWorker('worker-02');
  await sim.advance(1500);
  await sim.stop();
  return [...sim.events()];
}

describe('the counter simulation on PGlite', () => {
  it('gives the same event log for the same seed and settings, and another for another seed', async () => {
    const first = await onFreshEngine((e) => scriptedRun(e, 11, 'hold'));
    const again = await onFreshEngine((e) => scriptedRun(e, 11, 'hold'));
    expect(troubles(first)).toEqual([]);
    expect(again).toEqual(first);
    const types = new Set(first.map((e) => e.type));
    for (const type of [
      'job-claimed',
      'job-recorded',
      'upload-accepted',
      'vacuum',
      'worker-killed',
    ]) {
      expect(types).toContain(type);
    }
    const other = await onFreshEngine((e) => scriptedRun(e, 12, 'hold'));
    expect(other).not.toEqual(first);
  });

  const pinning = {
    workers: 1,
    api: 0,
    initialJobs: 1,
    workMinMs: 20_000,
    workMaxMs: 20_000,
    vacuumEveryMs: 3000,
  };

  it('hold: VACUUM cannot remove what died after the working worker’s claim; the cutoff is its XID', async () => {
    await onFreshEngine(async (engine) => {
      const sim = await startCounterSim(engine, { ...pinning, shape: 'hold' });
      const events = await sim.advance(3000);
      const seen = await sim.observe();
      const [[xmax]] = await rows(engine, 'SELECT xmax::text FROM jobs WHERE id = 1');
      const worker = seen.sessions.find((s) => s.applicationName === 'worker-01')!;
      expect(worker).toMatchObject({ state: 'idle in transaction', xid: xmax });
      const report = events.find((e) => e.type === 'vacuum' && e.table === 'events');
      expect(report).toMatchObject({ cutoff: xmax, heldBy: 'worker-01' });
      expect(report && report.type === 'vacuum' && report.notYetRemovable).toBeGreaterThanOrEqual(
        20,
      );
      // The asker's own snapshot is as old (its xmin is the worker's XID): a tie, in either
      // order, so the holder is the first other than the asker, as the picture names it.
      const oldest = Math.max(...seen.horizon.map((h) => h.holdingBackBy ?? 0));
      expect(seen.horizon.find((h) => h.pid !== seen.observerPid)).toMatchObject({
        applicationName: 'worker-01',
        state: 'idle in transaction',
        holdingBackBy: oldest,
      });
      const seat = sim.view().seats.find((s) => s.name === 'worker-01/claim')!;
      expect(seat).toMatchObject({ xid: xmax, inTransaction: true, waiting: null });
      const claimedAt = events.find((e) => e.type === 'job-claimed')!.t;
      expect(seat.xactSinceMs).toBe(claimedAt);
      await sim.stop();
    });
  });

  it('claim-close: at the same moment VACUUM removes them, and the worker holds no XID', async () => {
    await onFreshEngine(async (engine) => {
      const sim = await startCounterSim(engine, { ...pinning, shape: 'claim-close' });
      const events = await sim.advance(3000);
      const seen = await sim.observe();
      expect(seen.sessions.find((s) => s.applicationName === 'worker-01')).toMatchObject({
        state: 'idle',
        xid: null,
      });
      expect(seen.horizon.map((h) => h.pid)).toEqual([seen.observerPid]); // only the asker
      expect(sim.view().seats.find((s) => s.name === 'worker-01/claim')).toMatchObject({
        inTransaction: false,
        xactSinceMs: null,
      });
      const report = events.find((e) => e.type === 'vacuum' && e.table === 'events');
      expect(report).toMatchObject({ notYetRemovable: 0, heldBy: null });
      expect(report && report.type === 'vacuum' && report.removed).toBeGreaterThanOrEqual(20);
      expect(events.filter((e) => e.type === 'job-claimed')).toHaveLength(1);
      await sim.stop();
    });
  });

  for (const shape of ['claim-close', 'hold'] as const) {
    it(`${shape}: no job is claimed while another claim of it stands, and attempts counts the claims`, async () => {
      await onFreshEngine(async (engine) => {
        const sim = await startCounterSim(engine, {
          shape,
          seed: 5,
          workers: 6,
          api: 1,
          uploadRate: 4,
          initialJobs: 8,
          workMinMs: 500,
          workMaxMs: 2500,
          heartbeatLimitMs: 3000,
          sweepEveryMs: 1000,
        });
        await sim.advance(1500);
        const working = sim.state.workers.find((w) => w.status === 'working')!;
        await sim.killWorker(working.name);
        await sim.advance(7000);
        await sim.stop();
        const events = sim.events();
        expect(troubles(events)).toEqual([]);
        expect(doubleClaims(events, shape)).toEqual([]);
        const claims = events.filter((e) => e.type === 'job-claimed');
        expect(claims.length).toBeGreaterThan(15);
        const inDb = await rows(
          engine,
          'SELECT id, attempts FROM jobs WHERE attempts > 0 ORDER BY id',
        );
        expect(new Map(inDb.map(([id, n]) => [Number(id), Number(n)]))).toEqual(
          expectedAttempts(events, shape),
        );
        // The killed worker's job went back and another worker took it.
        const killed = events.find((e) => e.type === 'worker-killed')!;
        const lost = killed.type === 'worker-killed' ? killed.jobId : null;
        expect(lost).not.toBeNull();
        if (shape === 'claim-close') {
          expect(events.some((e) => e.type === 'jobs-swept' && e.jobIds.includes(lost!))).toBe(
            true,
          );
          expect(inDb.find(([id]) => Number(id) === lost)?.[1]).toBe('2');
        }
        expect(claims.filter((e) => e.type === 'job-claimed' && e.jobId === lost)).toHaveLength(2);
      });
    });
  }

  it('30 workers with 3 connections and 2 API pools of 5 + 10 are refused the reserved seats', async () => {
    await onFreshEngine(async (engine) => {
      const sim = await startCounterSim(engine, crowdedCounter);
      await sim.advance(2000);
      const seen = await sim.observe();
      expect(seen.slots).toEqual({ maxConnections: 100, superuserReserved: 3, reserved: 0 });
      const view = sim.view();
      expect(view.seats).toHaveLength(97);
      expect(view.seats.filter((s) => s.role === 'superuser').map((s) => s.name)).toEqual([
        'clerk',
        'sweeper',
      ]);
      expect(sim.state.workers.every((w) => w.status !== 'seating')).toBe(true);
      const refused = sim.events().filter((e) => e.type === 'session-refused');
      expect(refused.length).toBeGreaterThan(0);
      for (const e of refused) {
        expect(e).toMatchObject({
          role: 'ordinary',
          code: '53300',
          message: 'remaining connection slots are reserved for roles with the SUPERUSER attribute',
        });
      }
      expect(view.door.length).toBeGreaterThan(0);
      expect(view.door[0]!.message).toBe(
        'remaining connection slots are reserved for roles with the SUPERUSER attribute',
      );
      // The reserved seats are still there, for a superuser.
      const admin = await engine.openSession({ applicationName: 'admin', role: 'superuser' });
      await admin.close();
      await sim.stop();
    });
  });

  it('comes back to a checkpoint’s moment by replaying from the seed', async () => {
    let sim: CounterSim | undefined;
    const original = await onFreshEngine(async (engine) => {
      sim = await startCounterSim(engine, { ...busy, seed: 3, shape: 'claim-close' });
      const tick = await sim.step();
      expect(sim.state.clock.nowMs).toBe(100);
      expect(tick.every((e) => e.t > 0 && e.t <= 100)).toBe(true);
      await sim.advance(1900);
      await sim.killWorker('worker-01');
      await sim.advance(1000);
      await sim.setWorkers(2);
      await sim.setUploadRate(6);
      await sim.advance(1000);
      sim.setSpeed(4);
      sim.pause();
      expect(JSON.parse(JSON.stringify(sim.state))).toEqual(sim.state);
      const checkpoint = JSON.parse(JSON.stringify(sim.checkpoint()));
      const result = { checkpoint, events: [...sim.events()], state: structuredClone(sim.state) };
      await sim.stop();
      return result;
    });
    expect(original.checkpoint).toMatchObject({ atMs: 4000, speed: 4, paused: true });
    expect(original.checkpoint.script.map((e: { atMs: number }) => e.atMs)).toEqual([
      2000, 3000, 3000,
    ]);

    const progress: number[] = [];
    await onFreshEngine(async (engine) => {
      const restored = await restoreCounterSim(engine, original.checkpoint, (at) => {
        progress.push(at);
      });
      expect(restored.events()).toEqual(original.events);
      expect(restored.state).toEqual(original.state);
      await restored.stop();
    });
    expect(progress.at(-1)).toBe(4000);
    expect(progress).toHaveLength(40);
  });
});
