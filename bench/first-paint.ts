// What a page fetches before its first contentful paint, as on a reader's first visit: the
// page's own HTML and every resource whose fetch started before the paint, with their
// encoded sizes (as they crossed the network). The home page's figures and the chapters'.
import type { Page } from 'playwright-core';

/** One file fetched before the first paint, and its size on the network. */
export interface Fetched {
  url: string;
  bytes: number;
}

/** Loads `url` in `page` and lists what it fetched before its first contentful paint. */
export async function fetchedBeforeFirstPaint(page: Page, url: string): Promise<Fetched[]> {
  await page.goto(url, { waitUntil: 'load' });
  // Islands near the viewport start after the paint: give a late one time to show up.
  await page.waitForTimeout(1500);
  return page.evaluate(() => {
    const paint = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Infinity;
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceResourceTiming;
    const fetched = [{ url: nav.name, bytes: nav.encodedBodySize }];
    for (const r of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) {
      if (r.startTime < paint) fetched.push({ url: r.name, bytes: r.encodedBodySize });
    }
    return fetched;
  });
}

/** The bytes of `fetched`, or of those whose address `only` matches. */
export function bytesOf(fetched: Fetched[], only?: RegExp): number {
  return fetched.filter((f) => !only || only.test(f.url)).reduce((sum, f) => sum + f.bytes, 0);
}
