// Running an exercise's checks: each item's SQL on a session of the exercise's own, on the
// reader's PostgreSQL, and its verdict on PostgreSQL's answer. Helpers below read the
// answers the checks get (VACUUM's notice lines, a column, the cells of a result).
import {
  NotExpressibleError,
  PgError,
  type Notice,
  type QueryResult,
  type Session,
  type StatementResult,
} from '../engine/types';
import type { CheckContext, CheckItem, CheckOutcome, CheckReport } from './types';

export interface CheckOptions {
  /**
   * Cancels `session`'s statement when it waits for a lock (the page engine's Cancel);
   * without it a check that waits is waited for.
   */
  cancel?: (session: Session) => Promise<boolean>;
  /** How long a check's query may take before it is taken for a lock wait (ms). */
  waitMs?: number;
}

/** How long a check query may run before it is cancelled as waiting for a lock. */
const CHECK_WAIT_MS = 3000;

/** Runs every item in order on `session`; the goal is reached when every item held. */
export async function runChecks(
  session: Session,
  items: CheckItem[],
  context: CheckContext,
  options: CheckOptions = {},
): Promise<CheckReport> {
  const outcomes: CheckOutcome[] = [];
  for (const item of items) outcomes.push(await runItem(session, item, context, options));
  return { outcomes, solved: outcomes.every((o) => o.held) };
}

async function runItem(
  session: Session,
  item: CheckItem,
  context: CheckContext,
  options: CheckOptions,
): Promise<CheckOutcome> {
  const sql = item.sql(context);
  const base = { says: item.says, sql };
  if (sql === null) return { ...base, ...item.judge(null, context) };
  try {
    const answer = await withinLockWait(session, session.query(sql), options);
    if (answer === 'waited')
      return {
        ...base,
        held: false,
        seen: 'the check had to wait for a lock another session holds',
        failure: { kind: 'lock-wait' },
      };
    return { ...base, ...item.judge(answer, context) };
  } catch (error) {
    if (error instanceof PgError)
      return {
        ...base,
        held: false,
        seen: `the check's query failed: ${error.message}`,
        failure: { kind: 'query-error', code: error.code, message: error.message },
      };
    if (error instanceof NotExpressibleError)
      return {
        ...base,
        held: false,
        seen: 'the browser cannot run this check truthfully now',
        failure: { kind: 'refused', refusal: error.kind, reason: error.message },
      };
    throw error;
  }
}

/** `query`'s answer, or `waited` when it ran past the limit and was cancelled. */
async function withinLockWait(
  session: Session,
  query: Promise<QueryResult>,
  options: CheckOptions,
): Promise<QueryResult | 'waited'> {
  const cancel = options.cancel;
  if (!cancel) return query;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), options.waitMs ?? CHECK_WAIT_MS);
  });
  try {
    const first = await Promise.race([query, late]);
    if (first !== 'late') return first;
    await cancel(session);
    // The cancelled statement answers with 57014; anything else it answers is kept.
    return await query.catch((error: unknown) => {
      if (error instanceof PgError && error.code === '57014') return 'waited' as const;
      throw error;
    });
  } finally {
    clearTimeout(timer);
  }
}

/** The last result that has columns. */
export function lastResult(answer: QueryResult | null): StatementResult | undefined {
  return answer?.results.findLast((r) => r.fields.length > 0);
}

/** The first row's value in `column` of the last result with columns. */
export function firstValue(answer: QueryResult | null, column: string): string | null | undefined {
  const result = lastResult(answer);
  const at = result?.fields.findIndex((f) => f.name === column) ?? -1;
  return at < 0 ? undefined : result!.rows[0]?.[at];
}

/** `VACUUM (VERBOSE)`'s `tuples:` line for the table itself (its toast table's comes later). */
export function vacuumTuplesLine(notices: Notice[]): string | undefined {
  return notices
    .flatMap((n) => n.message.split('\n'))
    .map((line) => line.trim())
    .find((line) => line.startsWith('tuples:'));
}

/** Whether VACUUM skipped the table because another session holds a lock on it. */
export function vacuumSkipped(notices: Notice[]): boolean {
  return notices.some((n) => /^skipping vacuum of .* lock not available/.test(n.message));
}

/** Every cell of every row of `result`, as text (NULL left out). */
export function cells(result: StatementResult | undefined): Set<string> {
  return new Set((result?.rows ?? []).flat().filter((v): v is string => v !== null));
}

/** The numbers of a PostgreSQL array printed as text, e.g. `{3,4}` → [3, 4]. */
export function intArray(text: string | null | undefined): number[] {
  if (!text || text === '{}') return [];
  return text
    .replace(/^\{|\}$/g, '')
    .split(',')
    .map(Number)
    .filter((n) => Number.isFinite(n));
}

/** The elements of a PostgreSQL text array printed as text, e.g. `{api,reader}`. */
export function textArray(text: string | null | undefined): string[] {
  if (!text || text === '{}') return [];
  return text
    .replace(/^\{|\}$/g, '')
    .split(',')
    .map((v) => v.replace(/^"|"$/g, ''));
}
