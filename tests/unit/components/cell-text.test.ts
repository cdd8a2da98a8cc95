// A result's cell as the page draws it: whole up to CELL_CHARS characters, then cut, with
// the words for what is left out.
import { describe, expect, it } from 'vitest';
import { CELL_CHARS, cellText } from '../../../src/components/console-text';

describe('cellText', () => {
  it('draws a value up to the limit whole', () => {
    expect(cellText('queued')).toEqual({ shown: 'queued' });
    expect(cellText('x'.repeat(CELL_CHARS))).toEqual({ shown: 'x'.repeat(CELL_CHARS) });
  });

  it('cuts a longer value and counts what it leaves out', () => {
    const { shown, more } = cellText('x'.repeat(100_000));
    expect(shown).toBe('x'.repeat(CELL_CHARS));
    expect(more).toBe('… 98,000 more characters not drawn (a limit of this page)');
    expect(cellText('abcd', 3).more).toContain('1 more character not');
  });

  it('never cuts a surrogate pair in half', () => {
    const { shown, more } = cellText(`ab🐘🐘`, 3);
    expect(shown).toBe('ab');
    expect(more).toContain('2 more characters');
  });
});
