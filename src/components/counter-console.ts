// What the console under the counter starts with: questions about the counter's own
// sessions and queue, in the sim's real tables and columns (src/sim/schema.ts), reading
// only, so running it leaves the counter's queue as it is.
import { horizonSql } from '../sim/queries';

/** The article's horizon query (the one the counter's button runs), a clause a line. */
export function readableSql(oneLine: string): string {
  return oneLine
    .replace(/ (FROM|WHERE|AND|ORDER BY) /g, '\n  $1 ')
    .replace(/, (?=age\(|now\(\))/g, ',\n       ');
}

/** The first tab's editor text on /lab/counter/: each statement with its comment. */
export const counterConsoleSql = [
  '-- Ctrl+Enter (⌘+Enter on a Mac) runs everything in this box. It only reads.',
  "-- The article's query: who holds the horizon back, the furthest first.",
  readableSql(horizonSql),
  '-- The counter’s queue (the table jobs), by status.',
  'SELECT status, count(*) AS jobs FROM jobs GROUP BY status ORDER BY status;',
  '-- The jobs being worked on now, and which worker holds each.',
  "SELECT id, kind, locked_by, attempts, heartbeat\n  FROM jobs WHERE status = 'running' ORDER BY id;",
].join('\n');
