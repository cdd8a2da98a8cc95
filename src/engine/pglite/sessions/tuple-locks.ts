// Which of the statements waiting on one row wait for the row's tuple lock, not for the
// transaction that holds the row. On a server a statement that meets a row another
// transaction has locked or changed first takes a lock on the tuple itself, then waits for
// that transaction to end (heap_acquire_tuplock, then XactLockTableWait, in
// src/backend/access/heap/heapam.c): pg_stat_activity shows Lock/transactionid. A second
// statement that meets the same row asks for the tuple lock too, and when its mode
// conflicts with the first one's it waits for that: Lock/tuple, blocked by the first.
// Once the first has the row, the second takes the tuple lock and waits for the first's
// transaction. The layer's waits are all on the holder (waiting.ts); what they show is
// worked out here from the order in which they began.
import { blankStrings, conflicts, type LockMode } from '../waits';
import { leadingKeyword, splitStatements } from '../../split-statements';
import type { LayerContext, SessionRecord, Waiter } from './context';
import { savepointXidsOf } from './spent-xids';
import { parkedCte } from './write-counts';

/** The row a waiter waits for, and the modes its tuple lock may have. */
export interface WaitedRow {
  /** The table, quoted and qualified, and the row's ctid: the same row gives the same id. */
  id: string;
  /** Every mode the statement's tuple lock may take; more than one when its text cannot tell. */
  modes: LockMode[];
}

/**
 * The modes of the tuple lock `statement` takes on a row it must wait for, as heapam.c
 * maps row lock strengths to lock modes (tupleLockExtraInfo): FOR KEY SHARE takes ACCESS
 * SHARE, FOR SHARE ROW SHARE, FOR NO KEY UPDATE and an UPDATE of no key column EXCLUSIVE,
 * FOR UPDATE, DELETE and an UPDATE of a key column ACCESS EXCLUSIVE. Null for anything
 * else: an INSERT waits on a conflicting key for the inserting transaction alone, with
 * no tuple lock, and what a MERGE or a statement behind a WITH waits with, its text does
 * not say.
 */
function tupleModes(statement: string): LockMode[] | null {
  const keyword = leadingKeyword(statement);
  if (!['SELECT', 'UPDATE', 'DELETE'].includes(keyword)) return null;
  // Clauses only: a string that reads "for share" is not one.
  const text = blankStrings(statement);
  const modes = new Set<LockMode>();
  for (const [, clause] of text.matchAll(
    /\bFOR\s+(KEY\s+SHARE|SHARE|NO\s+KEY\s+UPDATE|UPDATE)\b/gi,
  )) {
    const strength = clause!.toUpperCase().replace(/\s+/g, ' ');
    modes.add(
      strength === 'KEY SHARE'
        ? 'AccessShareLock'
        : strength === 'SHARE'
          ? 'RowShareLock'
          : strength === 'NO KEY UPDATE'
            ? 'ExclusiveLock'
            : 'AccessExclusiveLock',
    );
  }
  if (keyword === 'DELETE') modes.add('AccessExclusiveLock');
  // Whether an UPDATE changes a key column, its text alone does not say.
  if (keyword === 'UPDATE') {
    modes.add('ExclusiveLock');
    modes.add('AccessExclusiveLock');
  }
  return modes.size > 0 ? [...modes] : null;
}

/**
 * The row `sql` waits for, held by `holder`'s parked transaction, when that can be told:
 * the transaction holds exactly one row (its XID, or a savepoint's the layer released into
 * it, is the xmax of one row in the tables it holds row locks on), so any statement that
 * waits for it waits for that row. Null when it holds several, when rows may carry the
 * XIDs of savepoints of its own, when a table hides rows (row security) or cannot be read,
 * or when the statement's tuple lock mode is not known.
 */
