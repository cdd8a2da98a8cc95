// `node scripts/site-images.ts`: draws the site's icons and social preview image from its
// theme colours (src/components/site-images.ts) into public/, where they are committed:
// favicon.svg, favicon.ico (16 and 32 px), apple-touch-icon.png, icon-192.png,
// icon-512.png and social.png. Run it again after changing the drawing or the colours;
// tests/unit/components/site-images.test.ts says when favicon.svg is out of date.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import './resolve-ts.ts';

const { themeColours } = await import('../src/components/site-colours.ts');
const { appIconSvg, iconSvg, socialSize, socialSvg } =
  await import('../src/components/site-images.ts');

const light = themeColours('light');
const dark = themeColours('dark');
const out = (name: string) => path.join(process.cwd(), 'public', name);

/** `svg` as a PNG `width` pixels wide. */
function png(svg: string, width: number): Buffer {
  return new Resvg(svg, {
    fitTo: { mode: 'width', value: width },
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
  })
    .render()
    .asPng();
}

/** An ICO file holding PNG images (each `[size, png]`), as browsers have read since 2009. */
function ico(images: [number, Buffer][]): Buffer {
  const header = Buffer.alloc(6 + 16 * images.length);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(images.length, 4);
  let offset = header.length;
  images.forEach(([size, data], i) => {
    const entry = 6 + 16 * i;
    header.writeUInt8(size, entry);
    header.writeUInt8(size, entry + 1);
    header.writeUInt16LE(1, entry + 4); // colour planes
    header.writeUInt16LE(32, entry + 6); // bits per pixel
    header.writeUInt32LE(data.length, entry + 8);
    header.writeUInt32LE(offset, entry + 12);
    offset += data.length;
  });
  return Buffer.concat([header, ...images.map(([, data]) => data)]);
}

writeFileSync(out('favicon.svg'), iconSvg(light, dark));
writeFileSync(out('favicon.ico'), ico([16, 32].map((s) => [s, png(appIconSvg(light, s), s)])));
// iOS fills a transparent touch icon with black: these stand on the background colour.
writeFileSync(out('apple-touch-icon.png'), png(appIconSvg(light, 180), 180));
for (const size of [192, 512])
  writeFileSync(out(`icon-${size}.png`), png(appIconSvg(light, size), size));
writeFileSync(out('social.png'), png(socialSvg(light), socialSize.width));
console.log('site images: written to public/');
