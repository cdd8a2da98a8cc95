// The counter's load on the engine, measured in Node on PGlite through the session layer:
// the busiest counter (40 workers × 3 connections, 4 API processes) driven in real time
// at 8× as the demo's loop drives it. Prints how many statements the engine runs per
// simulated second, and how much of the asked-for speed the engine kept up with.
import '../scripts/resolve-ts.ts';
import type { Engine } from '../src/engine/types.ts';

const { createNodePgliteEngine } = await import('../src/engine/pglite/node.ts');
const { startCounterSim } = await import('../src/sim/counter-sim.ts');
const { maxTicksPerFrame, ticksOwed } = await import('../src/sim/clock.ts');

const frameMs = 1000 / 60;

/** Prints `engine-statements-per-sim-second` and `counter-speed-kept-at-8x`. */
export async function benchCounterSim(realSeconds = 20): Promise<void> {
  const engine = await createNodePgliteEngine();
  let statements = 0;
  const counting: Engine = {
    kind: engine.kind,
    close: () => engine.close(),
    async openSession(options) {
      const session = await engine.openSession(options);
      return {
        id: session.id,
        pid: session.pid,
        close: () => session.close(),
        query(sql, params) {
          statements++;
          return session.query(sql, params);
        },
      };
    },
  };
  const sim = await startCounterSim(counting, {
    workers: 40,
    connections: 3,
    api: 4,
    shape: 'hold',
    speed: 8,
  });
  statements = 0;
  const startSimMs = sim.state.clock.nowMs;
  const started = performance.now();
  let last = started;
  let carry = 0;
  while (performance.now() - started < realSeconds * 1000) {
    await new Promise((resolve) => setTimeout(resolve, frameMs));
    const now = performance.now();
    const { ticks, carryMs } = ticksOwed(sim.state.clock, now - last, carry, maxTicksPerFrame);
    last = now;
    carry = carryMs;
    for (let i = 0; i < ticks; i++) await sim.step();
  }
  const realMs = performance.now() - started;
  const simSeconds = (sim.state.clock.nowMs - startSimMs) / 1000;
  console.log(
    `engine-statements-per-sim-second: ${(statements / Math.max(simSeconds, 0.001)).toFixed(0)}`,
  );
  console.log(`engine-statements-per-real-second: ${((statements * 1000) / realMs).toFixed(0)}`);
  // 1.00 means simulated time ran at the full 8×; less, that the engine fell behind.
  console.log(`counter-speed-kept-at-8x: ${(simSeconds / ((realMs / 1000) * 8)).toFixed(2)}`);
  await sim.stop();
  await engine.close();
}
