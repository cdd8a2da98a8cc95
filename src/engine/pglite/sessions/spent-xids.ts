// XIDs the layer spends that a server would not: a stand-in's (a snapshot or a wait set
// aside as a prepared transaction), a replayed transaction's old ones (rolled back for new
// ones), and a savepoint's it sets around a reader's statement (a NOWAIT probe, a statement
// run again after its wait), or a transaction's it begins for a probe and rolls back.
// XIDs are PGlite's own numbers either way; what a spent one changes is every count of
// XIDs across it: age() and VACUUM (VERBOSE)'s "XIDs old" and "XIDs ahead" come out one
// more per spent XID than a server's. sim.age() leaves them out (sim-schema.ts); VACUUM's
// counts are withheld, with the reason, where one lies in their span.
// (src/engine/ARCHITECTURE.md, "XIDs the layer spends".)
import { leadingKeyword, splitStatements } from '../../split-statements';
import type { BackendReply } from '../backend';
import type { Notice, StatementResult } from '../../types';
import { whose, type LayerContext, type SessionRecord } from './context';
import { notExpressible, type QueryReply } from './replies';

/** Notes `xid`, which the layer took and a server would not have. */
export function noteSpent(ctx: LayerContext, xid: string | number | bigint): void {
  const n = BigInt(xid);
  const at = ctx.spentXids.findLastIndex((x) => x <= n);
  if (ctx.spentXids[at] !== n) ctx.spentXids.splice(at + 1, 0, n);
}

/** A statement that opens a subtransaction, which takes an XID of its own once it writes. */
export const opensSubtransaction = /\bSAVEPOINT\b|\bEXCEPTION\b/i;

