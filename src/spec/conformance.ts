// Compares isolation-tester output with PostgreSQL's expected `.out` files, permutation by
// permutation, so that an engine's "not expressible" verdicts can be told apart from
// differences, and sorted by the kind of refusal behind them.
import type { RefusalKind } from '../engine/types';

/** One permutation's block of `.out` text, keyed by its step list. */
export interface PermutationBlock {
  steps: string;
  text: string;
}

/** Splits `.out` text at its `starting permutation:` lines (the preamble is dropped). */
export function permutationBlocks(out: string): PermutationBlock[] {
  return out
    .split(/^(?=starting permutation: )/m)
    .slice(1)
    .map((text) => ({ steps: text.split('\n', 1)[0]!, text }));
}

/** A permutation the engine refused, as `RunOptions.onRefusal` heard it. */
export interface RefusedPermutation {
  /** Its step names, as on its `starting permutation:` line. */
  steps: string[];
  kind: RefusalKind | undefined;
}

/** What became of each permutation of one spec on an engine. */
export interface Verdicts {
  permutations: number;
  matches: number;
  notExpressible: number;
  /** Permutations whose text differs from every expected output. */
  differs: string[];
  /**
   * Permutations the tester had to cancel or give up on (a step that never ended), or
   * that never ran because the spec ran out of time.
   */
  timedOut: string[];
  /** "Not expressible" verdicts by refusal kind (`unknown`: the engine named none). */
  byKind: Partial<Record<RefusalKind | 'unknown', number>>;
}

/** The tester's words when a step would not end: it cancels the step, then gives up. */
const gaveUp = /^isolationtester: canceling step |^step \S+ timed out after /m;

/**
 * Judges `actual` against the expected outputs (PostgreSQL accepts any of them): a
 * permutation matches when its block equals the block of the same permutation in one
 * of them; a block that says `not expressible:` is counted as such, under the kind of
 * the refusal in `refusals` made for the same steps, in order. Expected permutations
 * that `actual` never reached (the run was stopped) count as timed out.
 */
export function judge(
  actual: string,
  expected: string[],
  refusals: RefusedPermutation[] = [],
): Verdicts {
  const blocks = permutationBlocks(actual);
  const wanted = expected.map(permutationBlocks);
  const unclaimed = [...refusals];
  const verdicts: Verdicts = {
    permutations: Math.max(blocks.length, ...wanted.map((w) => w.length)),
    matches: 0,
    notExpressible: 0,
    differs: [],
    timedOut: [],
    byKind: {},
  };
  blocks.forEach((block, i) => {
    const steps = block.steps.replace('starting permutation: ', '');
    if (/^starting permutation: .*\nnot expressible: /.test(block.text)) {
      const claimed = unclaimed.findIndex((r) => r.steps.join(' ') === steps);
      const kind = claimed < 0 ? undefined : unclaimed.splice(claimed, 1)[0]!.kind;
      verdicts.notExpressible++;
      verdicts.byKind[kind ?? 'unknown'] = (verdicts.byKind[kind ?? 'unknown'] ?? 0) + 1;
    } else if (wanted.some((w) => w[i]?.steps === block.steps && w[i]?.text === block.text)) {
      verdicts.matches++;
    } else if (gaveUp.test(block.text) && !wanted.some((w) => gaveUp.test(w[i]?.text ?? ''))) {
      verdicts.timedOut.push(steps);
    } else verdicts.differs.push(steps);
  });
  const longest = wanted.reduce((a, b) => (b.length > a.length ? b : a), []);
  for (const missing of longest.slice(blocks.length)) {
    verdicts.timedOut.push(missing.steps.replace('starting permutation: ', ''));
  }
  return verdicts;
}
