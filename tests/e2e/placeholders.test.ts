// A demo keeps its place while PostgreSQL starts: its placeholder (what the page shows
// before the island runs) is as tall as the demo once it shows its first output, on a
// phone and on a laptop, so nothing below it jumps when it appears.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demos } from '../../src/components/demo-list';
import { firstOutput } from '../support/first-output';
import { startSite } from './site';

/** How far a placeholder may be from the demo it stands for, as a share of the demo. */
const TOLERANCE = 0.2;

describe('demo placeholders', () => {
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site?.close());

  it.each([
    [1280, 800],
    [360, 740],
  ])('at %i × %i each placeholder is the height of its demo', async (width, height) => {
    const off: string[] = [];
    for (const { id } of demos) {
      const url = `${site.url}demos/${id}/`;
      // The page as its HTML draws it: no script runs, so the placeholder stays.
      const still = await site.newPage({ width, height });
      await still.route('**/*.js', (route) => route.abort());
      await still.goto(url);
      const root = still.locator(`[data-demo="${id}"]`).first();
      const placeholder = await root.evaluate((el) => el.getBoundingClientRect().height);
      await still.close();

      const live = await site.newPage({ width, height });
      await live.goto(url);
      const demo = live.locator(`[data-demo="${id}"]`).first();
      await demo.scrollIntoViewIfNeeded();
      await firstOutput(live, demo, id);
      // The demo's own height, not held up by the placeholder's min-height it keeps.
      const shown = await demo.evaluate((el) => {
        (el as HTMLElement).style.minHeight = '0';
        return el.getBoundingClientRect().height;
      });
      await live.close();

      if (Math.abs(placeholder - shown) > TOLERANCE * shown) {
        off.push(
          `${id}: placeholder ${Math.round(placeholder)} px, demo ${Math.round(shown)} px (run npm run measure)`,
        );
      }
    }
    expect(off).toEqual([]);
  });
});
