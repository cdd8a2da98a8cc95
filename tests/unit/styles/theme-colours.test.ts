// The two colour themes, read from the stylesheets themselves: every colour is set in
// both, and the colours that meet on screen keep WCAG AA contrast in each. axe checks
// the pages' HTML text; this checks the pictures' SVG too, which axe does not.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(join(process.cwd(), path), 'utf8');
const site = read('src/styles/site.css');
const counter = read('src/viz/counter.css');

/** The custom properties declared in the rule whose selector is exactly `selector`. */
function declarations(css: string, selector: string): Map<string, string> {
  const start = css.indexOf(`\n${selector} {`);
  if (start < 0) throw new Error(`no rule ${selector}`);
  const body = css.slice(css.indexOf('{', start) + 1, css.indexOf('\n}', start));
  const found = new Map<string, string>();
  for (const [, name, value] of body.matchAll(/(--[\w-]+):\s*([^;]+);/g)) {
    found.set(name!, value!.trim());
  }
  return found;
}

const light = new Map([
  ...declarations(site, ':root'),
  ...declarations(counter, '.counter-picture'),
]);
const darkOnly = new Map([
  ...declarations(site, ":root[data-theme='dark']"),
  ...declarations(counter, ":root[data-theme='dark'] .counter-picture"),
]);
const themes = { light, dark: new Map([...light, ...darkOnly]) };

/** A property's colour in `theme`, following `var(--x, fallback)` as a browser does. */
function colour(theme: Map<string, string>, name: string): string {
  const value = theme.get(name);
  if (value === undefined) throw new Error(`${name} is not set`);
  const reference = /^var\((--[\w-]+)(?:,\s*(.+))?\)$/.exec(value);
  if (reference) return theme.has(reference[1]!) ? colour(theme, reference[1]!) : reference[2]!;
  return value;
}

/** `#rrggbbaa` laid over the page's ground, as it is shown; `#rrggbb` as it is. */
function opaque(theme: Map<string, string>, hex: string): string {
  if (hex.length !== 9) return hex;
  const alpha = parseInt(hex.slice(7), 16) / 255;
  const ground = colour(theme, '--background');
  const channel = (i: number) =>
    Math.round(
      parseInt(hex.slice(i, i + 2), 16) * alpha +
        parseInt(ground.slice(i, i + 2), 16) * (1 - alpha),
    )
      .toString(16)
      .padStart(2, '0');
  return `#${channel(1)}${channel(3)}${channel(5)}`;
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

const text = 4.5;
/** The states every page draws the same way (site.css, "Session and output states"). */
const states = [
  'idle',
  'idle-in-transaction',
  'active',
  'waiting',
  'refused',
  'emulated',
  'recorded',
  'modelled',
];
const shape = 3;
/** [foreground, ground, least contrast]: the pairs that meet on screen. */
const pairs: [string, string, number][] = [
  // Pages, the console, the player.
  ...['--background', '--surface', '--notice-surface', '--error-surface', '--page', '--mark'].map(
    (ground): [string, string, number] => ['--text', ground, text],
  ),
  ...['--background', '--surface', '--notice-surface'].map((ground): [string, string, number] => [
    '--muted',
    ground,
    text,
  ]),
  ['--link', '--background', text],
  ['--link', '--surface', shape],
  ['--on-link', '--link', text],
  ['--focus', '--background', shape],
  ['--error-text', '--background', text],
  ['--error-text', '--error-surface', text],
  ['--page-line', '--background', shape],
  ['--border-strong', '--background', shape],
  ['--text', '--editor-active-line', text],
  ['--text', '--editor-selection', text],
  ...['keyword', 'string', 'number', 'type', 'comment', 'invalid'].flatMap(
    (kind): [string, string, number][] => [
      [`--sql-${kind}`, '--background', text],
      [`--sql-${kind}`, '--editor-active-line', text],
    ],
  ),
  // Session and output states: the mark as text and line on the page's grounds, the
  // text on the state's own ground, and the mark beside that ground.
  ...states.flatMap((state): [string, string, number][] => [
    [`--state-${state}`, '--background', text],
    [`--state-${state}`, '--surface', text],
    [`--text`, `--state-${state}-ground`, text],
    [`--state-${state}`, `--state-${state}-ground`, text],
  ]),
  ['--state-emulated', '--page', shape],
  // The counter picture: letters on tokens, labels, outlines and marks on their grounds.
  ['--cp-text', '--cp-ground', text],
  ['--cp-muted', '--cp-ground', text],
  ['--cp-alert', '--cp-ground', text],
  ['--cp-alert', '--cp-blocked-ground', text],
  ['--cp-active-text', '--cp-active', text],
  ...['--cp-idle', '--cp-in-tx', '--cp-aborted', '--cp-chair', '--cp-page'].map(
    (ground): [string, string, number] => ['--cp-text', ground, text],
  ),
  ['--cp-active', '--cp-ground', shape],
  ['--cp-line', '--cp-ground', shape],
  ['--cp-line', '--cp-chair', shape],
  ['--cp-desk', '--cp-ground', shape],
  ['--cp-page-line', '--cp-ground', shape],
  ['--cp-page-line', '--cp-page', shape],
  ['--cp-alert', '--cp-page', shape],
  ['--cp-alert', '--cp-aborted', shape],
  ['--cp-dead', '--cp-ground', shape],
  ['--cp-dead', '--cp-dead-ground', shape],
  ['--cp-done', '--cp-queued', shape],
  ['--cp-waiting', '--cp-ground', shape],
  ['--cp-waiting', '--cp-chair', shape],
  ['--cp-refused', '--cp-ground', text],
  ['--cp-refused', '--cp-chair', shape],
];

describe('the colour themes', () => {
  it('give every state a mark and a ground in both themes', () => {
    for (const state of states) {
      for (const theme of Object.values(themes)) {
        expect(colour(theme, `--state-${state}`)).toMatch(/^#[0-9a-f]{6}$/);
        expect(colour(theme, `--state-${state}-ground`)).toMatch(/^#[0-9a-f]{6}$/);
      }
    }
  });

  it('tell the states apart by more than a shade: no two marks alike in a theme', () => {
    for (const theme of Object.values(themes)) {
      const marks = states.map((state) => colour(theme, `--state-${state}`));
      expect(new Set(marks).size).toBe(states.length);
    }
  });

  it('set in the dark theme every colour the light theme sets, and no other', () => {
    const literal = [...light].filter(([, value]) => value.startsWith('#')).map(([name]) => name);
    expect([...darkOnly.keys()].sort()).toEqual(literal.sort());
  });

  for (const [name, theme] of Object.entries(themes)) {
    it(`keep WCAG AA contrast where colours meet, in the ${name} theme`, () => {
      const short = pairs
        .map(([fg, bg, least]) => ({
          fg,
          bg,
          least,
          ratio: contrast(opaque(theme, colour(theme, fg)), opaque(theme, colour(theme, bg))),
        }))
        .filter(({ ratio, least }) => ratio < least)
        .map(({ fg, bg, ratio, least }) => `${fg} on ${bg}: ${ratio.toFixed(2)} < ${least}`);
      expect(short).toEqual([]);
    });
  }
});
