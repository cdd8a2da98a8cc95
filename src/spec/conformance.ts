// Compares isolation-tester output with PostgreSQL's expected `.out` files, permutation by
// permutation, so that an engine's "not expressible" verdicts can be told apart from
// differences.

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

/** What became of each permutation of one spec on an engine. */
export interface Verdicts {
  permutations: number;
  matches: number;
  notExpressible: number;
  differs: string[];
  /**
   * "Not expressible" verdicts for a reason other than a parked session having to go
   * on (permutation, then reason): the ones the session layer should not give.
   */
  otherReasons: string[];
}

/**
 * Whether a "not expressible" reason is that a session set aside on PGlite's one backend
 * would have to go on: a parked transaction (sessions.ts, `runQuery`), or a statement
 * that would wait part-way through and then continue. These are the limits of parking.
 */
export function mustContinue(reason: string): boolean {
  return (
    reason.startsWith('this session’s transaction is parked:') ||
    reason.includes('would wait, part-way through,')
  );
}

/**
 * Judges `actual` against the expected outputs (PostgreSQL accepts any of them): a
 * permutation matches when its block equals the block of the same permutation in one
 * of them; a block that says `not expressible:` is counted as such.
 */
export function judge(actual: string, expected: string[]): Verdicts {
  const blocks = permutationBlocks(actual);
  const wanted = expected.map(permutationBlocks);
  const verdicts: Verdicts = {
    permutations: blocks.length,
    matches: 0,
    notExpressible: 0,
    differs: [],
    otherReasons: [],
  };
  blocks.forEach((block, i) => {
    const refusal = /^starting permutation: .*\nnot expressible: (.*)/.exec(block.text);
    if (refusal) {
      verdicts.notExpressible++;
      if (!mustContinue(refusal[1]!)) {
        verdicts.otherReasons.push(
          `${block.steps.replace('starting permutation: ', '')}: ${refusal[1]}`,
        );
      }
    } else if (wanted.some((w) => w[i]?.steps === block.steps && w[i]?.text === block.text)) {
      verdicts.matches++;
    } else verdicts.differs.push(block.steps.replace('starting permutation: ', ''));
  });
  return verdicts;
}
