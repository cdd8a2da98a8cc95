// What the layer leaves behind in PostgreSQL's statistics and tables. A parked transaction
// goes on by being rolled back and run again (resume.ts), so PostgreSQL saw its statements
// twice: it counted their scans, calls and rows twice, and the rows the rolled-back
// original wrote stay in its tables as dead row versions, taking room on their pages,
// until VACUUM removes them. And while transactions are parked, the layer's own queries
// read the tables they lock (wait-checks.ts, recheck.ts), which PostgreSQL counts as
// scans. A server did none of this. What would show it is refused (`replay-traces`),
// until Reset starts afresh.
import { splitStatements } from '../../split-statements';
import { calledNames, identifier, lockedKeyChange, mentions } from '../waits';
import { bareName, fromOneTable, uniqueColumn } from './keys';
import type { LayerContext, SessionRecord } from './context';
import { outOfAborted } from './parking';
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
  // The layer asks PostgreSQL below (`outOfAborted`).
  if (!(await outOfAborted(ctx, s))) return null;
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
 * Whether `sql` may depend on the order in which the rows of a table a replay reordered
 * lie, once that shows (others' rows are visible to the reader, or a VACUUM freed room):
 * one of its statements reads such a table, by name or through a view, a parent table, a
 * function of the reader's or a statement it prepared, and is not of a shape whose answer
 * and effects cannot depend on that order (`orderSafe`). Listings show it, and so do
 * aggregates over floats, string_agg, window functions, sequences and LIMITs in scan
 * order, a CREATE TABLE AS, an INSERT of a SELECT.
 */
async function inScanOrder(ctx: LayerContext, s: SessionRecord, sql: string): Promise<boolean> {
  const { reordered, written } = ctx.replayTraces;
  if (reordered.size === 0) return false;
  // Tables dropped since are forgotten: a long run makes and drops tables over and over,
  // and each would be asked about on every statement after.
  const live = new Set((await writtenOidNames(ctx, reordered.keys())).map(([oid]) => oid));
  for (const oid of [...reordered.keys()]) {
    if (live.has(oid)) continue;
    reordered.delete(oid);
    written.delete(oid);
  }
  // Rows an open transaction wrote only it sees: they show out of order once it commits,
  // and from then on to everyone.
  const pending = [...reordered.values()].filter((r) => !r.always).flatMap((r) => r.xids);
  const committed = await committedOf(ctx, pending);
  const seen: string[] = [];
  for (const [oid, entry] of reordered) {
    if (!entry.always && entry.xids.some((x) => committed.has(x))) entry.always = true;
    if (entry.always || (s.xid !== null && entry.xids.includes(s.xid))) seen.push(oid);
  }
  if (seen.length === 0) return false;
  const names = await readersOf(ctx, seen);
  for (const { sql: written } of splitStatements(sql)) {
    // A prepared statement runs the text it was prepared with; PREPARE itself runs none.
    const name = /^\s*EXECUTE\s+"?(\w+)/i.exec(written)?.[1];
    const body = /^\s*PREPARE\s+\S+?(?:\s*\([^)]*\))?\s+AS\s+([\s\S]*)$/i.exec(written)?.[1];
    const statement = (name && s.prepared.get(name.toLowerCase())?.text) || body || written;
    // An INSERT's target takes new rows wherever they go: only what it reads counts.
    const source = statement.replace(/^\s*INSERT\s+INTO\s+[^\s(]+(?:\s+AS\s+\w+)?/i, '');
    if (!names.some((n) => mentions(source, n))) continue;
    if (!(await orderSafe(ctx, statement))) return true;
  }
  return false;
}

/**
 * The names that read the tables `oids`: theirs, their parents' (a scan of a parent reads
 * its children), the views and materialized views over them, and the reader's functions
 * whose source names any of these.
 */
async function readersOf(ctx: LayerContext, oids: string[]): Promise<string[]> {
  const [found] = await ctx.backend.exec(
    `WITH RECURSIVE readers(oid) AS (
       SELECT pg_catalog.unnest(pg_catalog.string_to_array($1, ',')::pg_catalog.oid[])
       UNION
       SELECT x.oid FROM readers r, LATERAL (
         SELECT h.inhparent AS oid FROM pg_catalog.pg_inherits h WHERE h.inhrelid = r.oid
         UNION
         SELECT w.ev_class FROM pg_catalog.pg_depend d
           JOIN pg_catalog.pg_rewrite w ON w.oid = d.objid
          WHERE d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
            AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
            AND d.refobjid = r.oid AND w.ev_class <> r.oid) x)
     SELECT c.relname::pg_catalog.text FROM readers r JOIN pg_catalog.pg_class c USING (oid)
     UNION
     SELECT p.proname::pg_catalog.text || '\n' || p.prosrc FROM pg_catalog.pg_proc p
      WHERE p.pronamespace NOT IN ('pg_catalog'::pg_catalog.regnamespace,
              'information_schema'::pg_catalog.regnamespace, 'sim'::pg_catalog.regnamespace)`,
    [oids.join(',')],
  );
  const relations: string[] = [];
  const functions: [name: string, source: string][] = [];
  for (const [row] of found!.rows) {
    const at = row!.indexOf('\n');
    if (at < 0) relations.push(row!);
    else functions.push([row!.slice(0, at), row!.slice(at + 1)]);
  }
  return [
    ...relations,
    ...functions.flatMap(([name, source]) =>
      relations.some((r) => mentions(source, r)) ? [name] : [],
    ),
  ];
}

/** Statements that read no rows of a table, whatever tables they name. */
const readsNone =
  /^\s*(?:BEGIN|START|COMMIT|END|ROLLBACK|ABORT|SAVEPOINT|RELEASE|SET|RESET|SHOW|PREPARE\s+TRANSACTION|COMMENT|GRANT|REVOKE|DROP|TRUNCATE|VACUUM|ANALYZE|ANALYSE|LOCK|CREATE\s+(?:OR\s+REPLACE\s+)?(?:VIEW|FUNCTION|PROCEDURE|TRIGGER|RULE|POLICY)|CREATE\s+INDEX)\b/i;

/** What makes an answer or an effect follow the order rows are met in. */
const inMetOrder =
  /\b(?:OVER|TABLESAMPLE|LIMIT|OFFSET|FETCH|DISTINCT|GROUP|UNION|INTERSECT|EXCEPT|RETURNING|string_agg|array_agg|json_agg|jsonb_agg|json_object_agg|jsonb_object_agg|xmlagg|sum|avg|stddev\w*|variance|var_\w+|corr|covar_\w+|regr_\w+)\b|\b(?:SELECT|TABLE|VALUES)\b[\s\S]*\b(?:SELECT|TABLE|VALUES)\b/i;

/**
 * Whether `statement`, which names a reordered table, gives the same answer and effects
 * whatever order that table's rows lie in: it reads none of them (BEGIN, DDL that scans
 * nothing, VACUUM, whose report `reports` stands for), inserts VALUES, or, without
 * volatile functions, subqueries or anything that follows the order rows are met in
 * (`inMetOrder`), is an UPDATE or DELETE, counts or takes a min or max, finds one row by
 * a unique key, or is a SELECT of one table whose ORDER BY leaves no ties.
 */
async function orderSafe(ctx: LayerContext, statement: string): Promise<boolean> {
  if (readsNone.test(statement) || definesOnly(statement)) return true;
  if (/^\s*EXPLAIN\b/i.test(statement)) return !/\bANALY[SZ]E\b/i.test(statement);
  if (await callsVolatile(ctx, statement)) return false;
  if (/^\s*ALTER\b/i.test(statement)) return true;
  if (await oneRowAtMost(ctx, statement)) return true;
  if (inMetOrder.test(statement)) return false;
  if (/^\s*(?:UPDATE|DELETE)\b/i.test(statement)) return true;
  if (!/^\s*SELECT\b/i.test(statement)) return false;
  return countsOnly.test(statement) || (await totallyOrdered(ctx, statement));
}

/** A CREATE of a table, sequence or type that copies no rows (not CREATE TABLE … AS). */
function definesOnly(statement: string): boolean {
  return (
    /^\s*CREATE\s+(?:(?:GLOBAL|LOCAL|TEMP|TEMPORARY|UNLOGGED)\s+)*(?:TABLE|SEQUENCE|TYPE|SCHEMA|DOMAIN)\b/i.test(
      statement,
    ) && !/\bAS\s*(?:\(|SELECT\b|TABLE\b|VALUES\b|WITH\b|EXECUTE\b)/i.test(statement)
  );
}

/** A SELECT of counts, mins and maxes alone, in one row: none follows the order rows lie in. */
const countsOnly =
  /^\s*SELECT\s+(?:(?:count|min|max|bool_and|bool_or|every)\s*\([^()]*\)(?:\s+(?:AS\s+)?\w+)?\s*,\s*)*(?:count|min|max|bool_and|bool_or|every)\s*\([^()]*\)(?:\s+(?:AS\s+)?\w+)?\s+FROM\b/i;

/** Whether `statement` calls a function PostgreSQL marks volatile (nextval, random, …). */
async function callsVolatile(ctx: LayerContext, statement: string): Promise<boolean> {
  const called = calledNames(statement);
  if (called.length === 0) return false;
  const [volatile] = await ctx.backend.exec(
    `SELECT EXISTS (SELECT FROM pg_catalog.pg_proc
                     WHERE proname = ANY(pg_catalog.string_to_array($1, ',')) AND provolatile = 'v')`,
    [called.join(',')],
  );
  return volatile!.rows[0]![0] === 't';
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
  // An output column of that name is what ORDER BY sorts by, whatever it holds.
  const list = statement.slice(0, statement.search(/\bFROM\b/i)).replace(/^\s*SELECT\s+/i, '');
  if (
    columns.some((c) =>
      new RegExp(String.raw`(?:\bAS\s+|[\w)"']\s+)"?${c}"?\s*(?:,|$)`, 'i').test(list),
    )
  ) {
    return false;
  }
  return uniqueColumn(ctx, table, columns);
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
    ? [bareName(byKey)]
    : where.split(/\s+AND\s+/i).flatMap((condition) => equality.exec(condition.trim())?.[2] ?? []);
  return uniqueColumn(ctx, m[1]!, columns);
}

/** Which of the transactions `xids` have committed. */
async function committedOf(ctx: LayerContext, xids: string[]): Promise<Set<string>> {
  if (xids.length === 0) return new Set();
  const [read] = await ctx.backend.exec(
    `SELECT x FROM pg_catalog.unnest(pg_catalog.string_to_array($1, ',')) x
      WHERE pg_catalog.pg_xact_status(x::pg_catalog.xid8) = 'committed'`,
    [[...new Set(xids)].join(',')],
  );
  return new Set(read!.rows.map(([x]) => x!));
}

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
