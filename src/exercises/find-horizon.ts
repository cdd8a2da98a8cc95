// Find the session that holds the horizon back, with one query: the writer idle in its
// transaction has an XID and no snapshot, so `backend_xmin IS NOT NULL` misses it.
import { cells, lastResult } from './checks';
import { checkSession, cleanerSteps, exerciseScenario, jobsAndLedger } from './scenario';
import type { SessionsExercise } from './types';

const id = 'find-horizon';

/** The reader's latest result, and whether their run was one statement that ran. */
function readerResult(answer: { result: { results: unknown[] }; errorCode?: string } | null) {
  return answer && !answer.errorCode && answer.result.results.length === 1;
}

export const findHorizon: SessionsExercise = {
  id,
  kind: 'sessions',
  title: 'Find the session that holds the horizon back, with one query',
  practises: 'activity',
  goal:
    'VACUUM cannot remove 40 dead rows. Write one query whose result names the session that ' +
    'holds the horizon back (by its pid or application_name) and no other session of the ' +
    'exercise. Your own session may show.',
  situation:
    'Five sessions are connected. Three of them are “idle in transaction”, one ran a statement ' +
    'and went idle, and the cleaner deleted 40 rows that VACUUM had to keep. Only one session ' +
    'holds the horizon back.',
  lesson:
    'A writer idle in its transaction has an XID (backend_xid) and no snapshot: its backend_xmin ' +
    'is NULL between its statements. A query that looks only at backend_xmin misses it; ' +
    '“idle in transaction” alone finds readers that hold nothing. ' +
    'COALESCE(backend_xmin, backend_xid) finds exactly what holds the horizon.',
  hints: [
    'Being “idle in transaction” is not enough to hold the horizon: what holds it is an XID or a ' +
      'snapshot.',
    'pg_stat_activity has both: backend_xid (the session’s transaction wrote) and backend_xmin ' +
      '(it holds a snapshot).',
    'Ask for sessions where COALESCE(backend_xmin, backend_xid) IS NOT NULL, oldest first: ' +
      'ORDER BY age(COALESCE(backend_xmin, backend_xid)) DESC.',
  ],
  solution: {
    says:
      'The article’s query: it finds worker-07 by its XID, and your own query, which holds a ' +
      'snapshot while it runs.',
    steps: [
      {
        session: 'you',
        sql: `SELECT pid, application_name, state,
       age(COALESCE(backend_xmin, backend_xid)) AS holding_back_by
  FROM pg_stat_activity
 WHERE COALESCE(backend_xmin, backend_xid) IS NOT NULL
 ORDER BY holding_back_by DESC;`,
      },
    ],
  },
  scenario: exerciseScenario(id, {
    title: 'Find the session that holds the horizon back',
    summary: 'Five sessions; one holds the horizon.',
    lesson: 'COALESCE(backend_xmin, backend_xid) finds it.',
    sessions: [
      { name: 'worker-03', role_in_story: 'a worker between jobs' },
      { name: 'worker-07', role_in_story: 'a worker that holds its transaction while it works' },
      { name: 'reader', role_in_story: 'a READ COMMITTED reader, idle in its transaction' },
      { name: 'api', role_in_story: 'an API connection, idle after a bare BEGIN' },
      { name: 'cleaner', role_in_story: 'deletes old ledger rows and runs VACUUM' },
      { name: 'you', role_in_story: 'you, asking pg_stat_activity' },
    ],
    ...jobsAndLedger(6),
    steps: [
      {
        session: 'worker-03',
        sql: "SELECT count(*) FROM jobs WHERE status = 'queued';",
        say: 'worker-03 looks for work and goes idle: no transaction is open.',
      },
      {
        session: 'worker-07',
        sql: "BEGIN;\nUPDATE jobs SET status = 'running' WHERE id = 1;",
        say: 'worker-07 claims job 1 and keeps its transaction open while it works.',
      },
      {
        session: 'reader',
        sql: 'BEGIN;\nSELECT count(*) FROM jobs;',
        say: 'A READ COMMITTED reader reads and stays in its transaction.',
      },
      {
        session: 'api',
        sql: 'BEGIN;',
        say: 'An API connection opens a transaction and does nothing yet.',
      },
      ...cleanerSteps('VACUUM has to keep all 40: something holds the horizon back.'),
      {
        session: 'you',
        sql: "SELECT application_name, state FROM pg_stat_activity WHERE state = 'idle in transaction' ORDER BY 1;",
        say: 'Three sessions are idle in transaction.',
        claims: [
          {
            says: 'worker-07, the reader and the API connection are idle in transaction',
            rows: {
              columns: ['application_name'],
              equals: [['api'], ['reader'], ['worker-07']],
            },
          },
        ],
      },
    ],
  }),
  tabs: [
    {
      session: 'you',
      sql: `-- One query whose result names the session holding the horizon back.
-- The usual first try (run it: is it right?):
SELECT pid, application_name, state
  FROM pg_stat_activity
 WHERE backend_xmin IS NOT NULL;`,
    },
  ],
  checkSession,
  checks: [
    {
      says: 'Your latest run in the you tab was one query, and it ran',
      sql: () => null,
      judge: (_none, { answer }) => {
        if (!answer) return { held: false, seen: 'you have not run a query yet' };
        if (answer.errorCode) return { held: false, seen: `it failed (${answer.errorCode})` };
        const n = answer.result.results.length;
        return { held: n === 1, seen: `${n} statement${n === 1 ? '' : 's'} ran` };
      },
    },
    {
      says: 'Its result names the session that holds the horizon back',
      // What holds it, asked of PostgreSQL: the oldest XID or snapshot of any other session.
      sql: () => `SELECT pid, application_name
  FROM pg_stat_activity
 WHERE COALESCE(backend_xmin, backend_xid) IS NOT NULL
   AND pid <> pg_backend_pid()
 ORDER BY age(COALESCE(backend_xmin, backend_xid)) DESC
 LIMIT 1`,
      judge: (truth, { answer }) => {
        const holder = lastResult(truth)?.rows[0];
        if (!holder) return { held: false, seen: 'no session holds the horizon back any more' };
        const [pid, name] = holder;
        const named = readerResult(answer) ? cells(lastResult(answer!.result)) : new Set();
        const held = named.has(pid!) || named.has(name!);
        return {
          held,
          seen: `${name} (pid ${pid}) holds it; your result ${held ? 'names' : 'does not name'} it`,
        };
      },
    },
    {
      says: 'It names no other session of the exercise',
      sql: () => `SELECT pid, application_name,
       COALESCE(backend_xmin, backend_xid) IS NOT NULL AS holds
  FROM pg_stat_activity
 WHERE pid <> pg_backend_pid()
 ORDER BY pid`,
      judge: (sessions, { answer, pids }) => {
        if (!readerResult(answer)) return { held: false, seen: 'no result to look at' };
        const named = cells(lastResult(answer!.result));
        const others = (lastResult(sessions)?.rows ?? []).filter(
          ([pid, , holds]) => holds !== 't' && pid !== String(pids.you),
        );
        const also = others.filter(([pid, name]) => named.has(pid!) || named.has(name!));
        return also.length === 0
          ? { held: true, seen: 'no other session is named' }
          : {
              held: false,
              seen: `it also names ${also
                .map((r) => r[1])
                .sort()
                .join(', ')}`,
            };
      },
    },
  ],
};
