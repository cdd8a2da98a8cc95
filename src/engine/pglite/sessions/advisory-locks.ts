// Session-level advisory locks, kept by the layer, since every session shares the one backend.
import { advisoryCalls, advisoryKey, xactAdvisoryCalls, type AdvisoryCall } from '../advisory';
import { databaseOid, whose, type LayerContext, type SessionRecord } from './context';
import { setAside } from './parking';
import { notExpressible } from './replies';
import { executedText } from './session-settings';
import type { WaitOn } from './waiting';

/** Session-level advisory lock functions (not the _xact_ ones, which end with the transaction). */
const sessionAdvisoryLock = /\bpg_(?:try_)?advisory_(?:un)?lock(?:_shared|_all)?\s*\(/i;

/** A statement that is one call of pg_advisory_lock or pg_advisory_xact_lock and nothing else. */
const advisoryLockAlone =
  /^\s*SELECT\s+pg_advisory(?:_xact)?_lock(?:_shared)?\s*\(\s*-?\d+\s*(?:,\s*-?\d+\s*)?\)\s*;?\s*$/i;

/** Any advisory lock function at all, taking or giving up, at either level. */
const anyAdvisoryFunction = /\bpg_(?:try_)?advisory_/i;

/** Any call that takes an advisory lock, at either level. */
const anyAdvisoryLock = /\bpg_(?:try_)?advisory_(?:xact_)?lock(?:_shared)?\s*\(/i;

/** An advisory lock a parked transaction holds (a transaction-level one, in pg_locks). */
interface ParkedAdvisory {
  holder: SessionRecord;
  key: string;
  shared: boolean;
}

/** The advisory locks parked transactions hold, from pg_locks. */
async function parkedAdvisoryLocks(ctx: LayerContext): Promise<ParkedAdvisory[]> {
  const byGid = new Map(
    [...ctx.sessions.values()].flatMap((r) =>
      r.holding.kind === 'parked' ? [[r.holding.gid, r] as const] : [],
    ),
  );
  if (byGid.size === 0) return [];
  const [locks] = await ctx.backend.exec(`
    WITH parked AS (
      SELECT l.virtualtransaction, p.gid
        FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_prepared_xacts p
          ON l.locktype = 'transactionid' AND l.transactionid = p.transaction)
    SELECT parked.gid, l.classid::pg_catalog.text, l.objid::pg_catalog.text,
           l.objsubid::pg_catalog.text, l.mode
      FROM pg_catalog.pg_locks l JOIN parked USING (virtualtransaction)
     WHERE l.locktype = 'advisory'`);
  return locks!.rows.flatMap(([gid, classid, objid, objsubid, mode]) => {
    const holder = byGid.get(gid!);
    return holder
      ? [{ holder, key: advisoryKey(classid!, objid!, objsubid!), shared: mode === 'ShareLock' }]
      : [];
  });
}

/** What `checkAdvisory` found: the calls to note once the statement ran, a wait, or a refusal. */
export type AdvisoryVerdict =
  | { verdict: 'free'; calls: readonly AdvisoryCall[] }
  | { verdict: 'waits'; wait: WaitOn }
  | { verdict: 'refused'; reply: ReturnType<typeof notExpressible> };

/** The verdict on a statement that calls no advisory lock function (most of them). */
const noAdvisory: AdvisoryVerdict = Object.freeze({ verdict: 'free', calls: Object.freeze([]) });

/**
 * Whether `s` may run `sql` as far as session-level advisory locks go: a key another
 * session holds makes a lone `SELECT pg_advisory_lock(k)` wait, and anything else that
 * takes it is refused, since the backend would not make it wait. A statement that calls
 * no advisory lock function is answered at once, with nothing to wait for.
 */
export function checkAdvisory(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): AdvisoryVerdict | Promise<AdvisoryVerdict> {
  const executed = executedText(s, sql);
  return anyAdvisoryFunction.test(executed) ? checkCalls(ctx, s, sql, executed) : noAdvisory;
}

/** `checkAdvisory` for a statement that calls advisory lock functions (`executed` as run). */
async function checkCalls(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  executed: string,
): Promise<AdvisoryVerdict> {
  const { advisoryHeld } = ctx;
  const calls = sessionAdvisoryLock.test(executed) ? advisoryCalls(executed) : [];
  if (calls === null) return { verdict: 'refused', reply: notExpressible('advisory-untracked') };
  // A key another session holds, given back: on a server this session holds none of it,
  // and PostgreSQL answers false with a warning (unlock_all leaves it alone); the one
  // backend holds it for every session, and would let it go.
  for (const c of calls) {
    const held =
      c.fn === 'unlock'
        ? [advisoryHeld.get(c.key)]
        : c.fn === 'unlock_all'
          ? [...advisoryHeld.values()]
          : [];
    const other = held.find((h) => h && h.holder !== s && ctx.sessions.has(h.holder.id));
    if (other) {
      return {
        verdict: 'refused',
        reply: notExpressible('advisory-not-held', whose(other.holder), c.key),
      };
    }
  }
  const xactCalls = xactAdvisoryCalls(executed);
  if (xactCalls === null) {
    return { verdict: 'refused', reply: notExpressible('advisory-untracked') };
  }
  // Keys held by others: session-level ones the layer keeps (the backend holds them for
  // every session alike), and transaction-level ones a parked transaction holds.
  let parked: ParkedAdvisory[] = [];
  if (anyAdvisoryLock.test(executed)) {
    // The resident's transaction-level locks are only in pg_locks as a parked one's.
    if (ctx.resident && ctx.resident !== s) await setAside(ctx, ctx.resident);
    parked = await parkedAdvisoryLocks(ctx);
  }
  const wanted = [
    ...calls.flatMap((c) =>
      c.fn === 'lock' || c.fn === 'try' ? [{ fn: c.fn, shared: false, key: c.key }] : [],
    ),
    ...xactCalls,
  ];
  for (const call of wanted) {
    const held = parked.find(
      (p) => p.holder !== s && p.key === call.key && !(p.shared && call.shared),
    );
    if (!held) continue;
    // A try is answered by the backend itself, truthfully: the parked lock is a real one.
    if (call.fn === 'try') continue;
    if (!advisoryLockAlone.test(sql)) {
      return {
        verdict: 'refused',
        reply: notExpressible('advisory-part-way', whose(held.holder), call.key),
      };
    }
    const whoHolds = held.holder;
    const stillHeld = () => whoHolds.holding.kind === 'parked' && ctx.sessions.has(whoHolds.id);
    return advisoryWait(ctx, s, whoHolds, call.key, call.shared, stillHeld);
  }
  // Session-level keys the layer keeps: the backend itself holds them for every session.
  const taken = wanted.find(
    (c) => advisoryHeld.has(c.key) && advisoryHeld.get(c.key)!.holder !== s,
  );
  if (!taken) return { verdict: 'free', calls };
  const holder = advisoryHeld.get(taken.key)!.holder;
  // A statement that is only this one call waits whole, and runs whole once the key
  // is free: the layer, not the backend, keeps who holds it.
  if (taken.fn === 'lock' && advisoryLockAlone.test(sql)) {
    const held = () => {
      const h = advisoryHeld.get(taken.key);
      return h !== undefined && h.holder !== s && ctx.sessions.has(h.holder.id);
    };
    return advisoryWait(ctx, s, holder, taken.key, false, held);
  }
  const kind = taken.fn === 'try' ? 'advisory-try' : 'advisory-part-way';
  return { verdict: 'refused', reply: notExpressible(kind, whose(holder), taken.key) };
}

/** `s`'s lone advisory lock call waits for `holder`'s lock on `key`, while `held`. */
async function advisoryWait(
  ctx: LayerContext,
  s: SessionRecord,
  holder: SessionRecord,
  key: string,
  shared: boolean,
  held: () => boolean,
): Promise<AdvisoryVerdict> {
  if (ctx.resident && ctx.resident !== s) await setAside(ctx, ctx.resident);
  const mode = shared ? 'ShareLock' : 'ExclusiveLock';
  const lock = `${mode} on advisory lock ${await advisoryTag(ctx, key)}`;
  return { verdict: 'waits', wait: { holder, event: 'advisory', lock, held } };
}

/** The tag of advisory lock `key` (`5` or `1,2`), as DescribeLockTag writes it. */
async function advisoryTag(ctx: LayerContext, key: string): Promise<string> {
  const database = await databaseOid(ctx);
  // One bigint key fills fields 2 and 3 with its high and low halves and field 4 with 1;
  // two int keys fill them as they are, with 2 (SET_LOCKTAG_INT64/INT32 in lockfuncs.c).
  const [a, b] = key.split(',').map(BigInt);
  const u32 = (n: bigint) => BigInt.asUintN(32, n).toString();
  const fields = b === undefined ? [u32(a! >> 32n), u32(a!), '1'] : [u32(a!), u32(b), '2'];
  return `[${database},${fields.join(',')}]`;
}

/**
 * Records the session-level advisory locks `s` took or gave back. `present` is the keys
 * the backend holds once the statement ran (`heldKeys`), when asked: a call the statement
 * named but never made (`CASE WHEN false THEN pg_advisory_lock(…)`), or a try that got
 * nothing, took no lock, and an unlock never made left it held.
 */
export function noteAdvisory(
  ctx: LayerContext,
  s: SessionRecord,
  calls: readonly AdvisoryCall[],
  present?: ReadonlySet<string>,
): void {
  const { advisoryHeld } = ctx;
  for (const { fn, key } of calls) {
    const held = advisoryHeld.get(key);
    if (fn === 'lock' || fn === 'try') {
      if (present && !present.has(key)) continue;
      advisoryHeld.set(key, { holder: s, count: (held?.count ?? 0) + 1 });
    } else if (fn === 'unlock' && held?.holder === s) {
      if (--held.count === 0 && present?.has(key)) held.count = 1;
      else if (held.count === 0) advisoryHeld.delete(key);
    } else if (fn === 'unlock_all') {
      for (const [k, h] of advisoryHeld) if (h.holder === s) advisoryHeld.delete(k);
    }
  }
}

/** The advisory keys the backend itself holds now (its own pid's, not a parked one's). */
export async function heldKeys(ctx: LayerContext): Promise<Set<string>> {
  const [locks] = await ctx.backend.exec(
    `SELECT l.classid::pg_catalog.text, l.objid::pg_catalog.text, l.objsubid::pg_catalog.text
       FROM pg_catalog.pg_locks l
      WHERE l.locktype = 'advisory' AND l.granted AND l.pid = pg_catalog.pg_backend_pid()`,
  );
  return new Set(locks!.rows.map(([c, o, sub]) => advisoryKey(c!, o!, sub!)));
}