/** A statement that calls age(), which reads the spent XIDs (`sim.spent_xids`). */
export const asksAge = /\bage\s*\(/i;

/** The spent XIDs as `sim.age()` reads them from `sim.spent_xids`. */
export const spentSetting = (ctx: LayerContext) => ctx.spentXids.join(',');

/**
 * A refusal for a statement that counts XIDs (age()) once the layer spent an XID whose
 * number it could not read, so that the count cannot be put right; null otherwise.
 */
export function uncountedRefusal(ctx: LayerContext, sql: string): QueryReply | null {
  return ctx.xidsUncounted && asksAge.test(sql) ? notExpressible('xid-count-unknown') : null;
}

/**
 * Notes what a savepoint the layer set around a reader's statement (a NOWAIT probe, a
 * statement run again after a wait) spent, from the top-level XID before the savepoint and
 * after it is gone (`before`, `after`; null when none), and the savepoint's own XID when it
 * was read (`sub`, see `savepointXid`). A subtransaction gets its XID right after its
 * parent's, so a parent that got one meanwhile means the savepoint took the next. Where the
 * savepoint's work was `kept`, its rows carry its XID and the transaction shows the
 * parent's: the two stand for the one a server would take, and the lower is noted, so that
 * a count from either comes out as a server's.
 */
export function noteProbe(
  ctx: LayerContext,
  before: string | null,
  after: string | null,
  { kept, sub }: { kept: boolean; sub: bigint | null },
): void {
  if (sub !== null) noteSpent(ctx, sub);
  else if (before === null && after !== null) {
    noteSpent(ctx, kept ? BigInt(after) : BigInt(after) + 1n);
  }
}

/**
 * The next XID, taken now and spent: `sim.assigned_xid()` takes it in a subtransaction of
 * its own, reads it from the row it locked, and rolls it back. (SQL shows no
 * subtransaction's XID otherwise.)
 */
export async function nextXid(ctx: LayerContext): Promise<bigint> {
  const [read] = await ctx.backend.exec('SELECT sim.assigned_xid()::pg_catalog.text');
  const taken = BigInt(read!.rows[0]![0]!);
  noteSpent(ctx, taken);
  return taken;
}

/**
 * The XID of the savepoint open in the backend, which has locked or written rows, so has
 * one (its transaction had one before it, so that cannot tell it): the one before the next.
 */
export const savepointXid = async (ctx: LayerContext) => (await nextXid(ctx)) - 1n;

/**
 * Opens savepoint `name` for the layer's own use (after a BEGIN when `begin`), reading the
 * top-level XID first: what `closeSavepoint` needs to note the XIDs it spends.
 */
export async function openSavepoint(
  ctx: LayerContext,
  name: string,
  begin = false,
): Promise<string | null> {
  return topXid(
    await ctx.backend.exec(`${begin ? 'BEGIN; ' : ''}${readTopXid}; SAVEPOINT ${name}`),
  );
}

/**
 * Releases savepoint `name`, or rolls back to it first unless its work is `kept`, and notes
 * what it spent (`noteProbe`; `wrote`: it locked or wrote rows). The top-level XID after.
 */
export async function closeSavepoint(
  ctx: LayerContext,
  name: string,
  before: string | null,
  { kept, wrote }: { kept: boolean; wrote: boolean },
): Promise<string | null> {
  const sub = wrote && (before !== null || kept) ? await savepointXid(ctx) : null;
  const undo = kept ? '' : `ROLLBACK TO SAVEPOINT ${name}; `;
  const after = topXid(await ctx.backend.exec(`${undo}RELEASE SAVEPOINT ${name}; ${readTopXid}`));
  noteProbe(ctx, before, after, { kept, sub: before !== null ? sub : null });
  // Released into the transaction, the savepoint's XID stays on the rows it changed or
  // locked, where a check looking for the transaction's rows must know it (wait-checks.ts).
  if (kept && sub !== null && ctx.resident) {
    // As rows carry it: an XID of 32 bits, without its epoch.
    noteSavepointXid(ctx.resident, String(sub & 0xffffffffn));
  }
  return after;
}

/** Notes `xid`, a savepoint's, as one of `s`'s open transaction's (`savepointXids`). */
function noteSavepointXid(s: SessionRecord, xid: string): void {
  const known = savepointXidsOf(s);
  s.savepointXids = { xactSeq: s.xactSeq, xids: [...known, xid] };
}

/** The XIDs of `s`'s open transaction's savepoints that the layer released after they wrote. */
export const savepointXidsOf = (s: SessionRecord): string[] =>
  s.savepointXids?.xactSeq === s.xactSeq ? s.savepointXids.xids : [];

/** Reads the top-level XID of the transaction open in the backend (`topXid`). */
export const readTopXid = 'SELECT pg_catalog.pg_current_xact_id_if_assigned()::pg_catalog.text';

/** The XID `readTopXid` read, among the results of the statements sent with it. */
export const topXid = (results: StatementResult[]) =>
  results.find((r) => r.command === 'SELECT')!.rows[0]![0] ?? null;

/** The counts in VACUUM (VERBOSE)'s report, with the span of XIDs each counts. */
const counts: { line: RegExp; span: (xid: bigint, n: bigint) => [bigint, bigint] }[] = [
  // removable cutoff: C, which was N XIDs old when operation ended: N = next − C.
  { line: /(removable cutoff: (\d+), which was )(\d+)( XIDs old)/, span: (c, n) => [c, c + n] },
  // new relfrozenxid: F, which is N XIDs ahead of previous value: N = F − previous.
  { line: /(new relfrozenxid: (\d+), which is )(\d+)( XIDs ahead)/, span: (f, n) => [f - n, f] },
];

/**
 * `reply` with the XID counts of VACUUM (VERBOSE) left out where an XID the layer spent
 * lies in the span they count (a server would print fewer), each notice saying why.
 */
export function withholdCounts(ctx: LayerContext, reply: BackendReply): BackendReply {
  if (ctx.spentXids.length === 0 && !ctx.xidsUncounted) return reply;
  let changed = false;
  const notices = reply.notices.map((notice): Notice => {
    let message = notice.message;
    let spent = 0;
    for (const { line, span } of counts) {
      const m = line.exec(message);
      if (!m) continue;
      const [from, to] = span(BigInt(m[2]!), BigInt(m[3]!));
      const within = ctx.spentXids.filter((x) => x >= from && x < to).length;
      if (within === 0 && !ctx.xidsUncounted) continue;
      spent = Math.max(spent, within);
      message = message.replace(line, '$1…$4');
    }
    if (message === notice.message) return notice;
    changed = true;
    return { ...notice, message, withheld: withheldWords(spent) };
  });
  return changed ? { ...reply, notices } : reply;
}

const withheldWords = (spent: number) =>
  'The number of XIDs is left out: the in-browser engine spent ' +
  (spent > 0 ? `${spent === 1 ? 'an XID' : `${spent} XIDs`} in that span` : 'XIDs') +
  ' that a server would not (to stand in for a snapshot, to check whether a statement ' +
  'would wait, or to let a set-aside transaction go on), so PostgreSQL counted more than ' +
  'a server would.';

/**
 * A refusal for `s`'s VACUUM while another session's transaction that held only locks is
 * set aside: on a server it has no XID and no snapshot, so it holds nothing back, but set
 * aside here it is a prepared transaction with an XID (PREPARE TRANSACTION takes one), and
 * VACUUM would keep every row deleted since as not yet removable. Null otherwise.
 */
export function horizonHeldByLocks(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): QueryReply | null {
  for (const r of ctx.sessions.values()) {
    if (r === s || r.holding.kind !== 'parked' || !r.holding.locksOnly) continue;
    // VACUUM keeps what a running transaction may still see and removes the rest.
    const vacuums = splitStatements(sql).some(({ sql: st }) => leadingKeyword(st) === 'VACUUM');
    return vacuums ? notExpressible('locks-hold-horizon', whose(r)) : null;
  }
  return null;
}
