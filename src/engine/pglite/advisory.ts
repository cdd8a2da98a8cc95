// Session-level advisory locks belong to a backend, and every session here shares PGlite's
// one backend: PostgreSQL itself would let any session take a lock another one holds. So
// the session layer keeps who holds which key, and reads from the text which keys a
// statement takes or gives back. Only calls it can follow exactly are read.
import { byText } from '../by-text';

/** One call of a session-level advisory lock function. */
export interface AdvisoryCall {
  fn: 'lock' | 'try' | 'unlock' | 'unlock_all';
  /** The key as written, normalised: `5` or `1,2` (the two-int form). */
  key: string;
}

const call = /\bpg_(try_)?advisory_(unlock_all|unlock|lock)(_shared)?\s*\(([^()]*)\)/gi;
const literalKey = /^\s*(-?\d+)\s*(?:,\s*(-?\d+)\s*)?$/;

/** Comments and quoted strings, where a function's name is no call. */
const notCode = /'(?:[^']|'')*'|--[^\n]*|\/\*[\s\S]*?\*\//g;

/** The key `m` (a `literalKey` match) names, as PostgreSQL reads it: `09` is `9`, `-0` is `0`. */
const keyOf = (m: RegExpExecArray) =>
  m[2] === undefined
    ? BigInt(m[1]!).toString()
    : `${BigInt(m[1]!).toString()},${BigInt(m[2]).toString()}`;

/**
 * The session-level advisory lock calls in `sql`, in order; null when one of them cannot
 * be followed (a shared lock, or a key that is not a literal number). Transaction-level
 * ones (`pg_advisory_xact_lock`) end with their transaction and are not listed.
 */
export function advisoryCalls(sql: string): AdvisoryCall[] | null {
  const calls: AdvisoryCall[] = [];
  for (const [, tryPrefix, verb, shared, args] of sql.replace(notCode, ' ').matchAll(call)) {
    if (shared) return null;
    if (verb!.toLowerCase() === 'unlock_all') {
      calls.push({ fn: 'unlock_all', key: '' });
      continue;
    }
    const key = literalKey.exec(args!);
    if (!key) return null;
    const fn = verb!.toLowerCase() === 'unlock' ? 'unlock' : tryPrefix ? 'try' : 'lock';
    calls.push({ fn, key: keyOf(key) });
  }
  return calls;
}

/** One call of a transaction-level advisory lock function (they end with the transaction). */
export interface XactAdvisoryCall {
  fn: 'lock' | 'try';
  shared: boolean;
  /** As in `AdvisoryCall`: `5` or `1,2`. */
  key: string;
}

const xactCall = /\bpg_(try_)?advisory_xact_lock(_shared)?\s*\(([^()]*)\)/gi;

/**
 * The transaction-level advisory lock calls in `sql`, in order; null when a key is not a
 * literal number. The backend keeps these with the transaction, so a parked one still
 * holds them; the layer reads them from pg_locks.
 */
export const xactAdvisoryCalls: (sql: string) => readonly XactAdvisoryCall[] | null =
  byText(advisoryCallsOf);

function advisoryCallsOf(sql: string): XactAdvisoryCall[] | null {
  const calls: XactAdvisoryCall[] = [];
  for (const [, tryPrefix, shared, args] of sql.replace(notCode, ' ').matchAll(xactCall)) {
    const key = literalKey.exec(args!);
    if (!key) return null;
    calls.push({
      fn: tryPrefix ? 'try' : 'lock',
      shared: Boolean(shared),
      key: keyOf(key),
    });
  }
  return calls;
}

/**
 * The key of an advisory lock as pg_locks shows it (classid, objid, objsubid): one bigint
 * split in two halves with objsubid 1, or two int4 keys with objsubid 2 (lockfuncs.c).
 */
export function advisoryKey(classid: string, objid: string, objsubid: string): string {
  const hi = BigInt(classid);
  const lo = BigInt(objid);
  if (objsubid === '1') return BigInt.asIntN(64, (hi << 32n) | lo).toString();
  return `${BigInt.asIntN(32, hi)},${BigInt.asIntN(32, lo)}`;
}
