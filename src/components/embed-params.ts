// The URL parameters every demo takes, whatever its own: `theme=light|dark|auto`,
// `load=click` and `present=1`, defined once (url-params.ts) for the parser, the teacher's
// docs and the embed builder. Nothing here throws: a value that cannot be used is kept as
// a problem of a known kind, the default stands, and the demo names it in a sentence.
// (The theme itself is applied before the first paint by ThemeScript.astro, from the same
// choices in theme.ts; this module reads it so that a bad value is reported.)
import { themeChoices, type ThemeChoice } from './theme';
import { readParams, type ParamProblem, type ParamSpec } from './url-params';

/** The parameters every demo takes. */
export const embedParameters: readonly ParamSpec[] = [
  {
    kind: 'choice',
    name: 'theme',
    options: themeChoices.map((value) => ({
      value,
      label: value === 'auto' ? 'follows the reader’s system' : value,
    })),
    default: 'auto',
    says: 'colours; auto follows the reader’s system',
  },
  {
    kind: 'choice',
    name: 'load',
    options: [
      { value: 'view', label: 'as it comes into view' },
      { value: 'click', label: 'when the reader presses Start' },
    ],
    default: 'view',
    says: 'when PostgreSQL starts: in view, or on a button press (nothing is fetched before)',
  },
  {
    kind: 'flag',
    name: 'present',
    default: false,
    says: 'presenter mode: large type, high contrast, keys step it, no inner scrollbars',
  },
];

/** The names every demo takes; a demo's own parser leaves them to this module. */
export const embedParamNames: readonly string[] = embedParameters.map((p) => p.name);

/** What the shared parameters of a demo's URL ask for. */
export interface EmbedParams {
  theme: ThemeChoice;
  /** `load=click`: PostgreSQL starts only when the reader presses the start button. */
  startOnClick: boolean;
  /** `present=1`: presentation mode, for projecting in class. */
  present: boolean;
  problems: ParamProblem[];
}

/** Reads the shared parameters of a query string (`?theme=dark&load=click`). */
export function readEmbedParams(search: string): EmbedParams {
  const own = new URLSearchParams(search);
  for (const name of [...own.keys()]) if (!embedParamNames.includes(name)) own.delete(name);
  const { values, problems } = readParams(embedParameters, own.toString());
  return {
    theme: values.theme as ThemeChoice,
    startOnClick: values.load === 'click',
    present: values.present === true,
    problems,
  };
}
