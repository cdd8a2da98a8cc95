// Every demo's oEmbed discovery, as a CMS does it: the demo page names its oEmbed file,
// the file is a valid `rich` response (oembed.com, 2.3.4) whose html embeds the demo, and
// its thumbnail is a PNG of the size it states.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { demos } from '../../src/components/demo-list';
import { serveStatic, type StaticServer } from '../support/static-server';
import { distDir } from './site';

const absolute = z.url().refine((u) => /^https?:\/\//.test(u), 'an absolute http(s) address');
const positive = z.number().int().positive();

/** The fields of a `rich` oEmbed response, as the site promises them. */
const richSchema = z.object({
  type: z.literal('rich'),
  version: z.literal('1.0'),
  title: z.string().min(1),
  provider_name: z.string().min(1),
  provider_url: absolute,
  html: z.string().regex(/^<iframe\b[\s\S]*<\/iframe>$/),
  width: positive,
  height: positive,
  thumbnail_url: absolute,
  thumbnail_width: positive,
  thumbnail_height: positive,
});

describe('oEmbed', () => {
  let server: StaticServer;
  beforeAll(async () => {
    server = await serveStatic(distDir);
  });
  afterAll(() => server?.close());

  /** The built file an absolute address of the site names, fetched from the test server. */
  const fetchBuilt = (url: string) => fetch(new URL(new URL(url).pathname.slice(1), server.url));

  it.each(demos.map((d) => d.id))(
    '%s: its page names a valid file with a real thumbnail',
    async (id) => {
      const page = await (await fetch(new URL(`demos/${id}/`, server.url))).text();
      const link = /<link[^>]*type="application\/json\+oembed"[^>]*>/.exec(page)?.[0];
      expect(link, 'the oEmbed discovery link').toBeDefined();
      expect(link).toContain('rel="alternate"');
      const href = /href="([^"]+)"/.exec(link!)![1]!;
      expect(new URL(href).pathname).toBe(`/oembed/${id}.json`);

      const response = await fetchBuilt(href);
      expect(response.status).toBe(200);
      const file = richSchema.parse(await response.json());
      const title = /<h1>([^<]+)<\/h1>/.exec(page)![1];
      expect(file.title).toBe(title!.replace(/&amp;/g, '&'));
      expect(file.provider_name).toBe('Seat & Ledger');

      // The html is the demo's embed, and that page exists.
      const src = /<iframe src="([^"]+)"/.exec(file.html)![1]!.replace(/&amp;/g, '&');
      expect(new URL(src).pathname).toBe(`/embed/${id}/`);
      expect((await fetchBuilt(src)).status).toBe(200);
      expect(file.html).toContain(`height="${file.height}"`);

      // The thumbnail: a PNG (its signature), as wide and tall as the file says (its IHDR).
      const image = await fetchBuilt(file.thumbnail_url);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await image.arrayBuffer());
      expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
      expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([
        file.thumbnail_width,
        file.thumbnail_height,
      ]);
      // Drawn, not blank: a blank 640 × 360 PNG compresses to well under a kilobyte.
      expect(bytes.length).toBeGreaterThan(8000);
    },
  );
});
