// The URL parameters every demo takes, whatever its own: `theme=light|dark|auto`,
// `load=click` and `present=1`. Nothing here throws: a value that cannot be used is kept
// as a problem of a known kind, the default stands, and the demo names it in a sentence.
// (The theme itself is applied before the first paint by ThemeScript.astro; this module
// reads it so that a bad value is reported.)
import type { DemoParameter } from './demo-list';
import { isThemeChoice, themeChoices, type ThemeChoice } from './theme';

/** The names every demo takes; a demo's own parser leaves them to this module. */
export const embedParamNames = ['theme', 'load', 'present'] as const;
export type EmbedParamName = (typeof embedParamNames)[number];

/** What the shared parameters of a demo's URL ask for. */
export interface EmbedParams {
  theme: ThemeChoice;
  /** `load=click`: PostgreSQL starts only when the reader presses the start button. */
  startOnClick: boolean;
  /** `present=1`: presentation mode, for projecting in class. */
  present: boolean;
  problems: EmbedParamProblem[];
}

/** A parameter whose value could not be used; its default stands. */
export interface EmbedParamProblem {
  kind: 'invalid-value';
  name: EmbedParamName;
  value: string;
}

/** The shared parameters, for the teacher's docs. */
export const embedParameters: readonly DemoParameter[] = [
  {
    name: 'theme',
    values: themeChoices.join(' | '),
    description: 'colours; auto follows the reader’s system',
  },
  {
    name: 'load',
    values: 'click',
    description: 'start PostgreSQL on a button press, not in view',
  },
  { name: 'present', values: '1 | 0', description: 'presentation mode: larger, starker' },
];

const yes = ['1', 'true', ''];
const no = ['0', 'false'];

/** Reads the shared parameters of a query string (`?theme=dark&load=click`). */
export function readEmbedParams(search: string): EmbedParams {
  const params = new URLSearchParams(search);
  const problems: EmbedParamProblem[] = [];
  const invalid = (name: EmbedParamName, value: string) =>
    problems.push({ kind: 'invalid-value', name, value });

  let theme: ThemeChoice = 'auto';
  const themeText = params.get('theme');
  if (themeText !== null) {
    if (isThemeChoice(themeText)) theme = themeText;
    else invalid('theme', themeText);
  }

  const loadText = params.get('load');
  const startOnClick = loadText === 'click';
  if (loadText !== null && !startOnClick) invalid('load', loadText);

  const presentText = params.get('present');
  let present = false;
  if (presentText !== null) {
    present = yes.includes(presentText);
    if (!present && !no.includes(presentText)) invalid('present', presentText);
  }

  return { theme, startOnClick, present, problems };
}

/** The sentence a demo shows for `problem`. */
export function describeEmbedProblem(problem: EmbedParamProblem): string {
  const { name, value } = problem;
  switch (name) {
    case 'theme':
      return `theme=${value} is not one of ${themeChoices.join(', ')}, so it was ignored`;
    case 'load':
      return `load=${value} is not click, so PostgreSQL starts when the demo comes into view`;
    case 'present':
      return `present must be 1 or 0, not “${value}”; not in presentation mode`;
  }
}
