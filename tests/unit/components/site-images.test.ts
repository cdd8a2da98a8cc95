// The site's icons and social preview image in public/ are what site-images.ts draws from
// the stylesheet's colours, at the sizes their names say.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { themeColours } from '../../../src/components/site-colours';
import { iconSvg, socialSize } from '../../../src/components/site-images';

const publicFile = (name: string) => readFileSync(join(process.cwd(), 'public', name));

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(png: Buffer): [number, number] {
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

describe('the site images in public/', () => {
  it('has the favicon site-images.ts draws from site.css now (else run node scripts/site-images.ts)', () => {
    const drawn = iconSvg(themeColours('light'), themeColours('dark'));
    expect(publicFile('favicon.svg').toString('utf8')).toBe(drawn);
  });

  it('draws the icon in both themes’ colours', () => {
    const svg = iconSvg(themeColours('light'), themeColours('dark'));
    expect(svg).toContain(themeColours('light').link);
    expect(svg).toContain(`@media (prefers-color-scheme:dark)`);
    expect(svg).toContain(themeColours('dark').link);
  });

  it.each([
    ['apple-touch-icon.png', 180, 180],
    ['icon-192.png', 192, 192],
    ['icon-512.png', 512, 512],
    ['social.png', socialSize.width, socialSize.height],
  ])('has %s at %i × %i', (name, width, height) => {
    expect(pngSize(publicFile(name))).toEqual([width, height]);
  });

  it('has a favicon.ico holding 16 and 32 pixel PNGs', () => {
    const ico = publicFile('favicon.ico');
    expect([ico.readUInt16LE(2), ico.readUInt16LE(4)]).toEqual([1, 2]);
    const sizes = [0, 1].map((i) => {
      const entry = 6 + 16 * i;
      const offset = ico.readUInt32LE(entry + 12);
      return pngSize(ico.subarray(offset, offset + ico.readUInt32LE(entry + 8)));
    });
    expect(sizes).toEqual([
      [16, 16],
      [32, 32],
    ]);
  });
});
