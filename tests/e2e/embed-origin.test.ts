// Every demo embedded as a teacher embeds it: the snippet the builder generates, pasted into
// a page served from another origin (another loopback port), with load=click, theme=dark
// and present=1, once as it is and once in a sandboxed iframe. Before the click nothing of
// the engine is fetched; the snippet applies the demo's resize messages; the demo is dark;
// a scenario demo reports its steps, and steps from the keyboard in presenter mode.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demos } from '../../src/components/demo-list';
import { embedSnippet, snippetBounds } from '../../src/components/embed-snippet';
import { serveStatic, type StaticServer } from '../support/static-server';
import { backgroundLuminance, startSite } from './site';

/** What the engine downloads: PGlite's WASM and file bundle, the data directory, the worker. */
const engineFile = /\.wasm$|\.data$|pgdata\.tar\.gz$|\/worker-[^/]*\.js$/;

interface Seen {
  type?: string;
  demo?: string;
  height?: number;
  step?: number;
  of?: number;
}

/** A course page on its own origin: a heading, the snippet, and a log of what the frame posts. */
function coursePage(snippet: string): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A course page</title>',
    '<script>window.seen = []; addEventListener("message", (e) => window.seen.push(e.data));</script>',
    '</head><body><main style="max-width:760px;margin:0 auto"><h1>Week 3: job queues</h1>',
    snippet,
    '</main></body></html>',
  ].join('\n');
}

const seen = (page: Page) => page.evaluate(() => (window as unknown as { seen: Seen[] }).seen);

/** Waits until the iframe's height is the last height its demo reported, within bounds. */
async function resizeApplied(page: Page, demo: string): Promise<number> {
  let applied = 0;
  await expect
    .poll(
      async () => {
        const last = (await seen(page)).filter(
          (m) => m?.type === 'seat-ledger:resize' && m.demo === demo,
        );
        const height = last.at(-1)?.height;
        if (height === undefined) return 'no resize message yet';
        const want = Math.min(snippetBounds.max, Math.max(snippetBounds.min, Math.ceil(height)));
        applied = want;
        return page.locator('iframe').evaluate((f, w) => f.style.height === `${w}px`, want);
      },
      { timeout: 60_000 },
    )
    .toBe(true);
  return applied;
}

describe('every demo embedded on another origin', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let course: StaticServer;
  let dir: string;

  beforeAll(async () => {
    site = await startSite();
    dir = await mkdtemp(join(tmpdir(), 'seat-ledger-course-'));
    course = await serveStatic(dir);
  });
  afterAll(async () => {
    await course?.close();
    await site?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const cases = demos.flatMap((demo) =>
    [false, true].map((sandbox) => ({ demo, sandbox, label: sandbox ? 'sandboxed' : 'plain' })),
  );

  it.each(cases)('$demo.id, $label iframe', async ({ demo, sandbox }) => {
    const src = `${site.url}embed/${demo.id}/?load=click&theme=dark&present=1`;
    const snippet = embedSnippet({ src, title: demo.id, height: demo.embedHeight, sandbox });
    const file = `${demo.id}-${sandbox ? 'sandboxed' : 'plain'}.html`;
    await writeFile(join(dir, file), coursePage(snippet));
    expect(new URL(course.url).origin).not.toBe(site.origin);

    const page = await site.newPage();
    const engineRequests: string[] = [];
    page.on('request', (r) => {
      if (engineFile.test(new URL(r.url()).pathname)) engineRequests.push(r.url());
    });
    await page.goto(`${course.url}${file}`, { waitUntil: 'load' });
    const frameElement = page.locator('iframe');
    if (sandbox)
      expect(await frameElement.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin');
    const frame = (await (await frameElement.elementHandle())!.contentFrame())!;
    const start = frame.getByRole('button', { name: /^Start PostgreSQL/ });
    await start.waitFor({ timeout: 60_000 });

    // Before the click: a placeholder, dark, in presenter mode, sized by the snippet.
    const placeholderHeight = await resizeApplied(page, demo.id);
    expect(placeholderHeight).toBeGreaterThan(snippetBounds.min);
    await page.waitForTimeout(1000);
    expect(engineRequests).toEqual([]);
    const root = frame.locator(`[data-demo="${demo.id}"]`);
    expect(await root.getAttribute('data-engine')).toBe('idle');
    expect(await root.getAttribute('class')).toContain('demo-present');
    expect(await backgroundLuminance(frame)).toBeLessThan(0.05);

    await start.click();
    await expect
      .poll(
        async () =>
          (await seen(page)).some((m) => m?.type === 'seat-ledger:ready' && m.demo === demo.id),
        {
          timeout: 120_000,
        },
      )
      .toBe(true);
    expect(engineRequests.length).toBeGreaterThanOrEqual(3);
    expect(await backgroundLuminance(frame)).toBeLessThan(0.05);

    if (demo.kind === 'scenario') {
      await frame.locator(`[data-demo="${demo.id}"][data-busy="no"]`).waitFor({ timeout: 60_000 });
      const of = Number(await root.getAttribute('data-of'));
      expect(of).toBeGreaterThan(1);
      /** The highest step the frame has reported, with the run's number of steps. */
      const reported = async () =>
        Math.max(
          -1,
          ...(await seen(page))
            .filter((m) => m?.type === 'seat-ledger:step' && m.demo === demo.id && m.of === of)
            .map((m) => m.step!),
        );
      await expect.poll(reported).toBe(0);
      await frame.getByRole('button', { name: 'Next', exact: true }).click();
      await expect.poll(reported, { timeout: 60_000 }).toBeGreaterThan(0);
      const afterNext = await reported();
      expect(afterNext).toBe(Number(await root.getAttribute('data-step')));
      // Presenter mode: Space steps with the focus on the page, not on a control.
      await frame.locator(`[data-demo="${demo.id}"][data-busy="no"]`).waitFor({ timeout: 60_000 });
      await frame.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press('Space');
      await expect.poll(reported, { timeout: 60_000 }).toBeGreaterThan(afterNext);
    }

    // Once running: the frame follows the demo's height, and nothing inside it scrolls.
    const height = await resizeApplied(page, demo.id);
    if (height < snippetBounds.max) {
      const overflow = () =>
        frame.evaluate(() => {
          const html = document.documentElement;
          return [html.scrollHeight - html.clientHeight <= 1, html.scrollWidth <= html.clientWidth];
        });
      await expect.poll(overflow, { timeout: 30_000 }).toEqual([true, true]);
    }
    await page.close();
  });
});
