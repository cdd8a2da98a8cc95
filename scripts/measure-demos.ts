// `npm run measure`: opens every demo's page in the built site (dist/, so run `npm run
// build` first) at a phone's, a tablet's and a laptop's width, waits for its first
// output from PostgreSQL, and writes the demo's height to src/components/demo-heights.json.
// A demo's placeholder takes that height, so the page does not jump when the demo starts;
// tests/e2e/demos.test.ts fails when a height has drifted, and says to run this again.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import './resolve-ts.ts';

const { demos } = await import('../src/components/demo-list.ts');
const { startSite } = await import('../tests/e2e/site.ts');
const { firstOutput } = await import('../tests/support/first-output.ts');
const { measuredWidths } = await import('../src/components/demo-heights.ts');

const site = await startSite();
const heights: Record<string, Record<string, number>> = {};
try {
  for (const demo of demos) {
    heights[demo.id] = {};
    for (const [width, height] of measuredWidths) {
      const page = await site.newPage({ width, height });
      await page.goto(`${site.url}demos/${demo.id}/`);
      const root = page.locator(`[data-demo="${demo.id}"]`).first();
      await root.scrollIntoViewIfNeeded();
      await firstOutput(page, root, demo.id);
      // The demo's own height: the placeholder's min-height (the last measure) must not hold it up.
      const measured = await root.evaluate((el) => {
        (el as HTMLElement).style.minHeight = '0';
        return Math.round(el.getBoundingClientRect().height);
      });
      heights[demo.id]![String(width)] = measured;
      console.log(`${demo.id} at ${width} px: ${measured} px`);
      await page.close();
    }
  }
} finally {
  await site.close();
}
const file = path.join(process.cwd(), 'src', 'components', 'demo-heights.json');
writeFileSync(file, `${JSON.stringify(heights, null, 2)}\n`);
console.log(`measure: wrote ${file}`);
