// After a wait on a row: may the statement simply run again? On a server a READ COMMITTED
// statement that waited for a row goes on with the snapshot it took before the wait and
// re-reads only the rows it locks or changes, at their newest versions (EvalPlanQual in
// src/backend/executor/execMain.c). Here the statement runs again from the start, with a
// new snapshot. The two agree when nothing the statement reads changed meanwhile, or when
// what changed are rows it re-reads at their newest versions on a server too; PostgreSQL
// is asked which case this is, and a statement that may see otherwise is refused.
import type { BackendReply } from '../backend';
import { statementNeeds } from '../waits';
import { splitStatements } from '../../split-statements';
import type { LayerContext, SessionRecord } from './context';
import { enter } from './parking';
import { closeSavepoint, noteSpent, openSavepoint } from './spent-xids';
import { runReader } from './watchdog';

/** What a statement that waited on a row needs for the recheck. */
export interface RowWait {
  /** The snapshot the waiting statement took (`pg_current_snapshot()` as text). */
  snapshot: string;
  /** The XID of the transaction whose row it waited for; null when not known (watchdog). */
  holderXid: string | null;
  /**
   * Other XIDs whose changes count as the holder's: those of savepoints released into its
   * transaction (`savepointXidsOf`), and those of the transactions the statement waited
   * for before (once the first ended, another had taken the row meanwhile).
   */
  alsoHolders?: string[];
  /** The relations those transactions had changed rows of (RowExclusiveLock). */
  holderWrote: string[];
  /**
   * The rows the statement was to change, as its snapshot saw them, that the holder was
   * changing too, by primary key: a server's recheck re-reads exactly these at their
   * newest versions, so the statement may touch them when it runs again.
   */
  matched?: MatchedRows;
}

/**
 * Rows of one table by primary key (`keys`: json_build_array(columns) as text), grouped by
 * the relation each is stored in: a partition's own name for a partitioned table, so that a
 * row the holder moved to another partition is not taken for the one it was.
 */
export interface MatchedRows {
  columns: string[];
  keys: Record<string, string[]>;
}

/** How the statement may run again: as it is, guarded, or not at all. */
export type RecheckPlan =
  | { kind: 'as-is' }
  | { kind: 'refuse'; why: string }
  /** Run it, and refuse if it touched a row a holder wrote (counted in `relations`). */
  | {
      kind: 'guarded';
      relations: string[];
      holderXids: string[];
      matched?: MatchedRows;
      /** It returns rows in the order a scan in the heap's order meets them. */
      inHeapOrder: boolean;
    };

/** A relation as the plan names it (`Relation Name`), with how the statement uses it. */
interface PlanRelation {
  name: string;
  /** The target of an UPDATE or DELETE, or a scan under the statement's row locking. */
  locked: boolean;
}

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** How many relation scans there are in `node` and below it. */
const scanCount = (node: PlanNode): number =>
  (typeof node['Relation Name'] === 'string' ? 1 : 0) +
  (node.Plans ?? []).reduce((n, child) => n + scanCount(child), 0);

/**
 * The relations an EXPLAIN (FORMAT JSON) plan scans, one entry per scan, each marked
 * `locked` when the statement locks or changes the rows that scan reads: the scan of an
 * UPDATE's, DELETE's or MERGE's target (of a partitioned one, the scans of the partitions
 * its plan lists as `Target Tables`), or the one scan under a LockRows (FOR UPDATE/SHARE).
 * A subquery's scans answer for themselves.
 */
function planRelations(
  node: PlanNode,
  within: { targets: string[]; lockAll: boolean } = { targets: [], lockAll: false },
): PlanRelation[] {
  const parent = node['Parent Relationship'];
  let { targets, lockAll } =
    parent === 'SubPlan' || parent === 'InitPlan' ? { targets: [], lockAll: false } : within;
  const name = typeof node['Relation Name'] === 'string' ? node['Relation Name'] : null;
  if (node['Node Type'] === 'ModifyTable') {
    const partitions = (node['Target Tables'] ?? []) as { 'Relation Name': string }[];
    targets = [...(name === null ? [] : [name]), ...partitions.map((t) => t['Relation Name'])];
  } else if (node['Node Type'] === 'LockRows') {
    lockAll = scanCount(node) === 1;
  }
  const own =
    name !== null && node['Node Type'] !== 'ModifyTable'
      ? [{ name, locked: lockAll || targets.includes(name) }]
      : [];
  return [
    ...own,
    ...(node.Plans ?? []).flatMap((child) => planRelations(child, { targets, lockAll })),
  ];
}

