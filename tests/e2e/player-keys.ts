// Driving a demo by the keyboard alone, and reading what it shows: shared by the browser
// tests of the scenario demos.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { playToEnd } from './player-driver';

/** Waits until the demo is up and nothing is running. */
export async function idle(page: Page, demo: string): Promise<void> {
  await page
    .locator(`[data-demo="${demo}"][data-engine="ready"][data-busy="no"]`)
    .waitFor({ timeout: 120_000 });
}

/** Presses Tab until the button called `name` has the focus. */
export async function tabTo(page: Page, name: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent?.trim());
    if (focused === name) return;
  }
  throw new Error(`Tab never reached a button called ${name}`);
}

/** Presses Enter on the focused Next button until the run has sent every step. */
export async function playByKeyboard(page: Page, demo: string): Promise<number> {
  await idle(page, demo);
  await tabTo(page, 'Next');
  return playToEnd(page, demo, () => page.keyboard.press('Enter'));
}

/** The text of a session's lane, all its steps included. */
export async function lane(page: Page, session: string): Promise<string> {
  const region = page.getByRole('region', { name: `Session ${session}` });
  for (const details of await region.locator('details').all()) {
    await details.evaluate((d) => ((d as HTMLDetailsElement).open = true));
  }
  return region.innerText();
}

export async function axeViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.map((v) => `${v.id} (${v.nodes.length}) ${v.help}`);
}
