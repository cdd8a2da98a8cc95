// Free the dead rows without ending worker-07's session: the horizon is held by its
// transaction, not by its connection.
import { firstValue, vacuumSkipped, vacuumTuplesLine } from './checks';
import { checkSession, cleanerSteps, exerciseScenario, jobsAndLedger } from './scenario';
import type { SessionsExercise } from './types';

const id = 'free-dead-tuples';

/** Rows the ledger keeps: 100 made, 40 deleted. */
const LIVE_ROWS = 60;

export const freeDeadTuples: SessionsExercise = {
  id,
  kind: 'sessions',
  title: 'Free the dead rows without ending worker-07’s session',
  practises: 'horizon',
  goal:
    'Make VACUUM able to remove the 40 dead rows of ledger, while worker-07’s session stays ' +
    'connected and ledger keeps its 60 live rows.',
  situation:
    'worker-07 claimed a job and keeps its transaction open while it works. Since then, the ' +
    'cleaner deleted 40 rows of ledger, a table worker-07 never touched, and VACUUM had to keep ' +
    'every one of them.',
  lesson:
    'A connection is not a transaction. What held the rows back was worker-07’s open ' +
    'transaction and its XID, not its session: once the transaction ends, the session can stay ' +
    'connected and VACUUM removes the rows. Ending the session (pg_terminate_backend, a timeout) ' +
    'would have freed them too, and cost the worker its connection.',
  hints: [
    'Ask pg_stat_activity who holds the horizon back: backend_xid and backend_xmin.',
    'worker-07 is “idle in transaction” with an XID. What keeps the rows is its transaction, ' +
      'not its connection.',
    'In worker-07’s tab, end its transaction (COMMIT, as it would once its work is done). Then ' +
      'run VACUUM (VERBOSE) ledger again in the cleaner’s tab.',
  ],
  solution: {
    says:
      'End worker-07’s transaction from its own session: its work is done, so it commits. ' +
      'ROLLBACK would free the rows as well (and put its job back).',
    steps: [
      { session: 'worker-07', sql: 'COMMIT;' },
      { session: 'cleaner', sql: 'VACUUM (VERBOSE) ledger;' },
    ],
  },
  scenario: exerciseScenario(id, {
    title: 'Free the dead rows without ending worker-07’s session',
    summary: 'worker-07 holds its transaction open; 40 dead rows of ledger wait behind it.',
    lesson: 'End the transaction, not the session.',
    sessions: [
      { name: 'worker-07', role_in_story: 'a worker that holds its transaction while it works' },
      { name: 'cleaner', role_in_story: 'deletes old ledger rows and runs VACUUM' },
      { name: 'you', role_in_story: 'you, the administrator' },
    ],
    ...jobsAndLedger(3),
    steps: [
      {
        session: 'worker-07',
        sql: "BEGIN;\nUPDATE jobs SET status = 'running' WHERE id = 1 RETURNING id;",
        say: 'worker-07 claims job 1 and keeps its transaction open while it works: it has an XID.',
        claims: [{ says: 'worker-07 claims job 1', rows: { equals: [[1]] } }],
      },
      ...cleanerSteps('VACUUM must keep all 40: they died after worker-07’s XID, the horizon.'),
    ],
  }),
  tabs: [
    {
      session: 'you',
      sql: `-- You are the administrator. Who holds what?
SELECT pid, application_name, state, backend_xid, backend_xmin
  FROM pg_stat_activity
 ORDER BY pid;`,
    },
    {
      session: 'worker-07',
      sql: '-- worker-07’s own connection. Its transaction is still open.\n',
    },
    { session: 'cleaner', sql: 'VACUUM (VERBOSE) ledger;' },
  ],
  checkSession,
  checks: [
    {
      says: 'VACUUM (VERBOSE) ledger finds no dead row it must keep: 0 are dead but not yet removable',
      // SKIP_LOCKED: a check must never wait behind a reader's lock on the table.
      sql: () => 'VACUUM (VERBOSE, SKIP_LOCKED) ledger',
      judge: (answer) => {
        const notices = answer?.notices ?? [];
        if (vacuumSkipped(notices))
          return { held: false, seen: 'VACUUM skipped ledger: another session holds a lock on it' };
        const line = vacuumTuplesLine(notices);
        const kept = line?.match(/(\d+) are dead but not yet removable/)?.[1];
        if (kept === undefined) return { held: false, seen: 'VACUUM printed no tuples line' };
        return { held: kept === '0', seen: line! };
      },
    },
    {
      says: `ledger still has its ${LIVE_ROWS} live rows`,
      sql: () => 'SELECT count(*) AS rows FROM ledger',
      judge: (answer) => {
        const rows = firstValue(answer, 'rows');
        return { held: rows === String(LIVE_ROWS), seen: `ledger has ${rows ?? 'no'} rows` };
      },
    },
    {
      says: 'worker-07’s session is still connected',
      sql: ({ pids }) =>
        `SELECT application_name, state FROM pg_stat_activity WHERE pid = ${pids['worker-07']}`,
      judge: (answer, { pids }) => {
        const state = firstValue(answer, 'state');
        return state === undefined
          ? { held: false, seen: `no session has pid ${pids['worker-07']}: it was ended` }
          : { held: true, seen: `pid ${pids['worker-07']} is connected (${state})` };
      },
    },
  ],
};
