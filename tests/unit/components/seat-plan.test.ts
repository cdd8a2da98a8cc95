// The embed builder's seat arithmetic against the engine itself: the slot settings it
// assumes are the engine's, the slots demo's asks seat exactly as many as the plan says,
// the counter seats its API as the plan says, and the teacher's link that left the API
// without a seat is named for what it is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterParameters } from '../../../src/components/counter-params';
import { slotsParameters } from '../../../src/components/demo-list';
import {
  counterAsks,
  defaultSlots,
  planSeats,
  seatVerdicts,
  slotsAsks,
  slotsConfigOf,
} from '../../../src/components/seat-plan';
import { defaultValues, readParams } from '../../../src/components/url-params';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import type { Engine } from '../../../src/engine/types';
import { startCounterSim } from '../../../src/sim/counter-sim';
import { readServerSlots, SlotsRun, startupOrder } from '../../../src/sim/slots';

const counter = (search: string) => readParams(counterParameters, search).values;
const slots = (search: string) => readParams(slotsParameters, search).values;

describe('planSeats', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createNodePgliteEngine();
  });
  afterAll(() => engine?.close());

  it('assumes the slot settings the engine starts with', async () => {
    const server = await readServerSlots(engine);
    expect({
      max: server.maxConnections,
      superuserReserved: server.superuserReserved,
      reserved: server.reserved,
    }).toEqual(defaultSlots);
  });

  it.each([
    '',
    '?workers=33',
    '?workers=20&connections=2&api=4&pool_size=20&max_overflow=20',
    '?workers=0&api=1',
  ])('seats the slots demo’s asks %s as the engine does', async (search) => {
    const values = slots(search);
    const config = slotsConfigOf(values);
    const run = new SlotsRun(engine);
    try {
      await run.askAll(startupOrder(config));
      const seatedBy = (prefix: string) =>
        run.outcomes.filter((o) => 'seat' in o && o.ask.process.startsWith(prefix)).length;
      const plan = planSeats(slotsAsks(values));
      expect({ workers: seatedBy('worker-'), api: seatedBy('api-') }).toEqual({
        workers: plan.workers.seated,
        api: plan.api.seated,
      });
    } finally {
      await run.close();
    }
  });

  it('names the link whose workers leave the API no seat, and not the article’s', () => {
    const bad = seatVerdicts(
      planSeats(counterAsks(counter('?workers=33&connections=3&shape=hold&api=2'))),
    );
    expect(bad.map((v) => v.kind)).toContain('api-without-seat');
    const article = planSeats(counterAsks(counter('?workers=30&connections=3&api=2')));
    expect(article.api.seated).toBe(4);
    expect(seatVerdicts(article).map((v) => v.kind)).not.toContain('api-without-seat');
    expect(seatVerdicts(planSeats(counterAsks(defaultValues(counterParameters))))).toEqual([
      { kind: 'everyone-seated' },
    ]);
  });

  it('seats the counter’s own sessions and workers as the counter does', async () => {
    const values = counter('?workers=32&connections=3&api=1');
    const plan = planSeats(counterAsks(values));
    const sim = await startCounterSim(engine, { workers: 32, connections: 3, api: 1 });
    try {
      const workerSeats = sim.state.seats.filter((s) => s.actor.startsWith('worker-')).length;
      expect(workerSeats).toBe(plan.workers.seated);
      expect(sim.state.seats).toHaveLength(defaultSlots.max - defaultSlots.superuserReserved);
    } finally {
      await sim.stop();
    }
  });
});
