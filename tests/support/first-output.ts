// A demo's first output from PostgreSQL, as a reader sees it: used by the chapters'
// browser test and by `npm run measure`, which sizes each demo's placeholder from it.
import type { Locator, Page } from 'playwright-core';

/**
 * Waits for a demo's first output from PostgreSQL: a scenario's first step answered, the
 * console's first run, the counter's seats, the slot settings read from the server.
 */
export async function firstOutput(page: Page, demo: Locator, name: string): Promise<void> {
  const root = `[data-demo="${name}"]`;
  await page.locator(`${root}[data-engine="ready"]`).first().waitFor({ timeout: 120_000 });
  if ((await demo.locator('.player').count()) > 0) {
    await page.locator(`${root}[data-busy="no"]`).waitFor({ timeout: 120_000 });
    await demo.getByRole('button', { name: 'Next', exact: true }).click();
    await page.locator(`${root}[data-step="1"][data-busy="no"]`).waitFor({ timeout: 120_000 });
    await demo.locator('.step-box[data-step="1"] .step-state').first().waitFor();
  } else if (name === 'console') {
    await demo.getByRole('button', { name: 'Run' }).first().click();
    await page.locator(`${root}:not([data-runs="0"])[data-runs]`).waitFor({ timeout: 120_000 });
  } else if (name === 'counter') {
    // The picture's summary, from the sessions PostgreSQL reports.
    await demo.locator('[aria-label*=" seats taken"]').first().waitFor({ timeout: 120_000 });
  } else if (name === 'slots') {
    await demo.getByText(/max_connections \d+/).waitFor({ timeout: 120_000 });
  } else throw new Error(`no first output known for the demo ${name}`);
}
