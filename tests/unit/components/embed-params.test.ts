import { describe, expect, it } from 'vitest';
import { embedParameters, readEmbedParams } from '../../../src/components/embed-params';
import { resolveTheme, themeChoices } from '../../../src/components/theme';
import { describeParamProblem } from '../../../src/components/url-params';

describe('readEmbedParams', () => {
  it('gives the defaults when the address says nothing', () => {
    expect(readEmbedParams('')).toEqual({
      theme: 'auto',
      startOnClick: false,
      present: false,
      problems: [],
    });
  });

  it('reads theme, load=click and present=1 as a teacher writes them', () => {
    expect(readEmbedParams('?theme=dark&load=click&present=1&workers=30')).toEqual({
      theme: 'dark',
      startOnClick: true,
      present: true,
      problems: [],
    });
    expect(readEmbedParams('?theme=light&present').present).toBe(true);
    expect(readEmbedParams('?theme=auto&present=0&load=view')).toMatchObject({
      theme: 'auto',
      startOnClick: false,
      present: false,
      problems: [],
    });
  });

  it('keeps each default and names the value it could not use, by kind', () => {
    const { theme, startOnClick, present, problems } = readEmbedParams(
      '?theme=purple&load=eager&present=yes',
    );
    expect({ theme, startOnClick, present }).toEqual({
      theme: 'auto',
      startOnClick: false,
      present: false,
    });
    expect(problems.map((p) => [p.kind, p.name, p.value])).toEqual([
      ['not-an-option', 'theme', 'purple'],
      ['not-an-option', 'load', 'eager'],
      ['not-a-flag', 'present', 'yes'],
    ]);
  });

  it('says what became of a bad value in one sentence that names it', () => {
    const { problems } = readEmbedParams('?theme=purple&load=eager&present=yes');
    const sentences = problems.map(describeParamProblem);
    expect(sentences[0]).toContain('theme=purple');
    expect(sentences[1]).toContain('load=eager');
    expect(sentences[2]).toContain('yes');
    for (const sentence of sentences) expect(sentence).not.toMatch(/[.\n]/);
  });

  it('documents the theme choices ThemeScript applies', () => {
    const theme = embedParameters.find((p) => p.name === 'theme');
    expect(theme?.kind === 'choice' && theme.options.map((o) => o.value)).toEqual([
      ...themeChoices,
    ]);
  });
});

describe('resolveTheme', () => {
  it('follows the system in auto and keeps a forced theme', () => {
    expect(resolveTheme('auto', true)).toBe('dark');
    expect(resolveTheme('auto', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
  });
});
