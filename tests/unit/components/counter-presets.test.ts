// The counter's presets on the real simulation (PGlite in Node): each makes jobs flow; the
// article's deployment also shows the API refused at the door and the horizon pinned by a
// holding worker. And the teacher's link the builder warns about does leave the API
// without a seat: nothing is enqueued, and no job is done.
import { describe, expect, it } from 'vitest';
import { counterParameters, readCounterParams } from '../../../src/components/counter-params';
import { demos } from '../../../src/components/demo-list';
import { counterAsks, planSeats, seatVerdicts } from '../../../src/components/seat-plan';
import { paramsSearch, readParams } from '../../../src/components/url-params';
import { createNodePgliteEngine } from '../../../src/engine/pglite/node';
import { startCounterSim, type CounterSim } from '../../../src/sim/counter-sim';

const counter = demos.find((d) => d.id === 'counter')!;

/** Runs the counter for `ms` simulated on a fresh engine with the URL `search`. */
async function run(search: string, ms: number) {
  const engine = await createNodePgliteEngine();
  let sim: CounterSim | null = null;
  try {
    const { settings, reasons } = readCounterParams(search);
    expect(reasons).toEqual([]);
    sim = await startCounterSim(engine, settings);
    await sim.advance(ms);
    const events = [...sim.events()];
    return {
      events,
      clerk: sim.state.clerk,
      count: (type: string) => events.filter((e) => e.type === type).length,
    };
  } finally {
    await sim?.stop();
    await engine.close();
  }
}

describe('the counter’s presets', () => {
  it.each(counter.presets.map((p) => [p.id, p] as const))(
    '%s makes jobs flow, and the builder finds a seat for the API',
    async (_id, preset) => {
      const search = `?${paramsSearch(counterParameters, preset.values)}`;
      const verdicts = seatVerdicts(
        planSeats(counterAsks(readParams(counterParameters, search).values)),
      );
      expect(verdicts.map((v) => v.kind)).not.toContain('api-without-seat');
      const { count } = await run(search, 10_000);
      expect(count('upload-accepted')).toBeGreaterThan(0);
      expect(count('job-recorded')).toBeGreaterThan(0);
    },
  );

  it('the article’s deployment refuses the API at the door and pins the horizon', async () => {
    const preset = counter.presets.find((p) => p.id === 'article')!;
    const { events, clerk } = await run(
      `?${paramsSearch(counterParameters, preset.values)}`,
      15_000,
    );
    const refused = events.flatMap((e) => (e.type === 'session-refused' ? [e] : []));
    expect(refused.some((e) => e.actor.startsWith('api-') && e.code === '53300')).toBe(true);
    const pinned = clerk.filter((r) => r.notYetRemovable > 0);
    expect(pinned.length).toBeGreaterThan(0);
    expect(pinned.every((r) => r.heldBy?.startsWith('worker-'))).toBe(true);
  });

  it('workers=33&connections=3 leaves the API without a seat, as the builder says', async () => {
    const search = '?workers=33&connections=3&shape=hold&api=2';
    const verdicts = seatVerdicts(
      planSeats(counterAsks(readParams(counterParameters, search).values)),
    );
    expect(verdicts.map((v) => v.kind)).toContain('api-without-seat');
    const { events, count } = await run(search, 10_000);
    expect(count('upload-accepted')).toBe(0);
    expect(count('job-claimed')).toBe(0);
    expect(events.some((e) => e.type === 'session-refused' && e.actor.startsWith('api-'))).toBe(
      true,
    );
  });
});
