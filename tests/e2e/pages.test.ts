import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { themeStorageKey } from '../../src/components/theme';
import { runSql, waitForEngine } from './console-driver';
import type { Page } from 'playwright-core';
import { backgroundLuminance, builtPages, firstResizeMessage, startSite } from './site';

const engineFile = /\.wasm$|\.data$|pgdata\.tar\.gz(\?|$)/;

/** A test that opens every page, one after another, demos starting: minutes on a busy machine. */
const everyPage = 600_000;

/** Opens `path` and waits until the islands that hydrate at load have drawn themselves. */
async function open(page: Page, url: string): Promise<void> {
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(
    () => document.querySelectorAll('astro-island[ssr][client="load"]').length === 0,
    undefined,
    { timeout: 30_000 },
  );
}

/** How far the page scrolls sideways, in px: 0 when it fits its window. */
const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('the built site', () => {
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site?.close());

  it('fetches no engine byte until a chapter’s demo nears the viewport', async () => {
    const page = await site.newPage();
    const engineRequests: string[] = [];
    page.on('request', (r) => {
      if (engineFile.test(r.url())) engineRequests.push(r.url());
    });
    await page.goto(`${site.url}chapters/a-job-is-a-row/`, { waitUntil: 'load' });
    const demo = page.locator('[data-demo="console"]');
    await page.waitForTimeout(1500);
    expect(await demo.getAttribute('data-engine')).toBe('idle');
    expect(engineRequests).toEqual([]);
    await demo.scrollIntoViewIfNeeded();
    await waitForEngine(page);
    expect(engineRequests.length).toBeGreaterThanOrEqual(3);
    await page.close();
  });

  it('makes no request that leaves its own origin', async () => {
    const page = await site.newPage();
    const foreign: string[] = [];
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(site.origin) && !/^(data|blob):/.test(url)) foreign.push(url);
    });
    for (const path of builtPages()) {
      await page.goto(`${site.url}${path}`, { waitUntil: 'load' });
    }
    await page.goto(`${site.url}lab/`);
    await waitForEngine(page);
    await runSql(page, 'SELECT 1');
    expect(foreign).toEqual([]);
    await page.close();
  });

  it('builds the pages a reader and a teacher need', () => {
    expect(builtPages()).toEqual(expect.arrayContaining(['', 'lab/', 'demos/', 'embed/console/']));
  });

  it.each(['light', 'dark'] as const)(
    'has no axe violations on any page, nor on the console showing results, in %s mode',
    async (colorScheme) => {
      const page = await site.newPage();
      await page.emulateMedia({ colorScheme });
      const violations: string[] = [];
      for (const path of builtPages()) {
        await page.goto(`${site.url}${path}`, { waitUntil: 'load' });
        const theme = await page.evaluate(() => document.documentElement.dataset.theme);
        if (theme !== colorScheme) violations.push(`/${path}: drawn in the ${theme} theme`);
        const { violations: found } = await new AxeBuilder({ page }).analyze();
        violations.push(...found.map((v) => `/${path}: ${v.id} (${v.nodes.length}) ${v.help}`));
      }
      await page.goto(`${site.url}lab/`);
      await waitForEngine(page);
      await runSql(
        page,
        'CREATE TABLE a (id int); INSERT INTO a VALUES (1), (NULL); SELECT * FROM a; VACUUM (VERBOSE) a; SELEC',
      );
      const { violations: withOutput } = await new AxeBuilder({ page }).analyze();
      violations.push(...withOutput.map((v) => `/lab/ with output: ${v.id} ${v.help}`));
      expect(violations).toEqual([]);
      await page.close();
    },
    everyPage,
  );

  it('remembers the theme a reader picks in the header, and auto follows the system', async () => {
    const page = await site.newPage();
    await page.emulateMedia({ colorScheme: 'light' });
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
    await page.goto(`${site.url}chapters/`);
    const choice = page.getByRole('combobox', { name: 'Theme' });
    await choice.selectOption('dark');
    await expect.poll(theme).toBe('dark');
    await page.goto(`${site.url}lab/`);
    await expect.poll(theme).toBe('dark');
    await expect.poll(() => choice.inputValue()).toBe('dark');
    await choice.selectOption('auto');
    await expect.poll(theme).toBe('light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(theme).toBe('dark');
    await page.close();
  });

  it(
    'fits a 360 px wide phone without sideways scrolling, on every page',
    async () => {
      const page = await site.newPage({ width: 360, height: 740 });
      const wide: { path: string; overflow: number }[] = [];
      for (const path of builtPages()) {
        await open(page, `${site.url}${path}`);
        const overflow = await sidewaysOverflow(page);
        if (overflow !== 0) wide.push({ path, overflow });
      }
      expect(wide).toEqual([]);
      await page.close();
    },
    everyPage,
  );

  it(
    'draws every page on a dark ground when the system asks for dark, and every embed with theme=dark',
    async () => {
      const light: string[] = [];
      const dark = await site.newPage();
      await dark.emulateMedia({ colorScheme: 'dark' });
      // The embeds are asked in words, on a system that prefers light.
      const asked = await site.newPage();
      await asked.emulateMedia({ colorScheme: 'light' });
      // The ground does not wait for PostgreSQL: no engine starts, and no saved choice counts.
      for (const page of [dark, asked]) await page.route(engineFile, (route) => route.abort());
      await asked.goto(`${site.url}chapters/`);
      await asked.evaluate((key) => localStorage.removeItem(key), themeStorageKey);
      for (const path of builtPages()) {
        await open(dark, `${site.url}${path}`);
        const ground = await backgroundLuminance(dark);
        if (ground > 0.05) light.push(`/${path}: luminance ${ground.toFixed(2)}`);
        if (path.startsWith('embed/')) {
          await open(asked, `${site.url}${path}?theme=dark`);
          const embedGround = await backgroundLuminance(asked);
          if (embedGround > 0.05) light.push(`/${path}?theme=dark: ${embedGround.toFixed(2)}`);
        }
      }
      expect(builtPages().filter((p) => p.startsWith('embed/')).length).toBeGreaterThan(10);
      expect(light).toEqual([]);
      // And light is light: the check can tell the two apart.
      await open(asked, `${site.url}chapters/`);
      expect(await backgroundLuminance(asked)).toBeGreaterThan(0.9);
      await dark.close();
      await asked.close();
    },
    everyPage,
  );

  it('lets a chapter’s demo break out of the text column, and keeps text at reading width', async () => {
    const measure = (page: Page) =>
      page.evaluate(() => {
        const width = (el: Element | null) => el?.getBoundingClientRect().width ?? 0;
        const prose = document.querySelector('.chapter > p:not(.chapter-meta)');
        return {
          prose: width(prose),
          figure: width(document.querySelector('.chapter .demo[data-demo="counter"]')),
          window: document.documentElement.clientWidth,
          fontSize: parseFloat(getComputedStyle(prose!).fontSize),
        };
      });
    const laptop = await site.newPage({ width: 1280, height: 800 });
    await open(laptop, `${site.url}chapters/forty-minutes/`);
    const wide = await measure(laptop);
    // Text at a reading width: at most about 85 characters a line.
    expect(wide.prose / wide.fontSize).toBeLessThanOrEqual(44);
    expect(wide.figure).toBeGreaterThan(wide.prose * 1.5);
    expect(wide.figure).toBeLessThanOrEqual(wide.window);
    const phone = await site.newPage({ width: 360, height: 740 });
    await open(phone, `${site.url}chapters/forty-minutes/`);
    const narrow = await measure(phone);
    // On a phone the figure is as wide as the text, which is the screen less its margins.
    expect(narrow.figure).toBe(narrow.prose);
    expect(narrow.figure).toBeGreaterThan(narrow.window - 32);
    await laptop.close();
    await phone.close();
  });

  it('an embedded console tells its parent page its height', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}demos/`);
    const message = await firstResizeMessage(page, `${site.url}embed/console/`, 'console');
    expect(message).toMatchObject({ type: 'seat-ledger:resize', demo: 'console' });
    expect((message as { height: number }).height).toBeGreaterThan(100);
    await page.close();
  });
});
