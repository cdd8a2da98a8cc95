// What the layer leaves behind in PostgreSQL's statistics and tables. A parked transaction
// goes on by being rolled back and run again (resume.ts), so PostgreSQL saw its statements
// twice: it counted their scans, calls and rows twice, and the rows the rolled-back
// original wrote stay in its tables as dead row versions, taking room on their pages,
// until VACUUM removes them. And while transactions are parked, the layer's own queries
// read the tables they lock (wait-checks.ts, recheck.ts), which PostgreSQL counts as
// scans. A server did none of this. What would show it is refused (`replay-traces`),
// until Reset starts afresh.
import { splitStatements } from '../../split-statements';
import { identifier, lockedKeyChange, mentions } from '../waits';
import { enforcedUnique, fromOneTable } from './claims';
import type { LayerContext, SessionRecord } from './context';
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
 * Its replay writes their rows again, after those others wrote since: where others did
 * (they committed there, `committedTo`, or another prepared transaction holds such a lock
 * there), the rows lie in another order than on a server, which a scan without ORDER BY
 * shows.
 */
export async function noteWritten(
  ctx: LayerContext,
  gid: string,
  committedTo: string[] | 'all',
): Promise<void> {
  const [written] = await ctx.backend.exec(
    `WITH ${parkedCte},
     writes AS (
       SELECT l.relation, l.virtualtransaction,
              l.virtualtransaction IN (SELECT virtualtransaction FROM parked) AS own
         FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_class c ON c.oid = l.relation
        WHERE l.locktype = 'relation' AND c.relkind IN ('r', 'p', 'm', 't')
          AND l.mode NOT IN ('AccessShareLock', 'RowShareLock'))
     SELECT w.relation::pg_catalog.text,
            (SELECT pg_catalog.string_agg(x.transactionid::pg_catalog.text, ',')
               FROM writes o JOIN pg_catalog.pg_locks x USING (virtualtransaction)
              WHERE o.relation = w.relation AND NOT o.own AND x.locktype = 'transactionid')
       FROM writes w WHERE w.own GROUP BY w.relation`,
    [gid],
  );
  const { reordered } = ctx.replayTraces;
  for (const [oid, others] of written!.rows) {
    ctx.replayTraces.written.add(oid!);
    const before = reordered.get(oid!);
    const xids = [...(before?.xids ?? []), ...(others ? others.split(',') : [])];
    const always = committedTo === 'all' || committedTo.includes(oid!) || !!before?.always;
    if (always || xids.length > 0) reordered.set(oid!, { always, xids });
  }
}

/**
 * Notes that a VACUUM in `sql` frees the room the rolled-back originals' rows took in the
 * tables it names (every table, naming none): rows written from then on may go there, where
 * a server's go elsewhere, so a scan lists them in another order (`inScanOrder`).
 */
async function noteVacuum(ctx: LayerContext, sql: string): Promise<void> {
  const { written, reordered } = ctx.replayTraces;
  for (const { sql: statement } of splitStatements(sql)) {
    if (!/^\s*VACUUM\b/i.test(statement)) continue;
    for (const [oid, name] of await writtenOidNames(ctx, written)) {
      if (namesTables(statement) && !mentions(statement, name)) continue;
      reordered.set(oid, { always: true, xids: [] });
    }
  }
}