export async function waitedRow(
  ctx: LayerContext,
  holder: SessionRecord,
  sql: string,
): Promise<WaitedRow | null> {
  const h = holder.holding;
  if (h.kind !== 'parked' || h.emulatedSnapshot || h.locksOnly || h.xidsBefore !== undefined) {
    return null;
  }
  const statements = splitStatements(sql).filter(
    ({ sql: st }) => !['SET', 'RESET', 'SHOW'].includes(leadingKeyword(st)),
  );
  if (statements.length !== 1) return null;
  const modes = tupleModes(statements[0]!.sql);
  if (!modes) return null;
  const [tables] = await ctx.backend.exec(
    `WITH ${parkedCte}
     SELECT DISTINCT pg_catalog.format('%I.%I', n.nspname, c.relname),
            c.relrowsecurity OR NOT pg_catalog.has_table_privilege(c.oid, 'SELECT')
       FROM pg_catalog.pg_locks l JOIN parked USING (virtualtransaction)
       JOIN pg_catalog.pg_class c ON c.oid = l.relation
       JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE l.locktype = 'relation' AND l.mode IN ('RowShareLock', 'RowExclusiveLock')
        AND c.relkind IN ('r', 'm')`,
    [h.gid],
  );
  const names = (tables?.rows ?? []).map(([name, hidden]) => ({ name: name!, hidden }));
  if (names.length === 0 || names.some((t) => t.hidden === 't')) return null;
  // XIDs are digits, so the holder's can stand in the text: its own, and its savepoints'
  // that the layer released into it (a statement run again undoably, a probe).
  const xids = [h.xid, ...savepointXidsOf(holder)].join(',');
  const [rows] = await ctx.backend.exec(
    names
      .map(
        ({ name }) =>
          `(SELECT '${name.replace(/'/g, "''")}' || ':' || ctid::pg_catalog.text FROM ONLY ${name}
             WHERE xmax::pg_catalog.text = ANY('{${xids}}') LIMIT 2)`,
      )
      .join(' UNION ALL '),
  );
  const found = rows?.rows ?? [];
  return found.length === 1 ? { id: found[0]![0]!, modes } : null;
}

/** Whether every mode in `a` conflicts with every one in `b` (true), none does (false), or it depends. */
function conflictOf(a: LockMode[], b: LockMode[]): boolean | null {
  const each = a.flatMap((x) => b.map((y) => conflicts(x, y)));
  return each.every(Boolean) ? true : each.some(Boolean) ? null : false;
}

/**
 * What `r`'s wait shows, when it waits on a row another waiter reached first: Lock/tuple,
 * blocked by the waiter holding the tuple lock (the first one whose mode conflicts). Null
 * when it shows what its wait records (Lock/transactionid, blocked by the row's holder).
 */
function tupleWait(
  ctx: LayerContext,
  r: SessionRecord,
): { event: 'tuple'; blockedBy: SessionRecord } | null {
  const at = ctx.waiters.findIndex((w) => w.s === r);
  const mine = ctx.waiters[at]?.row;
  // One that waits again, having followed the row to a version another has since
  // changed, shows Lock/transactionid (tests/fidelity/tuple-waits.test.ts). Whether a
  // server's holds the new version's tuple lock meanwhile goes by timing: one behind it
  // showed Lock/tuple in one run and Lock/transactionid in another. Taken here as not
  // held, so one behind it shows Lock/transactionid: one of a server's two answers.
  if (!mine || ctx.waiters[at]!.carried) return null;
  /** Those ahead on the same row: granted the tuple lock, or queued for it. */
  const granted: Waiter[] = [];
  const queued: Waiter[] = [];
  for (const w of ctx.waiters.slice(0, at + 1)) {
    if (w.row?.id !== mine.id || w.carried) continue;
    // A request waits when it conflicts with a lock granted, or with one queued ahead of it.
    const ahead = [...granted, ...queued];
    const conflict = ahead.map((o) => conflictOf(w.row!.modes, o.row!.modes));
    if (conflict.includes(null)) return null;
    const waits = conflict.includes(true);
    if (w.s !== r) {
      (waits ? queued : granted).push(w);
      continue;
    }
    if (!waits) return null;
    // Shown blocked by one that holds the tuple lock, else by the first queued ahead.
    const blocker =
      ahead.find((o, i) => conflict[i] && granted.includes(o)) ?? ahead[conflict.indexOf(true)]!;
    return { event: 'tuple', blockedBy: blocker.s };
  }
  return null;
}

/** What `r`'s wait shows: its event, and the session it is blocked by (`tupleWait`). */
export function shownWait(
  ctx: LayerContext,
  r: SessionRecord,
): { event: string | null; blockedBy: SessionRecord | null } {
  return tupleWait(ctx, r) ?? { event: r.waitEvent, blockedBy: r.blockedBy };
}

/**
 * The waiter that `w`, whose holder has ended, must still wait behind: one waiting again
 * for the same row (it went on first and met the row taken meanwhile), holding the tuple
 * lock in a mode that conflicts with `w`'s. On a server `w` waits for that tuple lock
 * until that one has the row, however its own request stands against the new holder's
 * lock (a FOR SHARE behind a FOR UPDATE, beside another FOR SHARE). Null when none.
 */
export function rowAhead(ctx: LayerContext, w: Waiter): Waiter | null {
  const mine = w.row;
  if (!mine) return null;
  return (
    ctx.waiters.find(
      (e) =>
        e !== w &&
        e.s !== w.s &&
        e.row?.id === mine.id &&
        e.behind === undefined &&
        !e.carried &&
        conflictOf(e.row.modes, mine.modes) === true &&
        // Ahead of it: waiting again, for what is still held (those behind it still wait
        // for the holder that ended, and are woken after it).
        e.held(),
    ) ?? null
  );
}
