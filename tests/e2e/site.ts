// Shared set-up for browser tests: the built site (dist/) served on loopback and the
// Chromium find-chromium.ts finds. `npm test` builds the site before these run.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { serveStatic, type HostOptions, type StaticServer } from '../support/static-server';

export const distDir = join(process.cwd(), 'dist');

/** Every page the build wrote, as a path under the site's base (`lab/`, `embed/console/`). */
export function builtPages(dir = distDir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === '_astro' ? [] : builtPages(full);
    if (!name.endsWith('.html')) return [];
    const path = relative(distDir, full).split(sep).join('/');
    return [path === 'index.html' ? '' : path.replace(/index\.html$/, '')];
  });
}

/** The built file of a page `builtPages` names. */
export function builtFile(page: string): string {
  return join(distDir, page === '' || page.endsWith('/') ? `${page}index.html` : page);
}

/** Serves dist/ (with what `host` adds) and starts Chromium. */
export async function startSite(host: HostOptions = {}) {
  if (!existsSync(join(distDir, 'index.html'))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm test does).');
  }
  const server: StaticServer = await serveStatic(distDir, '/', host);
  const chrome = await launchChromium();
  return {
    url: server.url,
    origin: new URL(server.url).origin,
    async newPage(options: { width?: number; height?: number } = {}): Promise<Page> {
      const page = await chrome.context.newPage();
      await page.setViewportSize({ width: options.width ?? 1280, height: options.height ?? 800 });
      return page;
    },
    async close() {
      await chrome.close();
      await server.close();
    },
  };
}

/**
 * Embeds `src` in an iframe on `page` and returns the first `seat-ledger:resize` message
 * the embedded demo `demo` posts to it.
 */
export function firstResizeMessage(page: Page, src: string, demo: string): Promise<unknown> {
  return firstMessage(page, src, 'seat-ledger:resize', demo);
}

/**
 * Embeds `src` in an iframe on `page` and returns the first message of `type` (e.g.
 * `seat-ledger:ready`) the embedded demo `demo` posts to it.
 */
export async function firstMessage(
  page: Page,
  src: string,
  type: string,
  demo: string,
): Promise<unknown> {
  await page.evaluate((url) => {
    const w = window as unknown as { messages: unknown[] };
    w.messages ??= [];
    window.addEventListener('message', (e) => w.messages.push(e.data));
    const frame = document.createElement('iframe');
    frame.src = url;
    frame.title = 'embedded demo';
    frame.style.width = '700px';
    document.body.append(frame);
  }, src);
  const find = ([kind, name]: [string, string]) =>
    (window as unknown as { messages: { type?: string; demo?: string }[] }).messages.find(
      (m) => m?.type === kind && m.demo === name,
    );
  await page.waitForFunction(find, [type, demo] as [string, string], { timeout: 120_000 });
  return page.evaluate(find, [type, demo] as [string, string]);
}

/** The relative luminance of a page's or frame's background, 0 (black) to 1 (white). */
export function backgroundLuminance(target: Page | Frame): Promise<number> {
  return target.evaluate(() => {
    const [r, g, b] = getComputedStyle(document.body)
      .backgroundColor.match(/\d+(\.\d+)?/g)!
      .slice(0, 3)
      .map((c) => {
        const v = Number(c) / 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  });
}
