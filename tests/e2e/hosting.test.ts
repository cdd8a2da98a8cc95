// The engine from a host that compresses (README, "Headers a host should send"): the WASM and
// file bundle gzipped on the way, the data directory sent as the gzip encoding of its tar.
// PostgreSQL starts, the download's progress counts towards the right total, and the
// console answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { serveStatic, type StaticServer } from '../support/static-server';
import { runSql, waitForEngine } from './console-driver';
import { distDir } from './site';

describe('a host that compresses the engine’s files', () => {
  let server: StaticServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;

  beforeAll(async () => {
    server = await serveStatic(distDir, '/', { compress: true });
    chrome = await launchChromium();
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close();
  });

  it('starts PostgreSQL, with the download counted to its end', async () => {
    const page = await chrome.context.newPage();
    const encodings = new Map<string, string>();
    page.on('response', (r) => {
      const name = new URL(r.url()).pathname.split('/').pop()!;
      if (/\.(wasm|data)$|\.tar\.gz$/.test(name)) {
        encodings.set(name.replace(/\..*\./, '.'), r.headers()['content-encoding'] ?? 'none');
      }
    });
    // Every report of the placeholder's progress bar, as the reader sees it.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { progress: string[] }).progress = seen;
      new MutationObserver(() => {
        const bar = document.querySelector('progress');
        if (bar) seen.push(`${bar.value}/${bar.max}`);
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    await page.goto(`${server.url}lab/`);
    await waitForEngine(page);
    expect(Object.fromEntries(encodings)).toEqual({
      'pglite.wasm': 'gzip',
      'pglite.data': 'gzip',
      'pgdata.gz': 'gzip',
    });
    const downloaded = await page.evaluate(
      () => performance.getEntriesByName('seat-ledger:downloaded').length,
    );
    expect(downloaded).toBe(1);
    const progress = await page.evaluate(
      () => (window as unknown as { progress: string[] }).progress,
    );
    expect(progress.length).toBeGreaterThan(0);
    for (const report of progress) {
      const [value, max] = report.split('/').map(Number);
      // Never a total below what has arrived, as the compressed lengths would give.
      expect(value!).toBeLessThanOrEqual(max!);
      expect(max!).toBeGreaterThan(15_000_000);
    }
    expect(await runSql(page, 'SELECT 6 * 7 AS answer')).toContain('42');
    await page.close();
  });
});
