// The counter keeps its memory bounded: the event log holds the last events and counts the
// rest, and a replay to a moment can be cancelled part-way without leaving a session behind.
import { describe, expect, it } from 'vitest';
import { onFreshEngine } from '../../support/fresh-engine';
import {
  ReplayCancelled,
  restoreCounterSim,
  startCounterSim,
  type Checkpoint,
} from '../../../src/sim/counter-sim';
import { normaliseSettings } from '../../../src/sim/settings';

const busy = { workers: 3, api: 1, uploadRate: 4, workMinMs: 300, workMaxMs: 800, seed: 5 };

describe('the counter’s bounded memory', { timeout: 180_000 }, () => {
  it('keeps the last events of the log, and counts the ones it let go', async () => {
    const full = await onFreshEngine(async (engine) => {
      const sim = await startCounterSim(engine, busy);
      await sim.advance(3000);
      await sim.stop();
      return [...sim.events()];
    });
    await onFreshEngine(async (engine) => {
      const sim = await startCounterSim(engine, busy, { eventLogLimit: 20 });
      const beforeSteps = sim.eventsDropped() + sim.events().length;
      const ticks: number[] = [];
      while (sim.state.clock.nowMs < 3000) ticks.push((await sim.step()).length);
      await sim.stop();
      const kept = sim.events();
      expect(full.length).toBeGreaterThan(60);
      expect(kept.length).toBeLessThan(40);
      expect(sim.eventsDropped() + kept.length).toBe(full.length);
      expect(kept).toEqual(full.slice(-kept.length));
      // Each step still returned its own tick's events, trimmed log or not.
      expect(ticks.reduce((a, b) => a + b, 0)).toBe(full.length - beforeSteps);
    });
  });

  it('cancels a replay to a moment part-way, and leaves no session of it on the engine', async () => {
    const moment: Checkpoint = {
      version: 1,
      settings: normaliseSettings(busy).settings,
      script: [],
      atMs: 600_000,
      speed: 1,
      paused: false,
    };
    await onFreshEngine(async (engine) => {
      const controller = new AbortController();
      let ticks = 0;
      const replay = restoreCounterSim(
        engine,
        moment,
        () => {
          if (++ticks === 5) controller.abort();
        },
        { signal: controller.signal },
      );
      await expect(replay).rejects.toBeInstanceOf(ReplayCancelled);
      expect(ticks).toBe(5);
      const observer = await engine.openSession({ applicationName: 'observer' });
      const { results } = await observer.query(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name <> 'observer'",
      );
      expect(results[0]!.rows).toEqual([['0']]);
    });
  });
});
