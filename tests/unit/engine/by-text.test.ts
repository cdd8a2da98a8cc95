import { describe, expect, it } from 'vitest';
import { byText } from '../../../src/engine/by-text';

describe('byText', () => {
  it('works an answer out once per text, and again for another text', () => {
    const seen: string[] = [];
    const length = byText((text) => {
      seen.push(text);
      return { length: text.length };
    });
    const first = length('SELECT 1');
    expect(length('SELECT 1')).toBe(first);
    expect(length('SELECT 22')).toEqual({ length: 9 });
    expect(seen).toEqual(['SELECT 1', 'SELECT 22']);
  });

  it('remembers answers that are false or null as well', () => {
    let calls = 0;
    const never = byText(() => (calls++, null));
    never('x');
    never('x');
    expect(calls).toBe(1);
  });

  it('keeps at most `kept` texts, letting the oldest go first', () => {
    const seen: string[] = [];
    const echo = byText((text) => (seen.push(text), text), { kept: 2 });
    echo('a');
    echo('b');
    echo('c'); // `a` goes
    echo('b');
    echo('a');
    expect(seen).toEqual(['a', 'b', 'c', 'a']);
  });

  it('does not keep a text longer than `longest`', () => {
    let calls = 0;
    const count = byText(() => ++calls, { longest: 4 });
    count('long text');
    count('long text');
    expect(calls).toBe(2);
  });
});
