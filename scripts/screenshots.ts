// `npm run screenshots`: pictures of the site for a reviewer's eyes, into screenshots/
// (git-ignored). It builds the site when dist/ is missing, serves it on loopback, and
// shows the counter at the article's scene (30 hold workers × 3 connections, 2 API
// processes) once its seats are full and the door has refused someone, then a few other
// pages, each in the light and the dark theme at a laptop's and a phone's size.
// `npm run screenshots -- counter teach` takes only the shots whose names contain a word.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import './resolve-ts.ts';

const root = process.cwd();
const dist = path.join(root, 'dist');
const out = path.join(root, 'screenshots');

if (!existsSync(path.join(dist, 'index.html'))) {
  console.log('screenshots: dist/ is missing, building the site first');
  execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
}

const { startSite } = await import('../tests/e2e/site.ts');
const { firstOutput } = await import('../tests/support/first-output.ts');

interface Shot {
  name: string;
  path: string;
  /** Waits until the page shows what the shot is for. */
  ready?: (page: Page) => Promise<void>;
  /** The whole page, not only the first screen. */
  fullPage?: boolean;
}

/** The counter's seats are taken and the door shows the FATAL it answered. */
async function counterFull(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      /9\d of 100 seats taken/.test(
        document.querySelector('.counter-frame svg')?.getAttribute('aria-label') ?? '',
      ) &&
      [...document.querySelectorAll('.counter-frame svg text.door-fatal')].some((t) =>
        t.textContent?.includes('FATAL'),
      ),
    undefined,
    { timeout: 120_000 },
  );
  // A few simulated seconds more, so ledger pages have an age and the clerk a pile.
  await page.waitForTimeout(4000);
  await page.locator('.counter-frame').evaluate((el) => el.scrollIntoView({ block: 'start' }));
}

/** The page's first demo has started and shows PostgreSQL's first output. */
async function demoShown(page: Page): Promise<void> {
  const demo = page.locator('[data-demo]').first();
  await demo.scrollIntoViewIfNeeded();
  // An exercise has no first output of its own: its engine being ready is enough.
  await firstOutput(page, demo, (await demo.getAttribute('data-demo'))!).catch((e: Error) => {
    if (!e.message.startsWith('no first output known')) throw e;
  });
  await page.waitForTimeout(1000);
  // The demo at the top of the screen. (A whole-page capture would resize the window for a
  // moment, and a picture drawn for its width would be caught redrawing.)
  await demo.evaluate((el) => el.scrollIntoView({ block: 'start' }));
}

/** A scenario player has played its first step. */
async function firstStep(page: Page): Promise<void> {
  const demo = page.locator('[data-demo][data-engine]').first();
  await demo.scrollIntoViewIfNeeded();
  await page.locator('[data-demo][data-busy="no"]').first().waitFor({ timeout: 120_000 });
  await page.getByRole('button', { name: 'Next', exact: true }).first().click();
  await page.locator('[data-demo][data-step="1"][data-busy="no"]').first().waitFor({
    timeout: 120_000,
  });
  await demo.evaluate((el) => el.scrollIntoView({ block: 'start' }));
}

const shots: Shot[] = [
  {
    name: 'counter',
    path: 'lab/counter/?workers=30&shape=hold&connections=3&api=2',
    ready: counterFull,
  },
  { name: 'home', path: '' },
  { name: 'chapter-1', path: 'chapters/forty-minutes/', fullPage: true },
  { name: 'chapter-1-demo', path: 'chapters/forty-minutes/', ready: demoShown },
  { name: 'chapter-6', path: 'chapters/a-connection-is-not-a-transaction/' },
  { name: 'horizon', path: 'demos/horizon/?state=rc-update', ready: firstStep },
  { name: 'teach', path: 'teach/', fullPage: true },
  { name: 'demo-counter', path: 'demos/counter/', ready: demoShown },
  { name: 'exercise', path: 'exercises/free-dead-tuples/', ready: demoShown },
  {
    name: 'scenario-lab',
    path: 'lab/scenario/',
    ready: (page) => page.locator('.lab-scenario').waitFor({ timeout: 60_000 }),
    fullPage: true,
  },
];

const sizes = [
  { label: '1280x800', width: 1280, height: 800 },
  { label: '360x740', width: 360, height: 740 },
];

const wanted = process.argv.slice(2);
mkdirSync(out, { recursive: true });
const site = await startSite();
try {
  for (const shot of shots.filter(
    (s) => !wanted.length || wanted.some((w) => s.name.includes(w)),
  )) {
    for (const size of sizes) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const page = await site.newPage(size);
        await page.emulateMedia({ colorScheme });
        await page.goto(`${site.url}${shot.path}`, { waitUntil: 'load' });
        await shot.ready?.(page);
        const file = path.join(out, `${shot.name}-${size.label}-${colorScheme}.png`);
        await page.screenshot({ path: file, fullPage: shot.fullPage ?? false });
        console.log(`screenshots: ${path.relative(root, file)}`);
        await page.close();
      }
    }
  }
} finally {
  await site.close();
}
