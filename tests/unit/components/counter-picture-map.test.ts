import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterPicture } from '../../../src/components/counter-picture-map';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import type { Engine } from '../../../src/engine/types';
import { startCounterSim, type CounterSim } from '../../../src/sim/counter-sim';

describe('counterPicture: the sim and the engine’s observation, as the picture’s input', () => {
  let engine: Engine;
  let sim: CounterSim;

  beforeAll(async () => {
    engine = await createNodePgliteEngine();
    sim = await startCounterSim(engine, {
      workers: 2,
      api: 0,
      shape: 'hold',
      initialJobs: 4,
      workMinMs: 60_000,
      workMaxMs: 60_000,
    });
    await sim.advance(3000);
  });
  afterAll(async () => {
    await sim.stop();
    await engine.close();
  });

  it('gives nothing to draw before the engine was asked', () => {
    expect(counterPicture(sim.view(), null)).toBeNull();
  });

  it('seats every session with its real state and XID, and marks the horizon at the oldest', async () => {
    const observation = await sim.observe();
    const picture = counterPicture(sim.view(), observation)!;
    expect(picture.maxConnections).toBe(100);
    expect(picture.superuserReserved).toBe(3);
    const workers = picture.seats.filter((s) => s.role === 'worker');
    expect(workers.map((s) => s.name)).toEqual(['worker-01/claim', 'worker-02/claim']);
    for (const w of workers) {
      expect(w.state).toBe('idle in transaction');
      expect(w.xid).toMatch(/^\d+$/);
      expect(w.xactAgeMs).toBeGreaterThan(0);
    }
    const oldest = workers.map((w) => w.xid!).sort((a, b) => Number(a) - Number(b))[0];
    expect(picture.clerk.horizonXid).toBe(oldest);
    expect(picture.clerk.horizonPid).toBe(workers.find((w) => w.xid === oldest)!.pid);
    expect(picture.clerk.deadTuples).toBeGreaterThan(0);
  });

  it('draws the reader’s sessions as the reader’s, and others as others', async () => {
    const reader = await engine.openSession({ applicationName: 'reader' });
    const you = await engine.openSession({ applicationName: 'you' });
    const stranger = await engine.openSession({ applicationName: 'psql' });
    const observation = await sim.observe();
    const picture = counterPicture(sim.view(), observation, new Set([reader.pid]))!;
    const seat = (pid: number) => picture.seats.find((s) => s.pid === pid);
    expect(seat(reader.pid)).toMatchObject({ name: 'reader', role: 'you', state: 'idle' });
    expect(seat(you.pid)).toMatchObject({ name: 'you', role: 'you' });
    expect(seat(stranger.pid)).toMatchObject({ name: 'psql', role: 'other' });
    for (const s of [reader, you, stranger]) await s.close();
  });
});
