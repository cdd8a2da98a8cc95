// What other transactions wrote while a parked transaction waited to go on, by PostgreSQL's
// own statistics: a READ COMMITTED transaction whose tables nobody wrote in the meantime
// reads the same rows when it is replayed (resume.ts). ARCHITECTURE.md, "Resuming a
// parked transaction", says why this is enough.
import type { LayerContext, WriteCounts } from './context';

/**
 * Makes the statistics current: pg_stat_force_next_flush() has the backend flush what
 * its transactions counted when it next goes idle outside a transaction, which is at the
 * end of that very statement when none is open (PostgresMain calls pgstat_report_stat
 * there); without it a count may lag by up to a second (PGSTAT_MIN_INTERVAL).
 */
async function flushStatistics(ctx: LayerContext): Promise<void> {
  await ctx.backend.exec('SELECT pg_catalog.pg_stat_force_next_flush()');
}

/**
 * A query's first table, `parked`: the virtual transaction of the prepared transaction
 * whose gid is the query's first parameter, by which pg_locks lists its locks.
 */
export const parkedCte = `parked AS (
       SELECT l.virtualtransaction FROM pg_catalog.pg_locks l
         JOIN pg_catalog.pg_prepared_xacts p
           ON l.locktype = 'transactionid' AND l.transactionid = p.transaction
        WHERE p.gid = $1)`;

/**
 * How many transactions committed since the snapshot in parameter `snapshot` was taken
 * (those it does not see that have committed), as SQL.
 */
export const committedSince = (snapshot: string) =>
  `SELECT pg_catalog.count(*) FROM pg_catalog.generate_series(
          pg_catalog.pg_snapshot_xmin(${snapshot}::pg_catalog.pg_snapshot)::pg_catalog.text::pg_catalog.int8,
          pg_catalog.pg_snapshot_xmax(pg_catalog.pg_current_snapshot())::pg_catalog.text::pg_catalog.int8 - 1) x
         WHERE NOT pg_catalog.pg_visible_in_snapshot(x::pg_catalog.text::pg_catalog.xid8, ${snapshot}::pg_catalog.pg_snapshot)
           AND pg_catalog.pg_xact_status(x::pg_catalog.text::pg_catalog.xid8) = 'committed'`;

/** The rows inserted, updated and deleted in relation `oid`, as SQL. */
const written = (oid: string) =>
  `pg_catalog.pg_stat_get_tuples_inserted(${oid}) + pg_catalog.pg_stat_get_tuples_updated(${oid}) + ` +
  `pg_catalog.pg_stat_get_tuples_deleted(${oid})`;

/** The rows inserted, updated and deleted over the catalog's tables as a whole, as SQL. */
const catalogWritten = `SELECT pg_catalog.sum(${written('c.oid')})::pg_catalog.text
       FROM pg_catalog.pg_class c
      WHERE c.relnamespace = 'pg_catalog'::pg_catalog.regnamespace AND c.relkind = 'r'`;

/**
 * The running total of rows written over the catalog by transactions that have ended, so
 * that a later reading differs only if one that ended in between changed the catalog;
 * null when a transaction is open in the backend.
 */
export async function catalogWrites(ctx: LayerContext): Promise<string | null> {
  if (ctx.resident !== null) return null;
  await flushStatistics(ctx);
  const [read] = await ctx.backend.exec(catalogWritten);
  return read!.rows[0]?.[0] ?? '0';
}

/**
 * The running totals of rows inserted, updated and deleted in each relation outside the
 * catalog that the prepared transaction `gid` holds a lock on, and over the catalog's
 * tables as a whole (the layer's own lookups lock catalog relations in the transactions
 * they run in, so which of those the reader's statements read cannot be told from the
 * locks), with how many transactions committed since `snapshot` was taken.
 * Only transactions that have ended are counted (a prepared one's own counts wait for its
 * COMMIT or ROLLBACK PREPARED), so two readings differ only if a transaction that ended
 * between them wrote there. Asked with no transaction open in the backend; null when one
 * is.
 */
async function readCounts(
  ctx: LayerContext,
  gid: string,
  snapshot: string,
): Promise<(WriteCounts & { committed: string }) | null> {
  if (ctx.resident !== null) return null;
  await flushStatistics(ctx);
  const [read] = await ctx.backend.exec(
    `WITH ${parkedCte},
     locked AS (
       SELECT DISTINCT l.relation AS oid FROM pg_catalog.pg_locks l JOIN parked USING (virtualtransaction)
        WHERE l.locktype = 'relation')
     SELECT c.oid::pg_catalog.text, (${written('c.oid')})::pg_catalog.text
       FROM pg_catalog.pg_class c JOIN locked USING (oid)
      WHERE c.relnamespace <> 'pg_catalog'::pg_catalog.regnamespace
     UNION ALL
     SELECT 'catalog', (${catalogWritten})
     UNION ALL
     SELECT 'committed', (${committedSince('$2')})::pg_catalog.text`,
    [gid, snapshot],
  );
  const relations: Record<string, string> = {};
  let catalog = '';
  let committed = '';
  for (const [key, n] of read!.rows) {
    if (key === 'catalog') catalog = n ?? '0';
    else if (key === 'committed') committed = n ?? '';
    else relations[key!] = n ?? '0';
  }
  return { relations, catalog, committed };
}

/**
 * What has been written where the prepared transaction `gid`, whose first snapshot was
 * `snapshot`, reads, to tell later whether anything was written there since (`writtenSince`).
 * Null when a transaction committed since that snapshot: some of its statements may have
 * read that commit and others not, which counts from here cannot tell.
 */
export async function writeCounts(
  ctx: LayerContext,
  gid: string,
  snapshot: string,
): Promise<WriteCounts | null> {
  const read = await readCounts(ctx, gid, snapshot);
  if (!read || read.committed !== '0') return null;
  return { relations: read.relations, catalog: read.catalog };
}

/**
 * Why `before` no longer holds (a relation it counted, or the catalog, was written since),
 * or null when nothing it counted changed. `gid` is the same prepared transaction, which
 * has run nothing since, so it holds locks on the same relations; `snapshot` its first.
 * When only relations were written, it says which (`written`, by OID).
 */
export async function writtenSince(
  ctx: LayerContext,
  gid: string,
  snapshot: string,
  before: WriteCounts,
): Promise<string | { written: string[] } | null> {
  const now = await readCounts(ctx, gid, snapshot);
  if (!now) return 'another transaction is open';
  if (now.catalog !== before.catalog) return 'the catalog changed since';
  const written = Object.entries(now.relations)
    .filter(([oid, n]) => before.relations[oid] !== n)
    .map(([oid]) => oid);
  return written.length > 0 ? { written } : null;
}
