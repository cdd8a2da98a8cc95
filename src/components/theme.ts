// The site's two colour themes, and the reader's choice between them. The choice lives on
// <html>: `data-theme-choice` (light, dark or auto) and `data-theme` (light or dark, what
// the stylesheets read). ThemeScript.astro sets both before the first paint; the header's
// theme switch changes them.

/** What a reader or an embed's `theme=` may ask for; `auto` follows `prefers-color-scheme`. */
export const themeChoices = ['auto', 'light', 'dark'] as const;
export type ThemeChoice = (typeof themeChoices)[number];

/** The theme the stylesheets draw. */
export type Theme = Exclude<ThemeChoice, 'auto'>;

/** Where a full site page remembers the reader's choice. */
export const themeStorageKey = 'seat-ledger:theme';

/** Whether `value` is one of the choices. */
export function isThemeChoice(value: unknown): value is ThemeChoice {
  return (themeChoices as readonly unknown[]).includes(value);
}

/** The theme drawn for `choice` when the reader's system prefers dark (or not). */
export function resolveTheme(choice: ThemeChoice, prefersDark: boolean): Theme {
  if (choice === 'auto') return prefersDark ? 'dark' : 'light';
  return choice;
}
