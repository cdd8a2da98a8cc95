// Drives the scenario player to the end of its run, for the browser tests and the bench.
import type { Page } from 'playwright-core';

/**
 * Presses Next with `press` until the run has sent every step. A press may send several
 * steps (those chained to the one before), so each waits for the position to move on,
 * wherever it moves to. Returns the number of steps.
 */
export async function playToEnd(
  page: Page,
  demo: string,
  press: () => Promise<void>,
  timeout = 60_000,
): Promise<number> {
  const root = page.locator(`[data-demo="${demo}"]`);
  const of = Number(await root.getAttribute('data-of'));
  let at = Number(await root.getAttribute('data-step'));
  for (let presses = 0; at < of; presses++) {
    if (presses > of) throw new Error(`${of} presses of Next did not reach the last step`);
    await press();
    await page.waitForFunction(
      ({ demo, from }) => {
        const el = document.querySelector<HTMLElement>(`[data-demo="${demo}"]`);
        return el?.dataset.busy === 'no' && Number(el.dataset.step) > from;
      },
      { demo, from: at },
      { timeout },
    );
    at = Number(await root.getAttribute('data-step'));
  }
  return of;
}
