// Reading offline after the first visit: a reader opens the home page, whose counter runs,
// and the service worker keeps the site and the engine. With the network off, every chapter
// opens and every demo on it starts, as does every demo's own embed; an address the site
// does not have says the reader is offline, and a demo whose engine is not kept says why it
// cannot start.
import { cp, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demos } from '../../src/components/demo-list';
import { chapterFiles } from '../support/chapter-files';
import { firstOutput } from '../support/first-output';
import { serveStatic } from '../support/static-server';
import { distDir, startSite } from './site';
import { launchChromium } from '../support/browser';

const chapters = chapterFiles()
  .sort((a, b) => Number(a.frontmatter.order) - Number(b.frontmatter.order))
  .map((c) => c.id);

/** Starts every demo on the page as a reader scrolling down would; returns what failed. */
async function startEveryDemo(page: Page, where: string): Promise<string[]> {
  const problems: string[] = [];
  for (const demo of await page.locator('[data-demo]').all()) {
    await demo.scrollIntoViewIfNeeded();
    const name = await demo.getAttribute('data-demo');
    try {
      await firstOutput(page, demo, name!);
    } catch (error) {
      const shown = await demo.innerText().catch(() => '');
      problems.push(
        `${where}: ${name} showed no output (${(error as Error).message.split('\n')[0]}; it shows: ${shown.slice(0, 200)})`,
      );
    }
  }
  return problems;
}

describe('reading offline after the first visit', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let page: Page;

  beforeAll(async () => {
    site = await startSite();
    page = await site.newPage();
    // The first visit, online: the counter on the home page runs, and the worker keeps all.
    await page.goto(site.url, { waitUntil: 'load' });
    await page.locator('[data-demo="counter"]').scrollIntoViewIfNeeded();
    await page.locator('[data-demo="counter"][data-engine="ready"]').waitFor({ timeout: 120_000 });
    await page.locator('html[data-offline="engine"]').waitFor({ timeout: 120_000 });
    await page.context().setOffline(true);
  });
  afterAll(async () => {
    await page?.context().setOffline(false);
    await site?.close();
  });

  it(
    'opens every chapter in order and starts every demo on it',
    async () => {
      const problems: string[] = [];
      for (const id of chapters) {
        await page.goto(`${site.url}chapters/${id}/`, { waitUntil: 'load' });
        if (!(await page.getByRole('heading', { level: 1 }).isVisible())) {
          problems.push(`${id}: no heading`);
          continue;
        }
        problems.push(...(await startEveryDemo(page, id)));
      }
      expect(problems).toEqual([]);
    },
    15 * 60_000,
  );

  it(
    'starts every demo of the registry in its embed',
    async () => {
      const problems: string[] = [];
      for (const demo of demos) {
        await page.goto(`${site.url}embed/${demo.id}/`, { waitUntil: 'load' });
        problems.push(...(await startEveryDemo(page, `embed/${demo.id}`)));
      }
      expect(problems).toEqual([]);
    },
    15 * 60_000,
  );

  it('says the reader is offline at an address the site does not have', async () => {
    const response = await page.goto(`${site.url}no-such-page/`);
    expect(response?.status()).toBe(503);
    await page.getByRole('heading', { name: 'You are offline' }).waitFor();
  });

  it('says a demo cannot start offline when its engine was not kept', async () => {
    const other = await site.newPage();
    await other.goto(`${site.url}lab/`, { waitUntil: 'load' });
    await other.locator('[data-demo="console"][data-engine="ready"]').waitFor({ timeout: 120_000 });
    // The page tells the service worker what it fetched a moment after its engine is ready,
    // and the worker keeps what is missing: the cache goes once that has happened, or the
    // worker could put it back before the reload.
    await other.locator('html[data-offline="engine"]').waitFor({ timeout: 120_000 });
    await other.evaluate(async () => {
      for (const name of await caches.keys())
        if (name.includes(' engine ')) await caches.delete(name);
    });
    await other.reload({ waitUntil: 'load' });
    const alert = other.getByRole('alert');
    await alert.waitFor({ timeout: 120_000 });
    expect(await alert.innerText()).toContain(
      'You are offline, and this demo’s engine has not been saved',
    );
    await other.close();
  });
});

describe('an embed on another origin', () => {
  it('keeps its site and engine for offline use in its own frame', async () => {
    const site = await startSite();
    const dir = await mkdtemp(join(tmpdir(), 'seat-ledger-course-'));
    const course = await serveStatic(dir);
    try {
      await writeFile(
        join(dir, 'course.html'),
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title></head>
        <body><iframe title="console" src="${site.url}embed/console/" style="width:700px;height:600px"></iframe></body></html>`,
      );
      expect(new URL(course.url).origin).not.toBe(site.origin);
      const page = await site.newPage();
      await page.goto(`${course.url}course.html`);
      const frame = page.frameLocator('iframe');
      await frame
        .locator('[data-demo="console"][data-engine="ready"]')
        .waitFor({ timeout: 120_000 });
      await frame.locator('html[data-offline="engine"]').waitFor({ timeout: 120_000 });
      await page.close();
    } finally {
      await course.close();
      await site.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a new build', () => {
  it('takes over once the old build’s tabs are closed, and deletes the old build’s cache', async () => {
    // Two builds at one address: this one, and the same with another site version in sw.js
    // (as any change to a page or asset gives), served in turn through a symlink.
    const dir = await mkdtemp(join(tmpdir(), 'seat-ledger-builds-'));
    const [older, newer, live] = ['older', 'newer', 'live'].map((name) => join(dir, name));
    await cp(distDir, older!, { recursive: true });
    await cp(distDir, newer!, { recursive: true });
    const sw = await readFile(join(newer!, 'sw.js'), 'utf8');
    const version = /siteVersion:`([0-9a-f]+)`/.exec(sw)![1]!;
    await writeFile(
      join(newer!, 'sw.js'),
      sw.replace(`siteVersion:\`${version}\``, 'siteVersion:`0newer0build`'),
    );
    await symlink(older!, live!);
    const server = await serveStatic(live!);
    const chrome = await launchChromium();
    const cacheNames = async () => {
      const page = await chrome.context.newPage();
      await page.goto(`${server.url}404.html`);
      const names = await page.evaluate(() => caches.keys());
      await page.close();
      return names.filter((n) => n.includes(' site ')).map((n) => n.split(' ').pop());
    };
    try {
      const first = await chrome.context.newPage();
      await first.goto(`${server.url}lab/`);
      await first.locator('html[data-offline="engine"]').waitFor({ timeout: 120_000 });
      await first.close();
      expect(await cacheNames()).toEqual([version]);

      await unlink(live!);
      await symlink(newer!, live!);
      // A visit finds the new sw.js, which installs and waits for the old build's tabs.
      // Chromium checks for it once the old worker has been idle a moment after the visit:
      // pages opened every few ms (a poll's default) keep the worker busy and the check
      // away, so the cache is looked at every two seconds, as a reader's next page would.
      const second = await chrome.context.newPage();
      await second.goto(`${server.url}lab/`);
      const poll = { timeout: 60_000, interval: 2_000 };
      await expect.poll(cacheNames, poll).toContain('0newer0build');
      await second.close();
      // With no tab of the old build open, the new worker takes over and clears the old.
      await expect.poll(cacheNames, poll).toEqual(['0newer0build']);
    } finally {
      await chrome.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
