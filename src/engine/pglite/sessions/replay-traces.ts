// What the layer leaves behind in PostgreSQL's statistics and tables. A parked transaction
// goes on by being rolled back and run again (resume.ts), so PostgreSQL saw its statements
// twice: it counted their scans, calls and rows twice, and the rows the rolled-back
// original wrote stay in its tables as dead row versions, taking room on their pages,
// until VACUUM removes them. And while transactions are parked, the layer's own queries
// read the tables they lock (wait-checks.ts, recheck.ts), which PostgreSQL counts as
// scans. A server did none of this. What would show it is refused (`replay-traces`),
// until Reset starts afresh.
import type { LayerContext } from './context';
import { notExpressible, type QueryReply } from './replies';
import { functionCounts, scanCounts } from './statistics';
import { parkedCte } from './write-counts';

/** Statistics of rows written, live and dead, which a rolled-back original's rows change. */
const rowCounts =
  /\b(?:n_tup_\w+|n_live_tup|n_dead_tup|n_mod_since_analyze|n_ins_since_vacuum|tup_(?:inserted|updated|deleted))\b|\bpg_stat_get_(?:xact_)?(?:tuples_\w+|live_tuples|dead_tuples|mod_since_analyze|ins_since_vacuum)\b|\*[\s\S]*\bpg_stat_(?:xact_)?(?:all|user|sys)_tables\b/i;

/** A VACUUM or ANALYZE that reports what it found (dead row versions among it). */
const reports = /^\s*(?:VACUUM|ANALYZE|ANALYSE)\b[^;]*\bVERBOSE\b/i;

/**
 * An EXPLAIN that shows numbers: costs and row estimates, which the planner takes from the
 * table's size in pages, and what ANALYZE counts as the plan runs.
 */
const explainsNumbers = (sql: string) =>
  /^\s*EXPLAIN\b/i.test(sql) &&
  (!/\bCOSTS\s+(?:OFF|FALSE|0)\b/i.test(sql) ||
    /\bANALY[SZ]E\b(?!\s+(?:OFF|FALSE|0)\b)/i.test(sql));

/** What shows where rows lie and how much room they take. */
const showsLayout =
  /\bctid\b|\brel(?:pages|allvisible|allfrozen)\b|\bpg_(?:total_)?relation_size\b|\bpg_table_size\b|\bpg_indexes_size\b|\bpg_relpages\b|\bpgstattuple\w*|\bpg_visibility\w*|\bpg_freespace\b|\bheap_page_items\b|\bget_raw_page\b/i;

/**
 * Notes the tables the prepared transaction `gid` wrote, which is about to be rolled back
 * for a replay: by its locks, ROW EXCLUSIVE or stronger, on tables (partitions included).
 */
export async function noteWritten(ctx: LayerContext, gid: string): Promise<void> {
  const [written] = await ctx.backend.exec(
    `WITH ${parkedCte}
     SELECT DISTINCT c.oid::pg_catalog.text FROM pg_catalog.pg_locks l
       JOIN parked USING (virtualtransaction)
       JOIN pg_catalog.pg_class c ON c.oid = l.relation
      WHERE l.locktype = 'relation' AND c.relkind IN ('r', 'p', 'm', 't')
        AND l.mode NOT IN ('AccessShareLock', 'RowShareLock')`,
    [gid],
  );
  for (const [oid] of written!.rows) ctx.replayTraces.written.add(oid!);
}

/** A refusal for `sql` if it could show what a replay left behind; null otherwise. */
export async function replayTraceRefusal(
  ctx: LayerContext,
  sql: string,
): Promise<QueryReply | null> {
  const { scanned, written } = ctx.replayTraces;
  if (!scanned) return null;
  if (scanCounts.test(sql) || functionCounts.test(sql)) return notExpressible('replay-traces', '');
  if (written.size === 0) return null;
  const layout = rowCounts.test(sql) || showsLayout.test(sql);
  const explains = explainsNumbers(sql);
  if (!layout && !explains && !reports.test(sql)) return null;
  const tables = await writtenNames(ctx);
  if (tables.length === 0) return null;
  const refusal = notExpressible('replay-traces', tables.join(', '));
  if (layout) return refusal;
  // A plan or a report names one of those tables; a report that names none goes through
  // every table.
  const named = (name: string) =>
    new RegExp(`(?<![\\w$])${name.replace(/[^\w]/g, '\\$&')}(?![\\w$])`, 'i').test(sql);
  return tables.some(named) || (!explains && !namesTables(sql)) ? refusal : null;
}

/** Whether a VACUUM or ANALYZE names the tables it is to go through. */
function namesTables(sql: string): boolean {
  const rest = sql
    .replace(/^\s*\w+\s*/, '')
    .replace(/^\([^)]*\)\s*/, '')
    .replace(/^(?:(?:FULL|FREEZE|VERBOSE|ANALYZE|ANALYSE)\b\s*)*/i, '');
  return /^[\w"]/.test(rest);
}

/** The names of the tables rolled-back originals wrote that exist still. */
async function writtenNames(ctx: LayerContext): Promise<string[]> {
  const [names] = await ctx.backend.exec(
    `SELECT c.relname::pg_catalog.text FROM pg_catalog.pg_class c
      WHERE c.oid = ANY(pg_catalog.string_to_array($1, ',')::pg_catalog.oid[]) ORDER BY 1`,
    [[...ctx.replayTraces.written].join(',')],
  );
  return names!.rows.map(([name]) => name!);
}
