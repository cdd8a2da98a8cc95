// Cumulative statistics (pg_stat_user_functions, pg_stat_user_tables, pg_statio_*) are
// counted by each backend and kept there until it flushes them, which a server's backend
// does only when its session is idle outside a transaction (PostgresMain calls
// pgstat_report_stat there). Here every session shares PGlite's one backend: its flush,
// asked by any session or by the layer, sends out what all of them counted. And a
// transaction's cached view of the statistics (stats_fetch_consistency `cache` or
// `snapshot`) goes when the backend switches to another session's transaction. Where
// either would show, the statement is refused (`statistics-shared`).
import type { LayerContext, SessionRecord } from './context';
import { splitStatements } from '../../split-statements';
import { calledNames } from '../waits';

/** Calls of functions, which a backend counts as they run (when track_functions says so). */
export const functionCounts =
  /\bpg_stat_(?:xact_)?user_functions\b|\bpg_stat_get_(?:xact_)?function_\w+/i;

/**
 * Counts a backend adds to tables' statistics as a statement runs, not when its
 * transaction ends: scans, rows read, blocks read. Named by view, column or function, or
 * read whole by `*` from a view of tables', indexes' or the database's statistics.
 */
export const scanCounts = new RegExp(
  [
    String.raw`\bpg_stat_get_(?:xact_)?(?:numscans|lastscan|tuples_returned|tuples_fetched|blocks_fetched|blocks_hit)\b`,
    String.raw`\bpg_statio_\w+|\bpg_stat_io\b`,
    String.raw`\b(?:seq_scan|seq_tup_read|idx_scan|idx_tup_read|idx_tup_fetch|last_seq_scan|last_idx_scan|\w*blks_(?:read|hit))\b`,
    String.raw`\*[\s\S]*\bpg_stat_(?:xact_)?(?:all|user|sys)_(?:tables|indexes)\b|\*[\s\S]*\bpg_stat_database\b`,
  ].join('|'),
  'i',
);

/**
 * The database's own counts: transactions committed and rolled back, rows, blocks,
 * deadlocks, which count the layer's work too (its transactions that set others aside and
 * take them up again, its lookups; and deadlocks it finds itself, which PostgreSQL never
 * sees).
 */
const databaseCounts = /\bpg_stat_database\w*|\bpg_stat_get_db_\w+/i;

/** The counts a backend has made and not yet sent out, its own transaction's among them. */
const pendingCounts = /\bpg_stat_(?:get_)?xact_\w+/i;

/**
 * Any cumulative statistics: the pg_stat and pg_statio views and pg_stat_get functions,
 * but those that show sessions and progress as they are now, which are not cached.
 */
const anyStatistics =
  /\bpg_stat(?:io)?_(?!activity\b|ssl\b|gssapi\b|progress_|replication\b|wal_receiver\b|subscription\b|recovery_prefetch\b|force_next_flush\b)\w+|\bpg_stat_get_(?!activity\b|backend_|progress_)\w+/i;

/** Whether `sql` reads cumulative statistics at all. */
export function readsStatistics(sql: string): boolean {
  return anyStatistics.test(sql);
}

/** Statements that count nothing: a transaction's own beginning and its settings. */
const countsNothing = /^\s*(?:BEGIN|START\s+TRANSACTION|SET|RESET|SHOW|SAVEPOINT|RELEASE)\b/i;

/** What a read of the statistics may call besides them, none of which a backend counts. */
const uncounted = new Set(
  'in exists any all some values row array cast count sum min max avg coalesce nullif greatest least lower upper round'.split(
    ' ',
  ),
);

/**
 * Whether `statement` counts what a backend counts as it runs: anything but the above, and
 * a read of the statistics that calls nothing else (its own scans of the catalog aside).
 */
function counts(statement: string): boolean {
  if (countsNothing.test(statement)) return false;
  if (!readsStatistics(statement)) return true;
  return calledNames(statement).some(
    (called) => !called.startsWith('pg_') && !uncounted.has(called),
  );
}

/**
 * The number of the first statement of `r`'s open transaction whose text `test` holds
 * for, or 0 when that cannot be told (its log was dropped); null when none.
 */
function firstLogged(r: SessionRecord, test: (sql: string) => boolean): number | null {
  if (r.holding.kind === 'none' || r.holding.kind === 'lost') return null;
  if (r.xactLog === null) return 0;
  const entry = r.xactLog.find((e) => test(e.sql));
  return entry === undefined ? null : (entry.seq ?? 0);
}

/** Whether a logged entry has a statement that may have counted something. */
const counted = (sql: string) => splitStatements(sql).some(({ sql: one }) => counts(one));

/** Whether another session than `s` sent the backend a statement after number `seq`. */
function othersRanSince(ctx: LayerContext, s: SessionRecord, seq: number): boolean {
  return [...ctx.sessions.values()].some((r) => r !== s && (r.lastSeq ?? -1) > seq);
}

/**
 * Why `s`'s statement `sql`, which reads statistics, would show them otherwise than a
 * server, or null:
 * - it reads counts added as statements run while a session's open transaction ran such a
 *   statement (another's, or its own before another session's): a server keeps them in
 *   that session's backend until the transaction ends, and here a flush has sent them out;
 * - its transaction read statistics before another session's statement and caches them
 *   (`stats_fetch_consistency`), which the switch to the other transaction dropped.
 */
export async function statisticsShared(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<string | null> {
  // What the backend counted and has not sent out: any session's, since its last flush.
  const users = ctx.backendUsers;
  if (users !== 'none' && users !== s.id) {
    if (pendingCounts.test(sql)) return 'xact';
    if (databaseCounts.test(sql)) return 'database';
  }
  if (ctx.sessions.size < 2) return null;
  const scans = scanCounts.test(sql);
  if (scans || functionCounts.test(sql)) {
    for (const r of ctx.sessions.values()) {
      const first = firstLogged(r, counted);
      if (first === null) continue;
      // Without track_functions a session counts no calls.
      if (!scans && (await setting(ctx, r, 'track_functions')) === 'none') continue;
      if (r !== s) return 'pending';
      if (othersRanSince(ctx, s, first)) return 'own-pending';
    }
  }
  const read = firstLogged(s, readsStatistics);
  if (read === null || !othersRanSince(ctx, s, read)) return null;
  return (await setting(ctx, s, 'stats_fetch_consistency')) === 'none' ? null : 'cached';
}

/**
 * `r`'s value of setting `name`: the backend's own while `r`'s settings are loaded, else
 * what was saved of them, else the backend's default.
 */
async function setting(ctx: LayerContext, r: SessionRecord, name: string): Promise<string> {
  const saved = r.settings.find(([n]) => n === name);
  if (ctx.loaded !== r && saved) return saved[1];
  const [read] = await ctx.backend.exec(
    ctx.loaded === r
      ? 'SELECT pg_catalog.current_setting($1)'
      : 'SELECT reset_val FROM pg_catalog.pg_settings WHERE name = $1',
    [name],
  );
  return read!.rows[0]![0]!;
}
