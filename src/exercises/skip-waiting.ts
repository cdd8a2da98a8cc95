// Make worker B stop waiting without committing worker A: SKIP LOCKED steps over the rows
// another transaction holds.
import { firstValue, intArray, lastResult, textArray } from './checks';
import { checkSession, exerciseScenario } from './scenario';
import type { SessionsExercise } from './types';

const id = 'skip-waiting';

/** The claim, with the row lock it takes. */
const claim = (lock: string) => `UPDATE jobs SET status = 'running', attempts = attempts + 1
 WHERE id IN (SELECT id FROM jobs
               WHERE status = 'queued'
               ORDER BY id ${lock} LIMIT 2)
RETURNING id;`;

/** Which jobs a session's open transaction holds: the rows whose xmax is its XID. */
const holdsSql = (pid: number) => `SELECT state, backend_xid,
       array(SELECT j.id FROM jobs j WHERE j.xmax::text = a.backend_xid::text ORDER BY j.id) AS holds
  FROM pg_stat_activity a
 WHERE a.pid = ${pid}`;

/**
 * The jobs locked by an open transaction other than worker-a's, and who else has an XID.
 * A row a transaction locked or changed carries its XID in xmax; the check cannot name
 * worker-b's XID directly, since a statement that waited may have written from a
 * subtransaction (the browser's engine runs it again inside a savepoint), so the rows are
 * worker-b's when it is the only other session whose transaction has an XID. xmax is read
 * as an xid8 from its text, which holds while the XID epoch is 0, as in a fresh database.
 */
const othersSql = (a: number, b: number) => `SELECT b.state,
       b.backend_xid IS NOT NULL AS has_xid,
       array(SELECT j.id FROM jobs j
              WHERE j.xmax::text <> '0'
                AND pg_xact_status(j.xmax::text::xid8) = 'in progress'
                AND j.xmax::text IS DISTINCT FROM
                    (SELECT a.backend_xid::text FROM pg_stat_activity a WHERE a.pid = ${a})
              ORDER BY j.id) AS held,
       array(SELECT o.application_name FROM pg_stat_activity o
              WHERE o.backend_xid IS NOT NULL AND o.pid NOT IN (${a}, ${b})
              ORDER BY 1) AS other_writers
  FROM pg_stat_activity b
 WHERE b.pid = ${b}`;