/** Whether `node` scans one of `relations` in the heap's order (not by an index). */
function heapOrderScan(node: PlanNode, relations: string[]): boolean {
  const name = node['Relation Name'];
  const byHeap = ['Seq Scan', 'Bitmap Heap Scan', 'Tid Scan', 'Tid Range Scan', 'Sample Scan'];
  if (
    typeof name === 'string' &&
    relations.includes(name) &&
    byHeap.includes(String(node['Node Type']))
  ) {
    return true;
  }
  return (node.Plans ?? []).some((child) => heapOrderScan(child, relations));
}

/** Decides, once the holder has ended, how `sql` (which waited) may run again. */
export async function recheckPlan(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params: unknown[] | undefined,
  wait: RowWait,
): Promise<RecheckPlan> {
  const { backend } = ctx;
  // Transactions whose commit the waiting statement's snapshot did not see.
  const [committed] = await backend.exec(
    `SELECT x::pg_catalog.text FROM pg_catalog.generate_series(
        pg_catalog.pg_snapshot_xmin($1::pg_catalog.pg_snapshot)::pg_catalog.text::bigint,
        pg_catalog.pg_snapshot_xmax(pg_catalog.pg_current_snapshot())::pg_catalog.text::bigint - 1) x
      WHERE NOT pg_catalog.pg_visible_in_snapshot(
              x::pg_catalog.text::pg_catalog.xid8, $1::pg_catalog.pg_snapshot)
        AND pg_catalog.pg_xact_status(x::pg_catalog.text::pg_catalog.xid8) = 'committed'`,
    [wait.snapshot],
  );
  const since = committed!.rows.map(([x]) => x!);
  if (since.length === 0) return { kind: 'as-is' };
  // REPEATABLE READ and SERIALIZABLE never re-read a row another transaction changed
  // and committed after their snapshot: a server fails the statement (40001) or lets it
  // go on by rules of its own. Run again with a new snapshot it would do neither. Run
  // again in a REPEATABLE READ transaction whose snapshot an earlier statement took
  // (`xactSnapshot`), it reads with that snapshot (its replay imports it, or is refused:
  // resume.ts) and meets the change as a server does; SERIALIZABLE adds conflicts of its
  // own, which a replay may not meet.
  const isolation = 'isolation' in s.holding ? s.holding.isolation : 'read committed';
  if (isolation === 'repeatable read' && s.xactSnapshot !== null) return { kind: 'as-is' };
  if (isolation !== 'read committed') {
    return { kind: 'refuse', why: `it runs in ${isolation.toUpperCase()}` };
  }
  const holderXids = [...(wait.alsoHolders ?? []), wait.holderXid!];
  if (since.some((x) => !holderXids.includes(x))) {
    return { kind: 'refuse', why: 'other transactions committed while it waited' };
  }
  if (wait.holderWrote.length === 0) return { kind: 'as-is' };
  // An UPDATE that changes a partition key moves the row: it deletes it from one partition
  // and inserts it into another. A server's recheck that meets the old row fails with
  // 40001 ("already moved to another partition", nodeModifyTable.c); run again, the
  // statement finds the row where it went, or not at all. The holder can have moved a row
  // only if it wrote two partitions of one table. The row waited for may be one the plan
  // does not scan (a foreign key's check locks the row it references), so any such write
  // counts.
  const [moved] = await backend.exec(
    `SELECT pg_catalog.count(*) FROM pg_catalog.pg_class c
      WHERE c.relname = ANY(pg_catalog.string_to_array($1, ',')) AND c.relispartition
        AND pg_catalog.pg_partition_root(c.oid) IN (
          SELECT pg_catalog.pg_partition_root(w.oid) FROM pg_catalog.pg_class w
           WHERE w.relname = ANY(pg_catalog.string_to_array($1, ',')) AND w.relkind = 'r'
             AND w.relispartition
           GROUP BY 1 HAVING pg_catalog.count(*) > 1)`,
    [wait.holderWrote.join(',')],
  );
  if (moved!.rows[0]![0] !== '0') {
    return {
      kind: 'refuse',
      why: 'a row that transaction changed may have moved to another partition',
    };
  }
  const statements = splitStatements(sql);
  if (statements.length !== 1) {
    return { kind: 'refuse', why: 'it is several statements' };
  }
  await enter(ctx, s);
  // In a savepoint rolled back at once, in a transaction block: the locks planning takes
  // (ROW EXCLUSIVE for an UPDATE) go with it, and the transaction is set aside as before
  // if the statement waits again (waiting.ts); a plan that fails leaves it unharmed.
  const inBlock = ctx.resident === s;
  if (inBlock) await backend.exec('SAVEPOINT seat_ledger_plan');
  const explained = await backend.run(`EXPLAIN (FORMAT JSON) ${statements[0]!.sql}`, params);
  if (inBlock) {
    await backend.exec(
      'ROLLBACK TO SAVEPOINT seat_ledger_plan; RELEASE SAVEPOINT seat_ledger_plan',
    );
  }
  if (explained.error) return { kind: 'refuse', why: 'its plan could not be read' };
  const [explainedPlan] = JSON.parse(explained.results[0]!.rows[0]![0]!) as { Plan: PlanNode }[];
  const relations = planRelations(explainedPlan!.Plan);
  const touched = wait.holderWrote.filter((rel) => relations.some((r) => r.name === rel));
  if (touched.length === 0) return { kind: 'as-is' };
  // The claim's shape: the statement changes exactly the rows its subquery locks.
  const claim = statementNeeds(statements[0]!.sql).rows.kind === 'lock-rows';
  for (const rel of touched) {
    const uses = relations.filter((r) => r.name === rel);
    if (!(claim || (uses.length === 1 && uses[0]!.locked))) {
      return { kind: 'refuse', why: `it reads ${rel} beyond the rows it locks` };
    }
  }
  const [triggers] = await backend.exec(
    `SELECT pg_catalog.count(*) FROM pg_catalog.pg_trigger t
       JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
      WHERE NOT t.tgisinternal AND c.relname = ANY(pg_catalog.string_to_array($1, ','))`,
    [touched.join(',')],
  );
  if (triggers!.rows[0]![0] !== '0') {
    return { kind: 'refuse', why: 'a trigger on the table runs queries of its own' };
  }
  // RETURNING answers in the order the scan met the rows. A server's recheck returns the
  // row it waited for where its old version lay; run again, a scan in the heap's order
  // meets its new version where the holder's change put it: more than one row returned
  // may then come in another order.
  const inHeapOrder =
    /\bRETURNING\b/i.test(statements[0]!.sql) && heapOrderScan(explainedPlan!.Plan, touched);
  return { kind: 'guarded', inHeapOrder, relations: touched, holderXids, matched: wait.matched };
}

