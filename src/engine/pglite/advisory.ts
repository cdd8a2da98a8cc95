// Session-level advisory locks belong to a backend, and every session here shares PGlite's
// one backend: PostgreSQL itself would let any session take a lock another one holds. So
// the session layer keeps who holds which key, and reads from the text which keys a
// statement takes or gives back. Only calls it can follow exactly are read.

/** One call of a session-level advisory lock function. */
export interface AdvisoryCall {
  fn: 'lock' | 'try' | 'unlock' | 'unlock_all';
  /** The key as written, normalised: `5` or `1,2` (the two-int form). */
  key: string;
}

const call = /\bpg_(try_)?advisory_(unlock_all|unlock|lock)(_shared)?\s*\(([^()]*)\)/gi;
const literalKey = /^\s*(-?\d+)\s*(?:,\s*(-?\d+)\s*)?$/;

/**
 * The session-level advisory lock calls in `sql`, in order; null when one of them cannot
 * be followed (a shared lock, or a key that is not a literal number). Transaction-level
 * ones (`pg_advisory_xact_lock`) end with their transaction and are not listed.
 */
export function advisoryCalls(sql: string): AdvisoryCall[] | null {
  const calls: AdvisoryCall[] = [];
  for (const [, tryPrefix, verb, shared, args] of sql.matchAll(call)) {
    if (shared) return null;
    if (verb!.toLowerCase() === 'unlock_all') {
      calls.push({ fn: 'unlock_all', key: '' });
      continue;
    }
    const key = literalKey.exec(args!);
    if (!key) return null;
    const fn = verb!.toLowerCase() === 'unlock' ? 'unlock' : tryPrefix ? 'try' : 'lock';
    calls.push({ fn, key: key[2] === undefined ? key[1]! : `${key[1]},${key[2]}` });
  }
  return calls;
}
