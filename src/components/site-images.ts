// The site's own pictures, drawn as SVG from its theme colours (site-colours.ts): the icon
// (a seat in front of an open ledger page: a connection, and the transaction it holds) and
// the social preview image. scripts/site-images.ts renders them into public/.
import type { ColourName } from './site-colours';

type Colours = Record<ColourName, string>;

/** The social preview image's size, as Open Graph and Twitter cards expect. */
export const socialSize = { width: 1200, height: 630 } as const;

/** The seat and the ledger page on a 64 × 64 grid, in `c`'s colours. */
function emblem(c: Colours): string {
  const line = `fill="none" stroke="${c['page-line']}" stroke-width="3"`;
  return [
    // The ledger page, open: ruled lines, a corner turned down.
    `<path class="page" d="M22 7h24l11 11v34a3 3 0 0 1-3 3H22a3 3 0 0 1-3-3V10a3 3 0 0 1 3-3z" fill="${c.page}" stroke="${c['page-line']}" stroke-width="3" stroke-linejoin="round"/>`,
    `<path class="line" d="M46 7v11h11" ${line} stroke-linejoin="round"/>`,
    `<path class="line" d="M33 22h17M33 30h17M33 38h17" ${line} stroke-linecap="round"/>`,
    // The seat in front of it, seen from the side, outlined in the ground colour.
    `<path class="seat" d="M5 24a3 3 0 0 1 3-3h3a3 3 0 0 1 3 3v15h17a3 3 0 0 1 3 3v18h-6V48H12v12H5z" fill="${c.link}" stroke="${c.background}" stroke-width="3" paint-order="stroke" stroke-linejoin="round"/>`,
  ].join('');
}

/**
 * The favicon: transparent, in the light theme's colours, and the dark theme's when the
 * reader's system is dark (an SVG icon follows `prefers-color-scheme`; its rule beats the
 * light colours written as attributes).
 */
export function iconSvg(light: Colours, dark: Colours): string {
  const darkRules = [
    `.page{fill:${dark.page};stroke:${dark['page-line']}}`,
    `.line{stroke:${dark['page-line']}}`,
    `.seat{fill:${dark.link};stroke:${dark.background}}`,
  ].join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">`,
    `<style>@media (prefers-color-scheme:dark){${darkRules}}</style>`,
    emblem(light),
    `</svg>\n`,
  ].join('');
}

/** The icon on a square of the background colour, for app icons (never transparent). */
export function appIconSvg(c: Colours, size: number): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="-8 -8 80 80">`,
    `<rect x="-8" y="-8" width="80" height="80" fill="${c.background}"/>`,
    emblem(c),
    `</svg>`,
  ].join('');
}

const sans = "'DejaVu Sans', 'Liberation Sans', Arial, sans-serif";

/** The social preview image: the emblem, the site's name and its two sentences. */
export function socialSvg(c: Colours): string {
  const { width, height } = socialSize;
  const text = (y: number, size: number, weight: number, fill: string, content: string) =>
    `<text x="400" y="${y}" font-family="${sans}" font-size="${size}" font-weight="${weight}" fill="${fill}">${content}</text>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="${width}" height="${height}" fill="${c.background}"/>`,
    `<rect width="${width}" height="14" fill="${c.link}"/>`,
    `<g transform="translate(60 155) scale(5)">${emblem(c)}</g>`,
    text(230, 76, 700, c.text, 'Seat &amp; Ledger'),
    text(320, 38, 400, c.text, 'A job is a row, not a function call.'),
    text(372, 38, 400, c.text, 'A connection is not a transaction.'),
    text(470, 28, 400, c.muted, 'Job queues on PostgreSQL, and why they go wrong,'),
    text(510, 28, 400, c.muted, 'on a real PostgreSQL 18 running in your browser.'),
    `</svg>`,
  ].join('');
}
