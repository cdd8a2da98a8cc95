// The demos' thumbnails (for oEmbed), as SVG: a card that shows what PostgreSQL printed
// for a step, or the counter's own picture with its stylesheet inlined. Nothing is drawn
// for the thumbnail alone: the lines come from a recording or a live engine, the picture
// from the counter's draw function (scripts/thumbnails.ts feeds both).

/** Every thumbnail's size, in pixels. */
export const thumbnailSize = { width: 640, height: 360 } as const;

/** The light theme's colours (site.css), which a standalone image cannot look up. */
const colours = {
  text: '#1b1f24',
  muted: '#4a5360',
  background: '#ffffff',
  surface: '#f4f5f7',
  border: '#b7bec8',
  link: '#0b57b5',
};

const sans = "'DejaVu Sans', 'Liberation Sans', Arial, sans-serif";
const mono = "'DejaVu Sans Mono', 'Liberation Mono', monospace";

/** What a card shows. */
export interface Card {
  title: string;
  /** Where the lines come from, e.g. `Recorded on PostgreSQL 18.4`. */
  source: string;
  /** What was sent, e.g. `worker-b: SELECT … FOR UPDATE SKIP LOCKED`. */
  sent: string;
  /** What PostgreSQL printed. */
  lines: readonly string[];
}

/** The longest line a card shows before cutting it, in characters. */
const LINE_CHARS = 74;
/** Output lines that fit under the heading. */
const LINES = 13;

/** A card as SVG text. */
export function cardSvg(card: Card): string {
  const { width, height } = thumbnailSize;
  const cut = (line: string) =>
    line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
  const lines = card.lines.length > LINES ? [...card.lines.slice(0, LINES - 1), '…'] : card.lines;
  const text = (x: number, y: number, attrs: string, content: string) =>
    `<text x="${x}" y="${y}" ${attrs}>${escapeXml(content)}</text>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="${width}" height="${height}" fill="${colours.background}"/>`,
    `<rect x="0" y="0" width="${width}" height="6" fill="${colours.link}"/>`,
    text(
      24,
      40,
      `font-family="${sans}" font-size="22" font-weight="700" fill="${colours.text}"`,
      card.title,
    ),
    text(
      24,
      64,
      `font-family="${sans}" font-size="13" fill="${colours.muted}"`,
      `Seat & Ledger · ${card.source}`,
    ),
    `<rect x="16" y="80" width="${width - 32}" height="${height - 96}" rx="4" fill="${colours.surface}" stroke="${colours.border}"/>`,
    text(
      28,
      102,
      `font-family="${mono}" font-size="12" font-weight="700" fill="${colours.text}"`,
      cut(card.sent),
    ),
    ...lines.map((line, i) =>
      text(
        28,
        124 + i * 16,
        `font-family="${mono}" font-size="12" fill="${colours.text}" xml:space="preserve"`,
        cut(line),
      ),
    ),
    `</svg>`,
  ].join('\n');
}

/**
 * `picture` (an `<svg>` drawn by the counter's draw function, `width` × `height`) scaled
 * to the thumbnail's width and cut to its height from the top, with `css` (the picture's
 * stylesheet) inlined: custom properties resolved to their light values, the dark
 * theme's rules and media queries left out, as an image has neither.
 */
export function pictureSvg(picture: string, css: string, pictureWidth: number): string {
  const { width, height } = thumbnailSize;
  const scale = width / pictureWidth;
  const inner = picture.replace(/^<svg\b/, `<svg x="0" y="0"`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<style>${escapeXml(inlineCss(css))}</style>`,
    `<rect width="${width}" height="${height}" fill="${colours.background}"/>`,
    `<g transform="scale(${scale})">${inner}</g>`,
    `</svg>`,
  ].join('\n');
}

/** `css` with its custom properties substituted and its theme and media rules dropped. */
export function inlineCss(css: string): string {
  const rules = topLevelRules(css.replace(/\/\*[\s\S]*?\*\//g, ''));
  const kept = rules.filter(
    (r) => !r.selector.startsWith('@') && !r.selector.includes('data-theme'),
  );
  const variables = new Map<string, string>();
  for (const { body } of kept)
    for (const [, name, value] of body.matchAll(/(--[\w-]+)\s*:\s*([^;]+);?/g))
      variables.set(name!, value!.trim());
  const resolve = (value: string, depth = 0): string =>
    depth > 8
      ? value
      : value.replace(
          /var\(\s*(--[\w-]+)\s*(?:,\s*((?:[^()]|\([^()]*\))*))?\)/g,
          (_m, name: string, fallback?: string) =>
            resolve(variables.get(name) ?? fallback?.trim() ?? '', depth + 1),
        );
  return kept
    .map(({ selector, body }) => {
      const declarations = body
        .split(';')
        .map((d) => d.trim())
        .filter((d) => d && !d.startsWith('--'))
        .map((d) => resolve(d.replace(/\s+/g, ' ')));
      return declarations.length ? `${selector.trim()} { ${declarations.join('; ')}; }` : '';
    })
    .filter(Boolean)
    .join('\n');
}

/** The top-level rules of a stylesheet (an at-rule's block counts as one). */
function topLevelRules(css: string): { selector: string; body: string }[] {
  const rules: { selector: string; body: string }[] = [];
  let depth = 0;
  let start = 0;
  let open = 0;
  for (let i = 0; i < css.length; i++) {
    if (css[i] === '{') {
      if (depth === 0) open = i;
      depth++;
    } else if (css[i] === '}') {
      depth--;
      if (depth === 0) {
        rules.push({ selector: css.slice(start, open).trim(), body: css.slice(open + 1, i) });
        start = i + 1;
      }
    }
  }
  return rules;
}

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
