// How responsive a page stays while something happens: the largest gap between its
// animation frames, and the longest task on its main thread, from a Chrome trace.
//
// A gap between frames is the page's own work plus whatever else the machine runs: on a
// shared 2-core machine an idle page showed gaps of 180 ms while its longest task took 1 ms
// of CPU. So beside the gap, the trace gives each main-thread task's time on the CPU
// (`tdur`), which other processes do not stretch: the page's own part of a gap.
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { startGapSampling, stopGapSampling } from './console-driver';

/** What one measure saw, in ms. */
export interface Frames {
  /** The largest gap between animation frames. */
  gapMs: number;
  /** The longest task on a page's main thread, in that thread's CPU time. */
  taskCpuMs: number;
  /** The same task's wall time. */
  taskWallMs: number;
}

/** A trace event as Chrome writes it (the fields used here). */
interface TraceEvent {
  ph: string;
  name: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/** Starts measuring `page`: frames sampled in the page, tasks traced by Chrome. */
export async function measureFrames(page: Page): Promise<{ stop(): Promise<Frames> }> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', ({ value }) =>
    events.push(...(value as unknown as TraceEvent[])),
  );
  await cdp.send('Tracing.start', {
    categories: '__metadata,disabled-by-default-devtools.timeline',
    transferMode: 'ReportEvents',
  });
  await startGapSampling(page);
  return {
    async stop() {
      const gapMs = await stopGapSampling(page);
      const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
      await cdp.send('Tracing.end');
      await complete;
      await cdp.detach();
      // Renderers' main threads only: the engine's worker runs long tasks by design.
      const mains = new Set(
        events
          .filter((e) => e.ph === 'M' && e.name === 'thread_name')
          .filter((e) => e.args?.name === 'CrRendererMain')
          .map((e) => `${e.pid}:${e.tid}`),
      );
      let longest: TraceEvent | undefined;
      for (const e of events) {
        if (e.ph !== 'X' || e.name !== 'RunTask' || !mains.has(`${e.pid}:${e.tid}`)) continue;
        if ((e.tdur ?? 0) > (longest?.tdur ?? -1)) longest = e;
      }
      if (mains.size === 0 || !longest || longest.tdur === undefined) {
        throw new Error('the trace held no task of a page’s main thread with its CPU time');
      }
      return { gapMs, taskCpuMs: longest.tdur / 1000, taskWallMs: (longest.dur ?? 0) / 1000 };
    },
  };
}

/** The largest gap between `page`'s animation frames over `ms` in which it does nothing. */
export async function idleGap(page: Page, ms = 1000): Promise<number> {
  await startGapSampling(page);
  await page.waitForTimeout(ms);
  return stopGapSampling(page);
}

/** The budget for the page's own longest task, in CPU ms: a reader notices more. */
export const taskBudgetMs = 200;

/**
 * A gap between frames past which a page reads as frozen, whatever else the machine runs: a
 * statement that blocked the page would hold it for seconds.
 */
export const frozenGapMs = 1000;

/**
 * Holds what `measureFrames` saw to the page staying responsive: its own longest task
 * within `taskBudgetMs` of CPU, and no gap a reader would take for a frozen page. The gap
 * alone is not held to a frame's budget: on a shared 2-core machine it holds what other
 * processes do (gaps of 230 ms seen with the page's longest task at 30 ms of CPU).
 */
export function expectResponsive(frames: Frames, what: string): void {
  const seen = `${what} (gap ${frames.gapMs.toFixed(0)} ms, task ${frames.taskCpuMs.toFixed(0)} ms of CPU)`;
  expect(frames.taskCpuMs, `${seen}: the page's longest task`).toBeLessThan(taskBudgetMs);
  expect(frames.gapMs, `${seen}: the largest gap between frames`).toBeLessThan(frozenGapMs);
}
