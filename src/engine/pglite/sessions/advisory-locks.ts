// Session-level advisory locks, kept by the layer, since every session shares the one backend.
import { advisoryCalls, type AdvisoryCall } from '../advisory';
import { whose, type LayerContext, type SessionRecord } from './context';
import { setAside } from './parking';
import { notExpressible } from './replies';
import { executedText } from './session-settings';
import type { WaitOn } from './waiting';

/** Session-level advisory lock functions (not the _xact_ ones, which end with the transaction). */
const sessionAdvisoryLock = /\bpg_(?:try_)?advisory_(?:un)?lock(?:_shared|_all)?\s*\(/i;

/** A statement that is one call of pg_advisory_lock and nothing else. */
const advisoryLockAlone =
  /^\s*SELECT\s+pg_advisory_lock\s*\(\s*-?\d+\s*(?:,\s*-?\d+\s*)?\)\s*;?\s*$/i;

/** What `checkAdvisory` found: the calls to note once the statement ran, a wait, or a refusal. */
export type AdvisoryVerdict =
  | { verdict: 'free'; calls: AdvisoryCall[] }
  | { verdict: 'waits'; wait: WaitOn }
  | { verdict: 'refused'; reply: ReturnType<typeof notExpressible> };

/**
 * Whether `s` may run `sql` as far as session-level advisory locks go: a key another
 * session holds makes a lone `SELECT pg_advisory_lock(k)` wait, and anything else that
 * takes it is refused, since the backend would not make it wait.
 */
export async function checkAdvisory(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<AdvisoryVerdict> {
  const { advisoryHeld } = ctx;
  const executed = executedText(s, sql);
  const calls = sessionAdvisoryLock.test(executed) ? advisoryCalls(executed) : [];
  if (calls === null) return { verdict: 'refused', reply: notExpressible('advisory-untracked') };
  const taken = calls.find(
    (c) =>
      (c.fn === 'lock' || c.fn === 'try') &&
      advisoryHeld.get(c.key)?.holder !== s &&
      advisoryHeld.has(c.key),
  );
  if (!taken) return { verdict: 'free', calls };
  const holder = advisoryHeld.get(taken.key)!.holder;
  // A statement that is only this one call waits whole, and runs whole once the key
  // is free: the layer, not the backend, keeps who holds it.
  if (taken.fn === 'lock' && advisoryLockAlone.test(sql)) {
    if (ctx.resident && ctx.resident !== s) await setAside(ctx, ctx.resident);
    const held = () => {
      const h = advisoryHeld.get(taken.key);
      return h !== undefined && h.holder !== s && ctx.sessions.has(h.holder.id);
    };
    const lock = `ExclusiveLock on advisory lock ${await advisoryTag(ctx, taken.key)}`;
    return { verdict: 'waits', wait: { holder, event: 'advisory', lock, held } };
  }
  const kind = taken.fn === 'try' ? 'advisory-try' : 'advisory-part-way';
  return { verdict: 'refused', reply: notExpressible(kind, whose(holder), taken.key) };
}

/** The tag of advisory lock `key` (`5` or `1,2`), as DescribeLockTag writes it. */
async function advisoryTag(ctx: LayerContext, key: string): Promise<string> {
  if (ctx.databaseOid === undefined) {
    const [read] = await ctx.backend.exec(
      'SELECT oid::text FROM pg_database WHERE datname = current_database()',
    );
    ctx.databaseOid = read!.rows[0]![0]!;
  }
  // One bigint key fills fields 2 and 3 with its high and low halves and field 4 with 1;
  // two int keys fill them as they are, with 2 (SET_LOCKTAG_INT64/INT32 in lockfuncs.c).
  const [a, b] = key.split(',').map(BigInt);
  const u32 = (n: bigint) => BigInt.asUintN(32, n).toString();
  const fields = b === undefined ? [u32(a! >> 32n), u32(a!), '1'] : [u32(a!), u32(b), '2'];
  return `[${ctx.databaseOid},${fields.join(',')}]`;
}

/** Records the session-level advisory locks `s` took or gave back. */
export function noteAdvisory(ctx: LayerContext, s: SessionRecord, calls: AdvisoryCall[]): void {
  const { advisoryHeld } = ctx;
  for (const { fn, key } of calls) {
    const held = advisoryHeld.get(key);
    if (fn === 'lock' || fn === 'try') {
      advisoryHeld.set(key, { holder: s, count: (held?.count ?? 0) + 1 });
    } else if (fn === 'unlock' && held?.holder === s) {
      if (--held.count === 0) advisoryHeld.delete(key);
    } else if (fn === 'unlock_all') {
      for (const [k, h] of advisoryHeld) if (h.holder === s) advisoryHeld.delete(k);
    }
  }
}
