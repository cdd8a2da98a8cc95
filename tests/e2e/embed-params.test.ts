// The parameters every embed takes, in Chromium: theme=light|dark|auto, load=click and
// present=1, each on a real demo; a value a demo cannot use is named in it, and the demo
// goes on; and an embed tells its parent page when it is ready.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSql, waitForEngine } from './console-driver';
import { backgroundLuminance, firstMessage, startSite } from './site';

/** A button each demo shows once it has started, so its whole body is on the page. */
const startedButton: Record<string, string> = {
  console: 'Run',
  counter: 'Pause',
  'skip-locked': 'Next',
};

const engineFile = /\.wasm$|\.data$|pgdata\.tar\.gz(\?|$)/;

async function waitForDemo(page: Page, demo: string): Promise<void> {
  await page.locator(`[data-demo="${demo}"][data-engine="ready"]`).waitFor({ timeout: 120_000 });
  await page.getByRole('button', { name: startedButton[demo], exact: true }).waitFor();
}

describe('the parameters every embed takes', () => {
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site?.close());

  for (const demo of Object.keys(startedButton)) {
    it(`theme= forces /embed/${demo}/ light or dark, and axe finds nothing in either`, async () => {
      const found: string[] = [];
      for (const theme of ['light', 'dark'] as const) {
        const page = await site.newPage();
        // The reader's system says the opposite: the address must win.
        await page.emulateMedia({ colorScheme: theme === 'dark' ? 'light' : 'dark' });
        await page.goto(`${site.url}embed/${demo}/?theme=${theme}`);
        await waitForDemo(page, demo);
        const luminance = await backgroundLuminance(page);
        if (theme === 'dark') expect(luminance).toBeLessThan(0.05);
        else expect(luminance).toBeGreaterThan(0.9);
        const { violations } = await new AxeBuilder({ page }).analyze();
        found.push(...violations.map((v) => `${theme}: ${v.id} (${v.nodes.length}) ${v.help}`));
        await page.close();
      }
      expect(found).toEqual([]);
    });
  }

  it('follows the reader’s system when the address names no theme, as it changes', async () => {
    const page = await site.newPage();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${site.url}embed/console/`);
    expect(await backgroundLuminance(page)).toBeLessThan(0.05);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    expect(await backgroundLuminance(page)).toBeGreaterThan(0.9);
    await page.close();
  });

  it('with load=click fetches no engine file until Start is pressed, then starts', async () => {
    const page = await site.newPage();
    const engineRequests: string[] = [];
    page.on('request', (r) => {
      if (engineFile.test(r.url())) engineRequests.push(r.url());
    });
    await page.goto(`${site.url}embed/console/?load=click`, { waitUntil: 'load' });
    const start = page.getByRole('button', { name: /^Start PostgreSQL \(about \d+ MB\)$/ });
    await start.waitFor();
    await page.waitForTimeout(1500);
    expect(engineRequests).toEqual([]);
    expect(await page.locator('[data-demo="console"]').getAttribute('data-engine')).toBe('idle');

    await start.click();
    await waitForEngine(page);
    expect(engineRequests.length).toBeGreaterThanOrEqual(3);
    expect(await runSql(page, 'SELECT 6 * 7 AS answer')).toContain('42');
    await page.close();
  });

  it('with present=1 shows the demo larger', async () => {
    const heights: number[] = [];
    for (const search of ['', '?present=1']) {
      const page = await site.newPage();
      await page.goto(`${site.url}embed/console/${search}`);
      await waitForDemo(page, 'console');
      const hint = page.getByText('Ctrl+Enter or ⌘+Enter runs.');
      const run = page.getByRole('button', { name: 'Run', exact: true });
      // The hint's first letter, and the Run button, as drawn on screen.
      const letter = await hint.evaluate((element) => {
        const range = document.createRange();
        range.setStart(element.firstChild!, 0);
        range.setEnd(element.firstChild!, 1);
        return range.getBoundingClientRect().height;
      });
      heights.push(letter, (await run.boundingBox())!.height);
      await page.close();
    }
    const [hintBefore, runBefore, hintAfter, runAfter] = heights as [
      number,
      number,
      number,
      number,
    ];
    expect(hintAfter / hintBefore).toBeGreaterThan(1.25);
    expect(runAfter / runBefore).toBeGreaterThan(1.25);
  });

  it('names theme=purple in the demo in words, and the demo still runs', async () => {
    for (const demo of ['counter', 'skip-locked']) {
      const page = await site.newPage();
      await page.goto(`${site.url}embed/${demo}/?theme=purple`);
      await expect.poll(() => page.getByRole('note').innerText()).toContain('theme=purple');
      await waitForDemo(page, demo);
      if (demo === 'counter') {
        await page
          .locator('[data-demo="counter"][data-phase="running"]')
          .waitFor({ timeout: 60_000 });
      } else {
        await page.getByRole('button', { name: 'Next', exact: true }).click();
        await page.locator('[data-demo="skip-locked"][data-step="1"]').waitFor();
      }
      expect(await backgroundLuminance(page)).toBeGreaterThan(0.9);
      await page.close();
    }
  });

  it('tells its parent page once the console, the counter and a scenario are ready', async () => {
    for (const demo of ['console', 'counter', 'skip-locked']) {
      const page = await site.newPage();
      // A short page, so the embedded demo is in view and starts.
      await page.setContent('<!doctype html><title>A course page</title><main></main>');
      const message = await firstMessage(
        page,
        `${site.url}embed/${demo}/`,
        'seat-ledger:ready',
        demo,
      );
      expect(message).toEqual({ type: 'seat-ledger:ready', demo });
      await page.close();
    }
  });
});
