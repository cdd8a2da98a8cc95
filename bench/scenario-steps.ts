// The scenario player as a reader sees it: every step of every scenario demo, each choice
// played once, timed from Next (or from the end of a step's delay) to the step's output
// on screen; beside it, the same statements typed into the console in the same browser.
import { readdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import '../scripts/resolve-ts.ts';
import { runSql, waitForEngine } from '../tests/e2e/console-driver.ts';
import { playToEnd } from '../tests/e2e/player-driver.ts';

const { loadScenario, scenarioIds } = await import('../src/scenario/load.ts');
const { defaultSelection, everyChoice, isRecorded, planSteps } =
  await import('../src/scenario/plan.ts');

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
};

/** The step times (ms) a page measured, and whether each step was seen waiting. */
function stepMeasures(page: Page): Promise<{ ms: number; waited: boolean }[]> {
  return page.evaluate(() =>
    performance.getEntriesByName('seat-ledger:step').map((m) => ({
      ms: m.duration,
      waited: (m as PerformanceMeasure).detail?.waited === true,
    })),
  );
}

/** Plays one scenario run to its end by pressing Next, and returns its step times. */
async function playRun(page: Page, url: string, demo: string) {
  await page.goto(url);
  await page
    .locator(`[data-demo="${demo}"][data-engine="ready"][data-busy="no"]`)
    .waitFor({ timeout: 120_000 });
  await playToEnd(page, demo, () => page.getByRole('button', { name: 'Next' }).click(), 120_000);
  return stepMeasures(page);
}

/** Prints `scenario-step-p95-ms` and `scenario-step-over-console`. */
export async function benchScenarioSteps(browser: Browser, siteUrl: string): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const free: number[] = [];
  const waited: number[] = [];
  const statements: string[] = [];
  let runs = 0;
  for (const id of scenarioIds()) {
    const scenario = loadScenario(id);
    for (const choices of everyChoice(scenario)) {
      const selection = { ...defaultSelection(scenario), choices };
      if (isRecorded(scenario, selection)) continue;
      const query = new URLSearchParams(choices);
      for (const p of scenario.parameters)
        if (p.test !== undefined) query.set(p.id, String(p.test));
      const measures = await playRun(page, `${siteUrl}embed/${id}/?${query}`, id);
      runs++;
      for (const m of measures) (m.waited ? waited : free).push(m.ms);
      if (id === 'skip-locked' && statements.length === 0) {
        statements.push(...planSteps(scenario, selection).map((s) => s.sql));
      }
    }
  }
  // The same statements through the console, one run each, on its one session.
  await page.goto(`${siteUrl}embed/console/`);
  await waitForEngine(page);
  const setup = [loadScenario('skip-locked').setup].flat();
  await runSql(page, setup.map((b) => (typeof b === 'string' ? b : b.sql)).join(';\n'));
  await page.evaluate(() => performance.clearMeasures('seat-ledger:console-run'));
  for (const sql of statements) await runSql(page, sql);
  const consoleMs = await page.evaluate(() =>
    performance.getEntriesByName('seat-ledger:console-run').map((m) => m.duration),
  );
  const all = [...free, ...waited];
  console.log(
    `scenario-step-p95-ms: ${percentile(free, 0.95).toFixed(1)}  (steps that do not wait: ${free.length} over ${runs} runs of ${readdirSync('content/scenarios').length} scenarios; median ${percentile(free, 0.5).toFixed(1)})`,
  );
  console.log(
    `scenario-step-p95-ms-all: ${percentile(all, 0.95).toFixed(1)}  (with the ${waited.length} steps shown waiting)`,
  );
  console.log(
    `console-run-median-ms: ${percentile(consoleMs, 0.5).toFixed(1)}  (the skip-locked statements typed into the console, ${consoleMs.length} runs)`,
  );
  console.log(
    `scenario-step-over-console: ${(percentile(free, 0.5) / percentile(consoleMs, 0.5)).toFixed(2)}  (median step over median console run)`,
  );
  await context.close();
}
