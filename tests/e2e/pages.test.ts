import { AxeBuilder } from '@axe-core/playwright';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSql, waitForEngine } from './console-driver';
import { distDir, firstResizeMessage, startSite } from './site';

/** Every page the build wrote, as a path under the site's base (`lab/`, `embed/console/`). */
function builtPages(dir = distDir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === '_astro' ? [] : builtPages(full);
    if (!name.endsWith('.html')) return [];
    const path = relative(distDir, full).split(sep).join('/');
    return [path === 'index.html' ? '' : path.replace(/index\.html$/, '')];
  });
}

const engineFile = /\.wasm$|\.data$|pgdata\.tar\.gz(\?|$)/;

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

  it('fits a 360 px wide phone without sideways scrolling', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    for (const path of ['', 'lab/', 'embed/console/']) {
      await page.goto(`${site.url}${path}`, { waitUntil: 'load' });
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect({ path, overflow }).toEqual({ path, overflow: 0 });
    }
    await page.close();
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
