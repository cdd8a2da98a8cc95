// Keys PostgreSQL enforces, and statements of one table: what tells that an answer names
// its rows, or that an order leaves no ties (claims.ts, replay-traces.ts).
import { identifier } from '../waits';
import type { LayerContext } from './context';

/** A column's name as RowDescription gives it: unqualified, unquoted, folded if unquoted. */
export function bareName(column: string): string {
  const last = column.slice(column.lastIndexOf('.') + 1);
  return last.startsWith('"') ? last.slice(1, -1) : last.toLowerCase();
}

/** A SELECT from one table: its FROM names the table and at most an alias. */
export const fromOneTable = new RegExp(
  String.raw`^\s*SELECT\b[\s\S]*?\bFROM\s+(?:ONLY\s+)?(${identifier})(?:\s+(?:AS\s+)?(?!(?:WHERE|ORDER|LIMIT|OFFSET|FETCH|FOR)\b)[A-Za-z_]\w*)?\s*(?:;?\s*$|\b(?:WHERE|ORDER|LIMIT|OFFSET|FETCH|FOR)\b)`,
  'i',
);

/**
 * A unique index of the table `r.oid` that PostgreSQL enforces over every row a scan of it
 * meets, as SQL: valid, without a predicate or expressions, over columns without NULLs,
 * on a table with no inheritance children (a partitioned one's valid index covers all of
 * its partitions; a parent's does not cover its children's rows).
 */
export const enforcedUnique = `i.indrelid = r.oid AND i.indisunique AND i.indisvalid
          AND i.indpred IS NULL AND i.indexprs IS NULL
          AND NOT EXISTS (
            SELECT FROM pg_catalog.pg_attribute a
             WHERE a.attrelid = r.oid AND a.attnum = ANY (i.indkey::pg_catalog.int2[])
               AND NOT a.attnotnull)
          AND (r.relkind = 'p' OR NOT EXISTS (
            SELECT FROM pg_catalog.pg_inherits h WHERE h.inhparent = r.oid))`;

/**
 * Whether one of `columns` (names as the catalog holds them) of `table` has a unique index
 * of its own that PostgreSQL enforces over every row (`enforcedUnique`); with `sameAs`,
 * only when that names the same table.
 */
export async function uniqueColumn(
  ctx: LayerContext,
  table: string,
  columns: string[],
  sameAs = table,
): Promise<boolean> {
  if (columns.length === 0) return false;
  const [unique] = await ctx.backend.exec(
    `SELECT r.oid = pg_catalog.to_regclass($3) AND EXISTS (
       SELECT FROM pg_catalog.pg_index i
         JOIN pg_catalog.pg_attribute k ON k.attrelid = i.indrelid AND k.attnum = i.indkey[0]
        WHERE ${enforcedUnique} AND i.indnatts = 1
          AND k.attname = ANY(pg_catalog.string_to_array($2, ',')))
       FROM pg_catalog.pg_class r WHERE r.oid = pg_catalog.to_regclass($1)`,
    [table, columns.join(','), sameAs],
  );
  return unique!.rows[0]?.[0] === 't';
}
