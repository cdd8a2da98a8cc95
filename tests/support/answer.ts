// A statement's outcome as one comparable value, for tests that run the same sequence on
// both engines and compare.
import { NotExpressibleError, PgError, type Session } from '../../src/engine/types';

/**
 * The rows of the statement's last result, or its error as `SQLSTATE message`, or the
 * engine's refusal as `not expressible (kind): words`.
 */
export async function answer(s: Session, sql: string): Promise<unknown> {
  try {
    return (await s.query(sql)).results.at(-1)?.rows ?? [];
  } catch (e) {
    if (e instanceof PgError) return `${e.code} ${e.message}`;
    if (e instanceof NotExpressibleError) return `not expressible (${e.kind}): ${e.message}`;
    throw e;
  }
}

/** Resolves to `p`'s answer, or to `waiting` if it has none after `ms`. */
export async function within(p: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve('waiting'), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves to `call`'s answer, or to `waiting` once `looker` sees `session` waiting on a
 * lock. A fixed pause is not enough to order waiters on a busy machine: the
 * next one may reach the row first, and the queue is then a different one.
 */
export async function answerOrLockWait(
  call: Promise<unknown>,
  looker: Session,
  session: Session,
  ms = 15_000,
): Promise<unknown> {
  const deadline = Date.now() + ms;
  for (;;) {
    const now = await within(call, 40);
    if (now !== 'waiting' || Date.now() > deadline) return now;
    const { results } = await looker.query(
      `SELECT wait_event_type FROM pg_stat_activity WHERE pid = ${session.pid}`,
    );
    if (results.at(-1)?.rows[0]?.[0] === 'Lock') return 'waiting';
  }
}

/** The refusal's kind, from `answer`'s text, or the answer itself. */
export const kindOf = (a: unknown) =>
  typeof a === 'string' ? (/^not expressible \(([^)]+)\)/.exec(a)?.[1] ?? a) : a;
