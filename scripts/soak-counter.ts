// The counter at 8× in Node, driven in real time as the demo's loop drives it, with a console
// session running a statement every second beside it: what the page's data structures hold
// (the engine's journal and checkpoint, the sim's event log, the sessions and their waits)
// is sampled as it runs. `npm run soak` prints the figures; the test suite runs a short soak
// and checks they stay flat (tests/unit/soak.test.ts). Imported after scripts/resolve-ts.ts.
import { createNodePgliteEngine } from '../src/engine/pglite/node.ts';
import type { WorkerEngineOptions } from '../src/engine/pglite/worker-engine.ts';
import { maxTicksPerFrame, ticksOwed } from '../src/sim/clock.ts';
import { startCounterSim } from '../src/sim/counter-sim.ts';
import type { CounterSettings } from '../src/sim/settings.ts';

/** One sample of what the page's data structures hold. */
export interface SoakFigures {
  /** Simulated and real time since the counter started, in seconds. */
  simSeconds: number;
  realSeconds: number;
  journalEntries: number;
  journalBytes: number;
  checkpointBytes: number;
  checkpoints: number;
  pendingCalls: number;
  events: number;
  eventsDropped: number;
  sessions: number;
  waiting: number;
  consoleStatements: number;
  /** This thread's JavaScript heap, in MB (after a collection when `--expose-gc` is on). */
  heapMB: number;
}

export interface SoakOptions {
  /** Stops once this much simulated time has passed… */
  simulatedSeconds?: number;
  /** …or this much real time, whichever comes first. */
  realSeconds: number;
  speed?: number;
  settings?: Partial<CounterSettings>;
  engine?: WorkerEngineOptions;
  eventLogLimit?: number;
  /** How often a sample is taken, in real seconds. */
  sampleEverySeconds?: number;
  onSample?: (figures: SoakFigures) => void;
}

/** The console session's statements, one a second in turn. */
const consoleStatements = [
  'SELECT count(*) FROM jobs',
  'SELECT pid, state, backend_xid, backend_xmin FROM pg_stat_activity ORDER BY pid',
  'SELECT status, count(*) FROM jobs GROUP BY status ORDER BY status',
  'SELECT now()',
];

const frameMs = 1000 / 60;
const observeMs = 400;

/** Runs the soak; returns every sample, the first one taken once the counter runs. */
export async function soakCounter(options: SoakOptions): Promise<SoakFigures[]> {
  const engine = await createNodePgliteEngine({}, options.engine ?? {});
  const gc = (globalThis as { gc?: () => void }).gc;
  try {
    const sim = await startCounterSim(
      engine,
      { ...options.settings, speed: options.speed ?? 8 },
      { eventLogLimit: options.eventLogLimit },
    );
    const reader = await engine.openSession({ applicationName: 'console' });
    let statements = 0;
    const samples: SoakFigures[] = [];
    const started = performance.now();
    const sample = async (): Promise<SoakFigures> => {
      gc?.();
      const memory = engine.memory();
      const sessions = await engine.listSessions();
      const figures: SoakFigures = {
        simSeconds: sim.state.clock.nowMs / 1000,
        realSeconds: (performance.now() - started) / 1000,
        journalEntries: memory.journalEntries,
        journalBytes: memory.journalBytes,
        checkpointBytes: memory.checkpointBytes,
        checkpoints: memory.checkpoints,
        pendingCalls: memory.pending,
        events: sim.events().length,
        eventsDropped: sim.eventsDropped(),
        sessions: sessions.length,
        waiting: sessions.filter((s) => s.waitEventType === 'Lock').length,
        consoleStatements: statements,
        heapMB: Math.round(process.memoryUsage().heapUsed / 1e5) / 10,
      };
      samples.push(figures);
      options.onSample?.(figures);
      return figures;
    };
    await sample();
    let last = performance.now();
    let carry = 0;
    let observedAt = last;
    let consoleAt = last;
    let sampledAt = last;
    const sampleMs = (options.sampleEverySeconds ?? 10) * 1000;
    let consoleRun: Promise<unknown> = Promise.resolve();
    for (;;) {
      const now = performance.now();
      if (now - started >= options.realSeconds * 1000) break;
      if (sim.state.clock.nowMs >= (options.simulatedSeconds ?? Infinity) * 1000) break;
      await new Promise((resolve) => setTimeout(resolve, frameMs));
      const { ticks, carryMs } = ticksOwed(sim.state.clock, now - last, carry, maxTicksPerFrame);
      last = now;
      carry = carryMs;
      for (let i = 0; i < ticks; i++) await sim.step();
      if (now - observedAt >= observeMs) {
        await sim.observe();
        observedAt = performance.now();
      }
      // The reader's statement goes on beside the counter, as a console tab's would.
      if (now - consoleAt >= 1000) {
        consoleAt = now;
        const sql = consoleStatements[statements % consoleStatements.length]!;
        statements++;
        consoleRun = consoleRun.then(() => reader.query(sql)).catch(() => undefined);
      }
      if (now - sampledAt >= sampleMs) {
        sampledAt = now;
        await sample();
      }
    }
    await consoleRun;
    await sample();
    await sim.stop();
    return samples;
  } finally {
    await engine.close();
  }
}
