// The site's own files (public/ and the web manifest) are built, and every page links
// them: its icons, its manifest, and a social preview whose addresses are absolute. In
// Chromium, the manifest reads without an error and each file it and the pages name loads.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSDOM } from 'jsdom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtFile, builtPages, distDir, startSite } from './site';

const files = [
  'favicon.svg',
  'favicon.ico',
  'apple-touch-icon.png',
  'icon-192.png',
  'icon-512.png',
  'social.png',
  'robots.txt',
  'manifest.webmanifest',
];

interface Manifest {
  name: string;
  start_url: string;
  scope: string;
  theme_color: string;
  background_color: string;
  icons: { src: string; sizes: string; type: string }[];
}

const manifest = () =>
  JSON.parse(readFileSync(join(distDir, 'manifest.webmanifest'), 'utf8')) as Manifest;

describe('the site’s own files', () => {
  it('are built', () => {
    expect(files.filter((f) => !existsSync(join(distDir, f)))).toEqual([]);
    expect(readFileSync(join(distDir, 'robots.txt'), 'utf8')).toMatch(/^User-agent: \*$/m);
  });

  it('are linked from every page, the social preview by an absolute address', () => {
    const problems: string[] = [];
    for (const page of builtPages()) {
      const { document } = new JSDOM(readFileSync(builtFile(page), 'utf8')).window;
      const attr = (selector: string, name: string) =>
        document.querySelector(selector)?.getAttribute(name) ?? null;
      const want = {
        'link[rel="icon"][type="image/svg+xml"]': ['href', '/favicon.svg'],
        'link[rel="icon"][sizes="32x32"]': ['href', '/favicon.ico'],
        'link[rel="apple-touch-icon"]': ['href', '/apple-touch-icon.png'],
        'link[rel="manifest"]': ['href', '/manifest.webmanifest'],
        'meta[name="twitter:card"]': ['content', 'summary_large_image'],
      } as const;
      for (const [selector, [name, value]] of Object.entries(want)) {
        if (attr(selector, name) !== value)
          problems.push(`/${page}: ${selector} is ${attr(selector, name)}`);
      }
      const image = attr('meta[property="og:image"]', 'content') ?? '';
      if (!/^https?:\/\/[^/]+\/social\.png$/.test(image))
        problems.push(`/${page}: og:image ${image}`);
      for (const property of ['og:title', 'og:description', 'og:url']) {
        if (!attr(`meta[property="${property}"]`, 'content'))
          problems.push(`/${page}: no ${property}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('has a manifest whose start and icons are the site’s, in its stylesheet’s colours', () => {
    const m = manifest();
    expect(m).toMatchObject({ name: 'Seat & Ledger', start_url: '/', scope: '/' });
    expect(m.background_color).toMatch(/^#[0-9a-f]{6}$/);
    for (const icon of m.icons) expect(existsSync(join(distDir, icon.src))).toBe(true);
    expect(m.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
  });
});

describe('the site’s own files in Chromium', () => {
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site?.close());

  it('reads the manifest without an error, and loads every file it and the page name', async () => {
    const page = await site.newPage();
    await page.goto(site.url, { waitUntil: 'load' });
    const cdp = await page.context().newCDPSession(page);
    const { errors, url } = (await cdp.send('Page.getAppManifest')) as {
      errors: { message: string }[];
      url: string;
    };
    expect(url).toBe(`${site.url}manifest.webmanifest`);
    expect(errors).toEqual([]);
    const names = [...new Set([...files, ...manifest().icons.map((i) => i.src.slice(1))])];
    const failed: string[] = [];
    for (const name of names) {
      const response = await page.request.get(`${site.url}${name}`);
      if (!response.ok()) failed.push(`${name}: ${response.status()}`);
    }
    expect(failed).toEqual([]);
    await page.close();
  });
});
