// A short soak of the counter at 8× with a console session running a statement every
// second (scripts/soak-counter.ts; `npm run soak` runs it for an hour): what the page's data
// structures hold stays within bounds however long it runs, measured in what they hold,
// not in wall time. The limits are small here, so that two simulated minutes reach them.
import { describe, expect, it } from 'vitest';
import { soakCounter } from '../../scripts/soak-counter';

describe('a soak of the counter at 8×', () => {
  it(
    'keeps the journal, the event log, the sessions and the waits flat',
    { timeout: 900_000 },
    async () => {
      const limits = { after: { entries: 300, bytes: 1e9 }, anyway: { entries: 900, bytes: 1e9 } };
      const eventLogLimit = 300;
      const samples = await soakCounter({
        simulatedSeconds: 120,
        realSeconds: 720,
        engine: { checkpoints: limits },
        eventLogLimit,
        sampleEverySeconds: 2,
      });
      const last = samples.at(-1)!;
      expect(last.simSeconds).toBeGreaterThanOrEqual(60);
      expect(last.consoleStatements).toBeGreaterThan(10);
      // Checkpoints came, and the journal never held much more than the last limit.
      expect(last.checkpoints).toBeGreaterThanOrEqual(1);
      const warm = samples.filter((f) => f.simSeconds >= 20);
      expect(warm.length).toBeGreaterThan(5);
      for (const f of warm) {
        expect(f.journalEntries).toBeLessThanOrEqual(limits.anyway.entries + 300);
        expect(f.events).toBeLessThan(2 * eventLogLimit);
        // Four workers on one connection each, one API pool of 5 + 10, three of the counter's
        // own, and the console's.
        expect(f.sessions).toBeLessThanOrEqual(4 + 15 + 3 + 1);
        expect(f.waiting).toBeLessThanOrEqual(f.sessions);
        expect(f.pendingCalls).toBeLessThanOrEqual(5);
      }
      expect(last.eventsDropped).toBeGreaterThan(0);
    },
  );
});