export const skipWaiting: SessionsExercise = {
  id,
  kind: 'sessions',
  title: 'Get worker B working without committing worker A',
  practises: 'skip-locked',
  goal:
    'worker-b is stuck behind worker-a. Make worker-b hold jobs of its own in an open ' +
    'transaction, with nobody waiting, while worker-a keeps its transaction and its jobs 1 and 2.',
  situation:
    'worker-a claimed jobs 1 and 2 and is still working, its transaction open. worker-b ran the ' +
    'same claim a moment later, with FOR UPDATE alone, and waits for worker-a’s rows.',
  lesson:
    'With FOR UPDATE alone every worker queues behind the one that locked the first free row. ' +
    'FOR UPDATE SKIP LOCKED steps over rows another transaction holds and takes the next ones at ' +
    'once; no job is taken twice either way.',
  hints: [
    'worker-b waits because its claim locks rows with FOR UPDATE, and worker-a has locked them. ' +
      'While it waits, its tab has a Cancel button.',
    'A cancelled statement leaves worker-b’s transaction aborted: ROLLBACK ends it.',
    'Claim again, in a new transaction, with FOR UPDATE SKIP LOCKED in place of FOR UPDATE.',
  ],
  solution: {
    says:
      'Cancel worker-b’s waiting claim, end its failed transaction, and claim again with ' +
      'SKIP LOCKED, which steps over jobs 1 and 2 and takes 3 and 4 at once.',
    steps: [
      { session: 'worker-b', sql: '', cancel: true },
      { session: 'worker-b', sql: 'ROLLBACK;' },
      { session: 'worker-b', sql: `BEGIN;\n${claim('FOR UPDATE SKIP LOCKED')}` },
    ],
  },
  scenario: exerciseScenario(id, {
    title: 'Get worker B working without committing worker A',
    summary: 'worker-b waits behind worker-a’s row locks.',
    lesson: 'SKIP LOCKED steps over rows another transaction holds.',
    sessions: [
      { name: 'worker-a', role_in_story: 'a worker, first to claim, still working' },
      { name: 'worker-b', role_in_story: 'a worker, a moment later' },
      { name: 'you', role_in_story: 'you, watching pg_stat_activity' },
    ],
    setup: `CREATE TABLE jobs (
  id int PRIMARY KEY,
  status text NOT NULL DEFAULT 'queued',
  attempts int NOT NULL DEFAULT 0
);
INSERT INTO jobs (id) SELECT generate_series(1, 6);`,
    teardown: 'DROP TABLE jobs;',
    steps: [
      {
        session: 'worker-a',
        sql: `BEGIN;\n${claim('FOR UPDATE')}`,
        say: 'worker-a claims the two oldest jobs and keeps its transaction open while it works.',
        claims: [
          { says: 'worker-a takes jobs 1 and 2', rows: { equals: [[1], [2]], any_order: true } },
        ],
      },
      {
        session: 'worker-b',
        sql: 'BEGIN;',
        say: 'worker-b opens a transaction of its own.',
      },
    ],
  }),
  leftRunning: { session: 'worker-b', sql: claim('FOR UPDATE') },
  tabs: [
    { session: 'worker-a', sql: '-- worker-a’s connection: its transaction is still open.\n' },
    {
      session: 'worker-b',
      sql: `-- worker-b's claim is waiting. The claim it sent:
-- ${claim('FOR UPDATE').split('\n').join('\n-- ')}
`,
    },
    {
      session: 'you',
      sql: `SELECT pid, application_name, state, wait_event_type, wait_event
  FROM pg_stat_activity
 ORDER BY pid;`,
    },
  ],
  checkSession,
  checks: [
    {
      says: 'No session waits for a lock',
      sql: () =>
        "SELECT application_name FROM pg_stat_activity WHERE wait_event_type = 'Lock' ORDER BY 1",
      judge: (answer) => {
        const waiting = (lastResult(answer)?.rows ?? []).map((r) => r[0]);
        return waiting.length === 0
          ? { held: true, seen: 'nobody waits' }
          : {
              held: false,
              seen: `${waiting.join(', ')} ${waiting.length === 1 ? 'waits' : 'wait'}`,
            };
      },
    },
    {
      says: 'worker-a’s transaction is still open and holds jobs 1 and 2',
      sql: ({ pids }) => holdsSql(pids['worker-a']!),
      judge: (answer) => {
        const state = firstValue(answer, 'state');
        if (state === undefined) return { held: false, seen: 'worker-a’s session was ended' };
        const holds = intArray(firstValue(answer, 'holds'));
        const both = holds.includes(1) && holds.includes(2);
        return {
          held: both,
          seen:
            holds.length === 0
              ? `worker-a holds no job (${state})`
              : `worker-a holds job${holds.length === 1 ? '' : 's'} ${holds.join(', ')}`,
        };
      },
    },
    {
      says: 'worker-b holds jobs of its own, in its open transaction',
      sql: ({ pids }) => othersSql(pids['worker-a']!, pids['worker-b']!),
      judge: (answer) => {
        const state = firstValue(answer, 'state');
        if (state === undefined) return { held: false, seen: 'worker-b’s session was ended' };
        if (firstValue(answer, 'has_xid') !== 't')
          return { held: false, seen: `worker-b has no open transaction that wrote (${state})` };
        const held = intArray(firstValue(answer, 'held'));
        if (held.length === 0)
          return { held: false, seen: 'no job is held by an open transaction but worker-a’s' };
        const jobs = `job${held.length === 1 ? '' : 's'} ${held.join(', ')}`;
        const others = textArray(firstValue(answer, 'other_writers'));
        if (others.length > 0)
          return {
            held: false,
            seen: `${jobs} ${held.length === 1 ? 'is' : 'are'} held by an open transaction, and ${others.join(', ')} has one too: end it, so that the check can tell whose`,
          };
        return { held: true, seen: `worker-b holds ${jobs}` };
      },
    },
  ],
};
