// Drives the SQL console the way a reader does: typing into the editor, pressing Run.
import type { Page } from 'playwright-core';

/** Waits until the demo on the page says its engine is ready. */
export async function waitForEngine(page: Page, timeout = 120_000): Promise<void> {
  await page.locator('[data-demo="console"][data-engine="ready"]').waitFor({ timeout });
}

/** Replaces the editor's text with `sql`. */
export async function typeSql(page: Page, sql: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'SQL' });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(sql);
}

/** How many runs the console has finished (it counts them in `data-runs`). */
export async function finishedRuns(page: Page): Promise<number> {
  return Number(await page.locator('[data-demo="console"]').getAttribute('data-runs'));
}

/** Waits until the console has finished more than `runs` runs. */
export async function runsAfter(page: Page, runs: number, timeout = 120_000): Promise<void> {
  await page.waitForFunction(
    (n) => Number(document.querySelector('[data-demo="console"]')?.getAttribute('data-runs')) > n,
    runs,
    { timeout },
  );
}

/** Waits until more than `runs` runs have finished; returns the Error region's text. */
export async function errorAfter(page: Page, runs: number, timeout = 120_000): Promise<string> {
  await runsAfter(page, runs, timeout);
  return page.getByRole('region', { name: 'Error' }).innerText();
}

/** Types `sql` and presses Run without waiting; returns the runs finished before it. */
export async function startRun(page: Page, sql: string): Promise<number> {
  const before = await finishedRuns(page);
  await typeSql(page, sql);
  await page.getByRole('button', { name: 'Run' }).click();
  return before;
}

/** Types `sql`, presses Run and waits for the answer; returns the Results region's text. */
export async function runSql(
  page: Page,
  sql: string,
  how: 'button' | 'keyboard' = 'button',
): Promise<string> {
  const before = await finishedRuns(page);
  await typeSql(page, sql);
  if (how === 'button') await page.getByRole('button', { name: 'Run' }).click();
  else await page.keyboard.press('ControlOrMeta+Enter');
  await runsAfter(page, before);
  return page.getByRole('region', { name: 'Results' }).innerText();
}

/** Starts recording the largest gap between animation frames: the page's responsiveness. */
export async function startGapSampling(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { maxGap: number; sampling: boolean };
    w.maxGap = 0;
    w.sampling = true;
    let last = performance.now();
    const tick = (now: number) => {
      w.maxGap = Math.max(w.maxGap, now - last);
      last = now;
      if (w.sampling) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/** Stops recording and returns the largest gap, in ms. */
export async function stopGapSampling(page: Page): Promise<number> {
  return page.evaluate(() => {
    const w = window as unknown as { maxGap: number; sampling: boolean };
    w.sampling = false;
    return w.maxGap;
  });
}

/** The tab whose label is `label` (its name also holds the state badge). */
export function tab(page: Page, label: string) {
  return page.getByRole('tab', { name: new RegExp(`^${label}\\b`) });
}

/** Opens a session in a new tab; it is selected at once. */
export async function newSession(page: Page, label: string): Promise<void> {
  await page.getByRole('button', { name: 'New session' }).click();
  await tab(page, label).waitFor();
  if ((await tab(page, label).getAttribute('aria-selected')) !== 'true') {
    throw new Error(`the new tab ${label} is not selected`);
  }
}

/** Waits until `label`'s tab shows `text` in its badge. */
export async function badgeShows(
  page: Page,
  label: string,
  text: string | RegExp,
  timeout = 10_000,
): Promise<string> {
  const badge = tab(page, label).locator('.session-badge');
  await badge.filter({ hasText: text }).waitFor({ timeout });
  return badge.innerText();
}