/**
 * The rows of `relations` the holders wrote, as they stand (each version's place and
 * xmax), leaving out the rows the statement was to change anyway (`matched`): a row the
 * statement locks or changes changes its entry. (An xmax of 0 would not do: a holder's
 * row locked since by a transaction that rolled back keeps that one's XID as its xmax.)
 * Empty when there are none.
 */
async function holderRows(
  ctx: LayerContext,
  relations: string[],
  holderXids: string[],
  matched: MatchedRows | undefined,
): Promise<string> {
  const prints: string[] = [];
  for (const rel of relations) {
    const keys = matched?.keys[rel];
    const key = keys
      ? `pg_catalog.json_build_array(${matched!.columns.map(quoteIdent).join(', ')})::pg_catalog.text`
      : '';
    const [found] = await ctx.backend.exec(
      `SELECT pg_catalog.string_agg(ctid::pg_catalog.text || ' ' || xmax::pg_catalog.text, ','
                                    ORDER BY ctid)
         FROM ${quoteIdent(rel)}
        WHERE xmin::pg_catalog.text = ANY(pg_catalog.string_to_array($1, ','))` +
        (keys
          ? ` AND ${key} NOT IN (SELECT pg_catalog.jsonb_array_elements_text($2::pg_catalog.jsonb))`
          : ''),
      keys ? [holderXids.join(','), JSON.stringify(keys)] : [holderXids.join(',')],
    );
    const print = found!.rows[0]![0];
    if (print) prints.push(`${rel}: ${print}`);
  }
  return prints.join('; ');
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Why a statement run again inside a savepoint was undone. */
export type Undone = { undone: 'notices' | 'touched' | 'order' };

/**
 * Runs `sql`, which waited for a row, again in `s`'s transaction (in one of its own when
 * `s` has none), inside a savepoint, and keeps what it did only if it raised no notices
 * and `touched`, asked before and after, says the same; an error is kept only if
 * `touched` was empty before, since a row it lists may be what failed the statement (one the
 * holder moved to another partition, which a server would not have followed). Notices: on
 * a server the statement ran part-way before it waited (its WHERE clause, a BEFORE
 * trigger, an index insertion that met the other row), so the notices raised up to there
 * reached the client before the wait, the rest after; run again from the start it raises
 * them all after, and which came before cannot be told. Resolves to why it was undone when it was.
 */
export async function runUndoable(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params: unknown[] | undefined,
  touched: () => Promise<string> = () => Promise.resolve(''),
  ordered: (reply: BackendReply) => boolean = () => true,
): Promise<BackendReply | 'stuck' | Undone> {
  const { backend } = ctx;
  await enter(ctx, s);
  const implicit = s.holding.kind === 'none';
  // The XIDs its savepoint spends (and an implicit transaction rolled back) are noted.
  const topBefore = await openSavepoint(ctx, 'seat_ledger_recheck', implicit);
  const before = await touched();
  const reply = await runReader(ctx, s, sql, params);
  const undone: Undone['undone'] | null =
    reply === 'stuck'
      ? null
      : reply.notices.length > 0
        ? 'notices'
        : (reply.error ? before !== '' : (await touched()) !== before)
          ? 'touched'
          : !reply.error && !ordered(reply)
            ? 'order'
            : null;
  const kept = reply !== 'stuck' && undone === null;
  const committed = kept && !(reply as BackendReply).error;
  const wrote =
    reply !== 'stuck' && !reply.error && reply.results.some((r) => (r.rowCount ?? 0) > 0);
  const topAfter = await closeSavepoint(ctx, 'seat_ledger_recheck', topBefore, {
    kept: committed,
    wrote,
  });
  if (implicit) {
    // An implicit transaction commits, or rolls back on an error, when its statement ends.
    await backend.exec(committed ? 'COMMIT' : 'ROLLBACK');
    // Undone, it is not the statement's: that runs again, or is refused.
    if (undone !== null && topAfter !== null) noteSpent(ctx, topAfter);
  }
  if (reply === 'stuck') return 'stuck';
  if (undone) return { undone };
  if (reply.error && !implicit) {
    // Failed in the session's transaction: sent for real, it fails and aborts it, as on a
    // server (the savepoint kept the transaction usable until now).
    return runReader(ctx, s, sql, params);
  }
  return implicit ? { ...reply, status: 'I' } : reply;
}

/**
 * Runs `sql` again as `runUndoable` does, and keeps what it did only if it also touched no
 * row the holder wrote: such a row may be one a server's recheck would not have looked at
 * (a row the holder inserted, or changed so that it now matches).
 */
export function runGuarded(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params: unknown[] | undefined,
  {
    relations,
    holderXids,
    matched,
    inHeapOrder,
  }: { relations: string[]; holderXids: string[]; matched?: MatchedRows; inHeapOrder: boolean },
): Promise<BackendReply | 'stuck' | Undone> {
  // Returned in the heap's order, more than one row may come otherwise than on a server.
  const ordered = (reply: BackendReply) =>
    !inHeapOrder || reply.results.every((r) => r.rows.length <= 1);
  return runUndoable(
    ctx,
    s,
    sql,
    params,
    () => holderRows(ctx, relations, holderXids, matched),
    ordered,
  );
}
