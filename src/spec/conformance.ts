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
  differs: string[];
  /** "Not expressible" verdicts by refusal kind (`unknown`: the engine named none). */
  byKind: Partial<Record<RefusalKind | 'unknown', number>>;
  /**
   * "Not expressible" verdicts whose kind is not a limit of parking (permutation, then
   * kind): the ones the session layer should not give.
   */
  otherReasons: string[];
}

/**
 * The refusals that are the limits of parking: a session set aside on PGlite's one
 * backend would have to go on: a parked transaction, or a statement that would wait for an
 * advisory lock part-way through and then continue.
 */
export const parkingLimits: ReadonlySet<RefusalKind> = new Set<RefusalKind>([
  'parked-goes-on',
  'advisory-part-way',
]);

/** Whether a refusal of this kind is a limit of parking (see `parkingLimits`). */
export function mustContinue(kind: RefusalKind | undefined): boolean {
  return kind !== undefined && parkingLimits.has(kind);
}

/**
 * Judges `actual` against the expected outputs (PostgreSQL accepts any of them): a
 * permutation matches when its block equals the block of the same permutation in one
 * of them; a block that says `not expressible:` is counted as such, under the kind of
 * the refusal in `refusals` made for the same steps, in order.
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
    permutations: blocks.length,
    matches: 0,
    notExpressible: 0,
    differs: [],
    byKind: {},
    otherReasons: [],
  };
  blocks.forEach((block, i) => {
    const steps = block.steps.replace('starting permutation: ', '');
    if (/^starting permutation: .*\nnot expressible: /.test(block.text)) {
      const claimed = unclaimed.findIndex((r) => r.steps.join(' ') === steps);
      const kind = claimed < 0 ? undefined : unclaimed.splice(claimed, 1)[0]!.kind;
      verdicts.notExpressible++;
      verdicts.byKind[kind ?? 'unknown'] = (verdicts.byKind[kind ?? 'unknown'] ?? 0) + 1;
      if (!mustContinue(kind)) verdicts.otherReasons.push(`${steps}: ${kind ?? 'unknown'}`);
    } else if (wanted.some((w) => w[i]?.steps === block.steps && w[i]?.text === block.text)) {
      verdicts.matches++;
    } else verdicts.differs.push(steps);
  });
  return verdicts;
}