/** A refusal for `sql` if it could show what a replay left behind; null otherwise. */
export async function replayTraceRefusal(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<QueryReply | null> {
  const { scanned, written } = ctx.replayTraces;
  if (!scanned) return null;
  if (scanCounts.test(sql) || functionCounts.test(sql)) return notExpressible('replay-traces', '');
  if (written.size === 0) return null;
  await noteVacuum(ctx, sql);
  const layout = rowCounts.test(sql) || showsLayout.test(sql) || (await inScanOrder(ctx, s, sql));
  const explains = explainsNumbers(sql);
  if (!layout && !explains && !reports.test(sql)) return null;
  const tables = await writtenNames(ctx);
  if (tables.length === 0) return null;
  const refusal = notExpressible('replay-traces', tables.join(', '));
  if (layout) return refusal;
  // A plan or a report names one of those tables; a report that names none goes through
  // every table.
  return tables.some((name) => mentions(sql, name)) || (!explains && !namesTables(sql))
    ? refusal
    : null;
}

/** Whether a VACUUM or ANALYZE names the tables it is to go through. */
function namesTables(sql: string): boolean {
  const rest = sql
    .replace(/^\s*\w+\s*/, '')
    .replace(/^\([^)]*\)\s*/, '')
    .replace(/^(?:(?:FULL|FREEZE|VERBOSE|ANALYZE|ANALYSE)\b\s*)*/i, '');
  return /^[\w"]/.test(rest);
}

/**
 * Whether `sql` may show rows of a table whose rows a replay reordered in the order they
 * lie: one of its statements returns rows (a query, COPY, RETURNING) without ORDER BY,
 * names such a table, and does more than count or add up.
 */
async function inScanOrder(ctx: LayerContext, s: SessionRecord, sql: string): Promise<boolean> {
  const { reordered } = ctx.replayTraces;
  if (reordered.size === 0) return false;
  const listing = splitStatements(sql)
    .map(({ sql: statement }) => statement)
    .filter(
      (statement) =>
        (/^\s*(?:SELECT|WITH|TABLE|COPY)\b/i.test(statement) || /\bRETURNING\b/i.test(statement)) &&
        !aggregatesOnly.test(statement),
    );
  const several: string[] = [];
  for (const statement of listing) {
    if (!(await oneRowAtMost(ctx, statement)) && !(await totallyOrdered(ctx, statement))) {
      several.push(statement);
    }
  }
  if (several.length === 0) return false;
  // Rows an open transaction wrote only it sees: they show out of order once it commits.
  const seen: string[] = [];
  for (const [oid, { always, xids }] of reordered) {
    if (always || (s.xid !== null && xids.includes(s.xid)) || (await anyCommitted(ctx, xids))) {
      seen.push(oid);
    }
  }
  if (seen.length === 0) return false;
  const names = await writtenNames(ctx, seen);
  return several.some((statement) => names.some((name) => mentions(statement, name)));
}

/** An ORDER BY at the end of a statement, with its LIMIT, OFFSET or locking clause after. */
const orderBy = /\bORDER\s+BY\s+([^()]+?)(?:\s+(?:LIMIT|OFFSET|FETCH|FOR)\b[^()]*)?\s*;?\s*$/i;

/** An ORDER BY item that is a column: its name, then ASC, DESC or NULLS FIRST/LAST. */
const orderColumn =
  /^(?:[A-Za-z_]\w*\.)?("?)([A-Za-z_]\w*)\1(?:\s+(?:ASC|DESC))?(?:\s+NULLS\s+(?:FIRST|LAST))?$/i;

/**
 * Whether `statement` is a SELECT of one table whose ORDER BY leaves no two rows tied,
 * so that their order in the table cannot show: one of its items is a column with a
 * unique index of its own, without NULLs. Ties fall in scan order, which a replay changed.
 */
async function totallyOrdered(ctx: LayerContext, statement: string): Promise<boolean> {
  const table = fromOneTable.exec(statement)?.[1];
  const items = orderBy.exec(statement)?.[1];
  if (!table || !items || (statement.match(/\bSELECT\b/gi) ?? []).length > 1) return false;
  if (/\b(?:JOIN|UNION|INTERSECT|EXCEPT|GROUP|DISTINCT)\b/i.test(statement)) return false;
  const columns = items.split(',').flatMap((item) => {
    const m = orderColumn.exec(item.trim());
    return m ? [m[1] ? m[2]! : m[2]!.toLowerCase()] : [];
  });
  if (columns.length === 0) return false;
  const [unique] = await ctx.backend.exec(
    `SELECT EXISTS (SELECT FROM pg_catalog.pg_index i
                      JOIN pg_catalog.pg_attribute k
                        ON k.attrelid = i.indrelid AND k.attnum = i.indkey[0]
                     WHERE ${enforcedUnique} AND i.indnatts = 1
                       AND k.attname = ANY(pg_catalog.string_to_array($2, ',')))
       FROM pg_catalog.pg_class r WHERE r.oid = pg_catalog.to_regclass($1)`,
    [table, columns.join(',')],
  );
  return unique!.rows[0]?.[0] === 't';
}

/** One table's rows by a WHERE: a SELECT (locking or not), UPDATE or DELETE. */
const oneTable = new RegExp(
  String.raw`^\s*(?:SELECT\s+[\s\S]+?\s+FROM|UPDATE|DELETE\s+FROM)\s+(?:ONLY\s+)?(${identifier})(?:\s+(?:AS\s+)?(?!WHERE\b|SET\b)[A-Za-z_]\w*)?\s+(?:SET\s+[\s\S]+?\s+)?WHERE\s+([\s\S]+?)(?:\s+(?:RETURNING|FOR)\b[\s\S]*)?\s*;?\s*$`,
  'i',
);

/** A condition that a column equals one value: `id = 3`, `t.id = $1`, `k = 'a'`. */
const equality = /^(?:[A-Za-z_]\w*\.)?("?)([A-Za-z_]\w*)\1\s*=\s*(?:'[^']*'|-?\d+|\$\d+)$/;

/**
 * Whether `statement` meets one row at most: it reads one table by a WHERE that, among
 * conditions joined by AND, sets a column with a unique index of its own to one value.
 */
async function oneRowAtMost(ctx: LayerContext, statement: string): Promise<boolean> {
  const m = oneTable.exec(statement);
  // The claim query changes the one row whose key its subquery picks.
  const change = lockedKeyChange(statement);
  const byKey = change && /^\s*[^\s=]+\s*=\s*\(/.test(m?.[2] ?? '') ? change.key : null;
  if (!m || (!byKey && (statement.match(/\bSELECT\b/gi) ?? []).length > 1)) return false;
  const where = m[2]!;
  if (!byKey && /[(),]|\b(?:OR|JOIN|LIMIT|GROUP|UNION)\b/i.test(where)) return false;
  const columns = byKey
    ? [byKey.slice(byKey.lastIndexOf('.') + 1).replace(/^"(.*)"$/, '$1')]
    : where.split(/\s+AND\s+/i).flatMap((condition) => equality.exec(condition.trim())?.[2] ?? []);
  if (columns.length === 0) return false;
  const [unique] = await ctx.backend.exec(
    `SELECT EXISTS (SELECT FROM pg_catalog.pg_index i
                      JOIN pg_catalog.pg_attribute a
                        ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                     WHERE i.indrelid = pg_catalog.to_regclass($1) AND i.indisunique
                       AND i.indnatts = 1 AND i.indpred IS NULL
                       AND a.attname = ANY(pg_catalog.string_to_array($2, ',')))`,
    [m[1]!, columns.join(',')],
  );
  return unique!.rows[0]![0] === 't';
}

/** Whether any of the transactions `xids` has committed. */
async function anyCommitted(ctx: LayerContext, xids: string[]): Promise<boolean> {
  if (xids.length === 0) return false;
  const [read] = await ctx.backend.exec(
    `SELECT coalesce(pg_catalog.bool_or(pg_catalog.pg_xact_status(x::pg_catalog.xid8) = 'committed'), false)
       FROM pg_catalog.unnest(pg_catalog.string_to_array($1, ',')) x`,
    [xids.join(',')],
  );
  return read!.rows[0]![0] === 't';
}

/** A SELECT of counts and sums alone, in one row, whatever order it reads rows in. */
const aggregatesOnly =
  /^\s*SELECT\s+(?:(?:count|sum|min|max|avg|bool_and|bool_or|every)\s*\([^()]*\)(?:\s+(?:AS\s+)?\w+)?\s*,\s*)*(?:count|sum|min|max|avg|bool_and|bool_or|every)\s*\([^()]*\)(?:\s+(?:AS\s+)?\w+)?\s+FROM\b(?![\s\S]*\b(?:GROUP|LIMIT|OFFSET|FETCH|UNION)\b)/i;

/** The names of the tables rolled-back originals wrote that exist still. */
async function writtenNames(
  ctx: LayerContext,
  oids: Iterable<string> = ctx.replayTraces.written,
): Promise<string[]> {
  return (await writtenOidNames(ctx, oids)).map(([, name]) => name);
}

/** The tables of `oids` that exist still, by OID and name. */
async function writtenOidNames(
  ctx: LayerContext,
  oids: Iterable<string>,
): Promise<[oid: string, name: string][]> {
  const [names] = await ctx.backend.exec(
    `SELECT c.oid::pg_catalog.text, c.relname::pg_catalog.text FROM pg_catalog.pg_class c
      WHERE c.oid = ANY(pg_catalog.string_to_array($1, ',')::pg_catalog.oid[]) ORDER BY 2`,
    [[...oids].join(',')],
  );
  return names!.rows.map(([oid, name]) => [oid!, name!]);
}
