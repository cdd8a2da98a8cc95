// The chapters as a reader opens them: the bytes each fetches before its first paint (the
// largest over all chapters), and how many PostgreSQL engines one chapter starts once every
// demo on it has come into view (the largest; the goal is 1: demos on a page share one).
import type { Browser } from 'playwright-core';
import { chapterFiles } from '../tests/support/chapter-files.ts';
import { bytesOf, fetchedBeforeFirstPaint } from './first-paint.ts';

export async function benchChapters(browser: Browser, siteUrl: string): Promise<void> {
  let bytes = { most: 0, where: '' };
  let engines = { most: 0, where: '' };
  for (const { id } of chapterFiles()) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    // Counts the engine's workers as the page makes them: one per PGlite started (the
    // worker named `postgres`, client.ts; its download worker is not an engine).
    await page.addInitScript(() => {
      const Base = window.Worker;
      const counted = window as unknown as { engineWorkers: number };
      counted.engineWorkers = 0;
      window.Worker = class extends Base {
        constructor(url: string | URL, options?: WorkerOptions) {
          super(url, options);
          if (options?.name === 'postgres') counted.engineWorkers++;
        }
      };
    });
    const before = bytesOf(await fetchedBeforeFirstPaint(page, `${siteUrl}chapters/${id}/`));
    if (before > bytes.most) bytes = { most: before, where: id };
    for (const demo of await page.locator('[data-demo]').all()) {
      await demo.scrollIntoViewIfNeeded();
      const name = await demo.getAttribute('data-demo');
      await page
        .locator(`[data-demo="${name}"][data-engine="ready"]`)
        .first()
        .waitFor({ timeout: 120_000 });
    }
    const started = await page.evaluate(
      () => (window as unknown as { engineWorkers: number }).engineWorkers,
    );
    if (started > engines.most) engines = { most: started, where: id };
    await context.close();
  }
  console.log(`chapter-bytes-before-first-paint: ${bytes.most}  (${bytes.where})`);
  console.log(`chapter-engines-started: ${engines.most}  (${engines.where}; goal 1)`);
}
