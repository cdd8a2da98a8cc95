// Shared set-up for browser tests: the built site (dist/) served on loopback and Debian's
// Chromium. `npm test` builds the site before these run.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { serveStatic, type StaticServer } from '../support/static-server';

export const distDir = join(process.cwd(), 'dist');

export async function startSite() {
  if (!existsSync(join(distDir, 'index.html'))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm test does).');
  }
  const server: StaticServer = await serveStatic(distDir);
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
