// Every chapter read top to bottom as a reader would, on a laptop and on a phone: each demo
// starts as it comes near, the page never scrolls sideways, and axe finds nothing.
import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chapterFiles } from '../support/chapter-files';
import { firstOutput } from '../support/first-output';
import { startSite } from './site';

const chapters = chapterFiles()
  .sort((a, b) => Number(a.frontmatter.order) - Number(b.frontmatter.order))
  .map((c) => c.id);

describe('the chapters, read top to bottom', () => {
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site?.close());

  it.each([
    [1280, 800],
    [360, 740],
  ])(
    'at %i × %i: every demo starts and shows PostgreSQL’s first output, nothing overflows, axe is clean',
    async (width, height) => {
      const page = await site.newPage({ width, height });
      const problems: string[] = [];
      for (const id of chapters) {
        await page.goto(`${site.url}chapters/${id}/`, { waitUntil: 'load' });
        const demos = await page.locator('[data-demo]').all();
        for (const demo of demos) {
          await demo.scrollIntoViewIfNeeded();
          const name = await demo.getAttribute('data-demo');
          try {
            await firstOutput(page, demo, name!);
          } catch (error) {
            problems.push(
              `${id}: ${name} showed no output (${(error as Error).message.split('\n')[0]})`,
            );
          }
        }
        await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
        const overflow = await page.evaluate(() => {
          const width = document.documentElement.clientWidth;
          const wide = [...document.querySelectorAll<HTMLElement>('body *')]
            .filter((el) => el.getBoundingClientRect().right > width + 0.5)
            .slice(-3)
            .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
          return { by: document.documentElement.scrollWidth - width, wide };
        });
        if (overflow.by > 0)
          problems.push(`${id}: ${overflow.by} px sideways (${overflow.wide.join(', ')})`);
        const { violations } = await new AxeBuilder({ page }).analyze();
        problems.push(...violations.map((v) => `${id}: ${v.id} (${v.nodes.length}) ${v.help}`));
      }
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it('marks a chapter read in the list once it has been opened', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}chapters/`, { waitUntil: 'load' });
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${site.url}chapters/${chapters[1]}/`, { waitUntil: 'load' });
    expect(await page.locator('a[rel="next"]').getAttribute('href')).toContain(chapters[2]);
    expect(await page.locator('a[rel="prev"]').getAttribute('href')).toContain(chapters[0]);
    await page.goto(`${site.url}chapters/`, { waitUntil: 'load' });
    const item = page.locator(`li[data-chapter="${chapters[1]}"]`);
    expect(await item.innerText()).toContain('(read)');
    expect(await page.locator(`li[data-chapter="${chapters[0]}"]`).innerText()).not.toContain(
      '(read)',
    );
    await page.close();
  });
});
