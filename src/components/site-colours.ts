// The site's theme colours as its stylesheet sets them, for what cannot read CSS: the web
// manifest, and the icons and social image scripts/site-images.ts draws. Node only (it
// reads src/styles/site.css at build time).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The colours the manifest and the pictures use. */
export const colourNames = [
  'background',
  'surface',
  'text',
  'muted',
  'link',
  'page',
  'page-line',
] as const;
export type ColourName = (typeof colourNames)[number];

/** The selector of each theme's rule in site.css. */
const rules = { light: ':root', dark: ":root[data-theme='dark']" } as const;

/** `theme`'s colours, e.g. `themeColours('dark').background` is `#14171c`. */
export function themeColours(theme: keyof typeof rules): Record<ColourName, string> {
  const css = readFileSync(join(process.cwd(), 'src', 'styles', 'site.css'), 'utf8');
  const start = css.indexOf(`\n${rules[theme]} {`);
  if (start < 0) throw new Error(`site.css has no rule ${rules[theme]}`);
  const rule = css.slice(start, css.indexOf('\n}', start));
  const found = {} as Record<ColourName, string>;
  for (const name of colourNames) {
    const value = new RegExp(`\\n\\s*--${name}:\\s*(#[0-9a-f]{6})\\s*;`, 'i').exec(rule)?.[1];
    if (!value) throw new Error(`site.css sets no colour --${name} in ${rules[theme]}`);
    found[name] = value;
  }
  return found;
}
