// The counter drawn as a counter, in Chromium, on the lab page at the article's scene
// (30 hold workers × 3 connections, 2 API processes): the seats, the clerk, the door and
// the legend are on screen together at 1280 × 800, every session's label is whole, and
// the figure stays one short picture on a phone.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite } from './site';

const scene = 'lab/counter/?workers=30&shape=hold&connections=3&api=2';

/** Opens the scene and waits until the door has turned someone away. */
async function openScene(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(
    () =>
      /9\d of 100 seats taken/.test(
        document.querySelector('.counter-frame svg')?.getAttribute('aria-label') ?? '',
      ) && document.querySelectorAll('.counter-frame svg circle.door-figure').length > 0,
    undefined,
    { timeout: 120_000 },
  );
}

/** The viewport-relative boxes of the picture's seats, clerk and door sections. */
function sectionBoxes(page: Page) {
  return page.evaluate(() => {
    const svg = document.querySelector('.counter-frame svg')!;
    const box = (cls: string) => {
      const r = svg.querySelector(`g.${cls}`)!.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, height: r.height };
    };
    return {
      seats: box('seats-section'),
      clerk: box('clerk-section'),
      door: box('door-section'),
      legend: box('legend'),
      viewport: innerHeight,
    };
  });
}

describe('the counter picture', () => {
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site?.close());

  it('at 1280 × 800 shows the seats, the clerk and the door in one viewport, labels whole', async () => {
    const page = await site.newPage({ width: 1280, height: 800 });
    await openScene(page, `${site.url}${scene}`);
    await page.locator('.counter-frame svg').evaluate((svg) => svg.scrollIntoView());
    const boxes = await sectionBoxes(page);
    for (const name of ['seats', 'clerk', 'door'] as const) {
      const b = boxes[name];
      expect(b.height, name).toBeGreaterThan(0);
      expect(b.bottom, `${name} is above the viewport`).toBeGreaterThan(0);
      expect(b.top, `${name} is below the viewport`).toBeLessThan(boxes.viewport);
    }
    // The legend is read beside the seats: whole, on the same screen.
    expect(boxes.legend.top).toBeGreaterThanOrEqual(0);
    expect(boxes.legend.bottom).toBeLessThanOrEqual(boxes.viewport);

    // Each seat's label is the session's name after its process's, whole and inside its seat.
    const labels = await page.evaluate(() =>
      [...document.querySelectorAll('.counter-frame svg g.occupant:not(.leaving)')].map((g) => {
        const name = g.querySelector('title')!.textContent!.split(' (pid')[0]!;
        const label = g.querySelector<SVGTextElement>('text.name')!;
        return {
          name,
          label: label.textContent,
          squeezed: label.hasAttribute('textLength'),
          width: label.getComputedTextLength(),
          seat: Number(g.querySelector('rect.chair')!.getAttribute('width')),
        };
      }),
    );
    expect(labels.length).toBeGreaterThan(90);
    for (const l of labels) {
      const own = l.name.includes('/') ? l.name.slice(l.name.indexOf('/') + 1) : '';
      expect(l.label, l.name).toBe(own);
      expect(l.squeezed, l.name).toBe(false);
      expect(l.width, l.name).toBeLessThanOrEqual(l.seat + 1);
    }
    // The processes' names stand over their seats: worker-07's three seats under one label.
    const groups = await page.evaluate(() =>
      [...document.querySelectorAll('.counter-frame svg g.group-label text.group-name')].map(
        (t) => t.textContent,
      ),
    );
    expect(groups).toContain('worker-07');
    expect(groups.filter((g) => g === 'worker-07')).toHaveLength(1);
    await page.close();
  });

  it('at 360 × 740 is one figure no wider than the screen', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    await openScene(page, `${site.url}${scene}`);
    const size = await page.evaluate(() => {
      const r = document.querySelector('.counter-frame svg')!.getBoundingClientRect();
      return {
        left: r.left,
        right: r.right,
        height: r.height,
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      };
    });
    expect(size.left).toBeGreaterThanOrEqual(0);
    expect(size.right).toBeLessThanOrEqual(360);
    expect(size.overflow).toBe(0);
    // Seats, clerk and door in about two screens, not six.
    expect(size.height).toBeLessThan(2 * 740);
    await page.close();
  });
});
