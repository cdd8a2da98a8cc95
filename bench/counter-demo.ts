// The counter as a reader sees it: the real demo page with 40 workers × 3 connections and
// 4 API processes on PGlite in its worker, at 8×, measured by the gaps between animation
// frames beside a blank page in the same browser (the machine's own frame rhythm).
import type { Browser, Page } from 'playwright-core';

const busiest = 'embed/counter/?workers=40&connections=3&api=4&shape=hold&speed=8';

/** The 95th percentile of the gaps between animation frames over `ms`. */
export function frameGapP95(page: Page, ms: number): Promise<{ p95: number; frames: number }> {
  return page.evaluate(
    (duration) =>
      new Promise<{ p95: number; frames: number }>((resolve) => {
        const gaps: number[] = [];
        let last = performance.now();
        const end = last + duration;
        const tick = (now: number) => {
          gaps.push(now - last);
          last = now;
          if (now < end) requestAnimationFrame(tick);
          else {
            gaps.sort((a, b) => a - b);
            resolve({ p95: gaps[Math.floor(gaps.length * 0.95)]!, frames: gaps.length });
          }
        };
        requestAnimationFrame(tick);
      }),
    ms,
  );
}

/** Prints `counter-frame-p95-ms`, the blank page's figure, and their ratio. */
export async function benchCounterDemo(browser: Browser, siteUrl: string): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.setContent('<p>blank</p>');
  const blank = await frameGapP95(page, 4000);
  await page.goto(`${siteUrl}${busiest}`);
  await page.locator('[data-demo="counter"][data-phase="running"]').waitFor({ timeout: 180_000 });
  // Let the seats fill and the door open before measuring.
  await page.waitForFunction(
    () =>
      /9\d of 100 seats taken/.test(
        document.querySelector('.counter-frame svg')?.getAttribute('aria-label') ?? '',
      ),
    undefined,
    { timeout: 180_000 },
  );
  const demo = await frameGapP95(page, 8000);
  const seats = await page.locator('.counter-frame svg').getAttribute('aria-label');
  console.log(
    `counter-frame-p95-ms: ${demo.p95.toFixed(1)}  (the demo page at 40 workers × 3 connections, 4 API processes, 8×; frames: ${demo.frames}; ${seats?.split(';')[0]})`,
  );
  console.log(`blank-frame-p95-ms: ${blank.p95.toFixed(1)}`);
  console.log(`counter-frame-over-blank: ${(demo.p95 / blank.p95).toFixed(2)}`);
  await context.close();
}
