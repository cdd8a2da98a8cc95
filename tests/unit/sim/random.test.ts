import { describe, expect, it } from 'vitest';
import { mulberry32, randomStream, streamSeed } from '../../../src/sim/random';

/** mulberry32 as its author published it, to check ours against. */
function reference(seed: number): () => number {
  let a = seed;
  return () => {
    let t = (a += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function draws(seed: number, n: number): number[] {
  const out: number[] = [];
  let state = seed;
  for (let i = 0; i < n; i++) {
    const next = mulberry32(state);
    out.push(next.value);
    state = next.state;
  }
  return out;
}

describe('mulberry32', () => {
  it('gives the published generator’s numbers', () => {
    expect(draws(1, 3)).toEqual([0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
    for (const seed of [0, 42, 123456789, 4294967295]) {
      const ref = reference(seed);
      expect(draws(seed, 50)).toEqual(Array.from({ length: 50 }, ref));
    }
  });

  it('keeps its state as an unsigned 32-bit integer', () => {
    let state = 4294967295;
    for (let i = 0; i < 100; i++) {
      state = mulberry32(state).state;
      expect(Number.isInteger(state) && state >= 0 && state < 2 ** 32).toBe(true);
    }
  });
});

describe('randomStream', () => {
  it('gives the same draws for the same seed and label, and others for another', () => {
    const take = (seed: number, label: string) => {
      const r = randomStream({}, seed, label);
      return Array.from({ length: 20 }, () => r.float());
    };
    expect(take(7, 'worker-01')).toEqual(take(7, 'worker-01'));
    expect(take(7, 'worker-01')).not.toEqual(take(7, 'worker-02'));
    expect(take(7, 'worker-01')).not.toEqual(take(8, 'worker-01'));
    expect(streamSeed(7, 'a')).not.toBe(streamSeed(7, 'b'));
  });

  it('keeps each stream’s state in plain JSON, so a copy goes on where the original was', () => {
    const states: Record<string, number> = {};
    const a = randomStream(states, 3, 'uploads');
    a.float();
    a.float();
    const saved = JSON.parse(JSON.stringify(states)) as Record<string, number>;
    const next = [a.float(), a.float()];
    const b = randomStream(saved, 3, 'uploads');
    expect([b.float(), b.float()]).toEqual(next);
  });

  it('draws whole numbers within both bounds', () => {
    const r = randomStream({}, 11, 'int');
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) seen.add(r.int(3, 7));
    expect([...seen].sort()).toEqual([3, 4, 5, 6, 7]);
  });

  it('draws exponential gaps of whole ms, at least 1, around the mean', () => {
    const r = randomStream({}, 5, 'gaps');
    const gaps = Array.from({ length: 5000 }, () => r.exponentialMs(200));
    expect(gaps.every((g) => Number.isInteger(g) && g >= 1)).toBe(true);
    const mean = gaps.reduce((s, g) => s + g, 0) / gaps.length;
    expect(mean).toBeGreaterThan(185);
    expect(mean).toBeLessThan(215);
  });
});
