// The claim-by-claim audit of the chapters (issue 13): every claim a chapter makes about
// PostgreSQL, or about SQLAlchemy and PgBouncer, with how it is backed. `says` is quoted
// from the chapter (links reduced to their text), so a claim that is reworded must be
// audited again. tests/unit/content/chapter-claims.test.ts checks each entry against its
// chapter; tests/fidelity/chapter-claims.test.ts runs the entries marked `test`.

/**
 * How a claim is backed:
 * - `demo:<id>`: shown live by a demo the chapter places; the demo's claims are asserted
 *   on PostgreSQL 18 by tests/fidelity/scenarios.test.ts (or the demo's own fidelity test);
 * - `test`: checked on PGlite and PostgreSQL 18 by tests/fidelity/chapter-claims.test.ts;
 * - `test:<file>`: checked on PostgreSQL 18 by another test file of the repository;
 * - `source:<url>`: quoted with its source; the chapter links that URL next to the claim.
 */
export type Backing = `demo:${string}` | 'test' | `test:${string}` | `source:${string}`;

export interface ChapterClaim {
  /** The chapter's file name without `.mdx`. */
  chapter: string;
  /** The claim, quoted from the chapter. */
  says: string;
  backed: Backing;
}

const pgDocs = 'https://www.postgresql.org/docs/18';
const sqlalchemy = 'https://docs.sqlalchemy.org/en/20';
const pgbouncer = 'https://www.pgbouncer.org/features.html';

export const chapterClaims: ChapterClaim[] = [
  // 1. A row that has been open for forty minutes
  {
    chapter: 'forty-minutes',
    says: '`application_name` is `worker-07`, `state` is `idle in transaction`, and its `xact_start` is forty minutes ago',
    backed: 'test',
  },
  {
    chapter: 'forty-minutes',
    says: 'new connections are being turned away, and `VACUUM` runs on busy tables but frees nothing',
    backed: 'demo:counter',
  },
  {
    chapter: 'forty-minutes',
    says: 'Every connection takes a seat for as long as it stays connected, whether or not it is doing anything.',
    backed: 'demo:counter',
  },
  {
    chapter: 'forty-minutes',
    says: "A few seats at the end are kept for the bank's own staff (superusers).",
    backed: 'test',
  },
  {
    chapter: 'forty-minutes',
    says: 'Everything they change is written on that page; nobody else sees it until the page is closed with COMMIT.',
    backed: 'test',
  },
  {
    chapter: 'forty-minutes',
    says: 'the clerk cannot throw out anything that an open page might still need to look at',
    backed: 'demo:counter',
  },
  {
    chapter: 'forty-minutes',
    says: 'One customer who has written on their page and then leaves it open for forty minutes stops the clerk from throwing out anything crossed out since.',
    backed: 'demo:counter',
  },

  // 2. Four boxes
  {
    chapter: 'four-boxes',
    says: "The upload's row says `converting`, and it will say so forever",
    backed: 'demo:lost-task',
  },
  {
    chapter: 'four-boxes',
    says: 'A sweeper that looks for stale heartbeats puts the job back, another worker claims it, and `attempts` counts the second try.',
    backed: 'demo:lost-task',
  },

  // 3. A job is a row
  {
    chapter: 'a-job-is-a-row',
    says: 'it holds an entry only for rows whose `status` is `queued`',
    backed: 'test',
  },
  {
    chapter: 'a-job-is-a-row',
    says: '`status`, `locked_by` and `heartbeat` are what let a sweeper find a job whose worker died: it is `running`, and its heartbeat stopped moving.',
    backed: 'test:tests/fidelity/scenarios.test.ts',
  },
  {
    chapter: 'a-job-is-a-row',
    says: 'A job that finishes gets no new entry, and its old one goes when VACUUM next cleans the index.',
    backed: 'test',
  },
  {
    chapter: 'a-job-is-a-row',
    says: 'A VACUUM that finds only a few dead rows may leave the index for a later run; VACUUM (VERBOSE) then says `index scan bypassed`.',
    backed: 'test',
  },
  {
    chapter: 'a-job-is-a-row',
    says: 'So the index stays about the size of the queue, not the size of the history.',
    backed: 'test',
  },
  {
    chapter: 'a-job-is-a-row',
    says: 'PostgreSQL 18 answers with this plan',
    backed: 'test:tests/fidelity/chapters.test.ts',
  },
  {
    chapter: 'a-job-is-a-row',
    says: 'It walks the small index in `run_after` order and stops at the first row it can lock. The hundred thousand finished rows are never read.',
    backed: 'test',
  },
  {
    chapter: 'a-job-is-a-row',
    says: "The `Filter` line repeats the index's own condition: for rows a statement locks, PostgreSQL keeps it",
    backed: 'test',
  },
  {
    chapter: 'a-job-is-a-row',
    says: 'so that it can check a row again if another transaction changed it first',
    backed:
      'source:https://github.com/postgres/postgres/blob/REL_18_STABLE/src/backend/optimizer/path/indxpath.c',
  },

  // 4. Both rows or neither
  {
    chapter: 'both-rows-or-neither',
    says: 'when it commits, both rows are there; when it fails, neither is.',
    backed: 'demo:enqueue',
  },
  {
    chapter: 'both-rows-or-neither',
    says: 'The upload row exists and says `queued`; no message will ever arrive for it.',
    backed: 'demo:enqueue',
  },
  {
    chapter: 'both-rows-or-neither',
    says: 'The message is in the broker, and no ROLLBACK reaches there. A worker takes it, looks for the upload, and finds no such row.',
    backed: 'demo:enqueue',
  },
  {
    chapter: 'both-rows-or-neither',
    says: 'a connection pooler such as PgBouncer in transaction mode',
    backed: `source:${pgbouncer}`,
  },

  // 5. Thirty workers, one table
  {
    chapter: 'thirty-workers',
    says: "`WHERE status = 'queued' …` finds the candidates, through the partial index of chapter 3.",
    backed: 'test',
  },
  {
    chapter: 'thirty-workers',
    says: '`ORDER BY run_after LIMIT 2` takes the two that have waited longest.',
    backed: 'demo:skip-locked',
  },
  {
    chapter: 'thirty-workers',
    says: 'The outer `UPDATE` marks what it got as running, and `RETURNING` hands the ids back.',
    backed: 'demo:skip-locked',
  },
  {
    chapter: 'thirty-workers',
    says: '`FOR UPDATE` locks each row it returns, so that no other transaction can change or lock it until this one ends.',
    backed: 'demo:skip-locked',
  },
  {
    chapter: 'thirty-workers',
    says: 'instead of waiting for that transaction to end, the scan steps over the row and takes the next one.',
    backed: 'demo:skip-locked',
  },
  {
    chapter: 'thirty-workers',
    says: 'shows it `active` with `wait_event_type` `Lock` and `wait_event` `transactionid`',
    backed: 'demo:skip-locked',
  },
  {
    chapter: 'thirty-workers',
    says: "a row lock is kept in the row itself, not in memory, so a waiter waits on the holder's transaction ID",
    backed: `source:${pgDocs}/view-pg-locks.html`,
  },
  {
    chapter: 'thirty-workers',
    says: 'With `SKIP LOCKED`, it takes the next two rows at once.',
    backed: 'demo:skip-locked',
  },
  {
    chapter: 'thirty-workers',
    says: 'In `READ COMMITTED`, PostgreSQL re-reads the rows it was waiting for, in their newest committed version, and checks them against the `WHERE` clause again',
    backed: `source:${pgDocs}/transaction-iso.html#XACT-READ-COMMITTED`,
  },
  {
    chapter: 'thirty-workers',
    says: 'they no longer qualify and are skipped; the second worker goes on with the rows still queued. Either way no job is taken twice.',
    backed: 'demo:skip-locked',
  },

  // 6. A connection is not a transaction
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'A connection is a session: one backend process on the server, from the moment the client connects until it disconnects',
    backed: `source:${pgDocs}/connect-estab.html`,
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'a statement sent without `BEGIN` is a transaction of its own',
    backed: 'test',
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'An `UPDATE` writes a new version and marks the old one as replaced; a `DELETE` marks the row as deleted. The old versions stay on disk, dead, until `VACUUM` removes them.',
    backed: 'test',
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'It may only remove a version once no transaction could still need to see it.',
    backed: 'demo:horizon',
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'What holds the horizon back is the oldest of two things among the open transactions',
    backed: 'demo:horizon',
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: '`VACUUM (VERBOSE)` prints it on its `removable cutoff:` line. Versions that died after the horizon are reported as "dead but not yet removable".',
    backed: 'demo:horizon',
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'a transaction ID (XID), which a transaction takes when it first writes or locks a row, shown in `pg_stat_activity` as `backend_xid`',
    backed: 'test',
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'a snapshot, the view of the database a statement or transaction reads from, shown as `backend_xmin`',
    backed: 'test',
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'A session that ran `BEGIN` and nothing else holds neither an XID nor a snapshot, and VACUUM goes past it.',
    backed: 'demo:horizon',
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'A `READ COMMITTED` transaction that only read holds a snapshot while each statement runs and gives it up after',
    backed: 'demo:horizon',
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'a statement a driver sends with bound parameters can keep its snapshot until the next one',
    backed: 'demo:horizon',
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'The ones that hold the horizon are those with an XID (they wrote or locked something), those whose snapshot lives for the whole transaction (`REPEATABLE READ`, `SERIALIZABLE`), and those with a statement still running or a cursor still open.',
    backed: 'demo:horizon',
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'The horizon is per database: a session connected to another database of the same server holds back nothing here',
    backed: 'test:tests/fidelity/other-database.test.ts',
  },
  {
    chapter: 'a-connection-is-not-a-transaction',
    says: 'the moment the transaction ends, with COMMIT, ROLLBACK, or its session going away, the horizon moves on and VACUUM removes everything it had to keep',
    backed: 'test',
  },

  // 7. Connections multiply
  {
    chapter: 'connections-multiply',
    says: "SQLAlchemy's documentation for `create_engine()` gives their defaults as `pool_size=5` and `max_overflow=10`",
    backed: `source:${sqlalchemy}/core/engines.html#sqlalchemy.create_engine`,
  },
  {
    chapter: 'connections-multiply',
    says: "PostgreSQL's `max_connections` is 100 by default, and `superuser_reserved_connections` keeps 3 of them for superusers. The application's ordinary role can have 97.",
    backed: 'test',
  },
  {
    chapter: 'connections-multiply',
    says: 'the 98th ordinary connection is refused',
    backed: 'demo:slots',
  },
  {
    chapter: 'connections-multiply',
    says: "The application's role gets `remaining connection slots are reserved for roles with the SUPERUSER attribute`. A superuser who walks in to investigate still gets a seat, three times, and then `sorry, too many clients already`. Both are SQLSTATE 53300.",
    backed: 'demo:slots',
  },
  {
    chapter: 'connections-multiply',
    says: 'with PgBouncer in transaction mode, many client connections share a few server connections, each lent out for one transaction at a time',
    backed: `source:${pgbouncer}`,
  },

  // 8. One query for both problems
  {
    chapter: 'one-query',
    says: '`pg_stat_activity` has the two columns that answer it, `backend_xmin` and `backend_xid`',
    backed: 'demo:activity',
  },
  {
    chapter: 'one-query',
    says: 'Read each row as: this session, in this state, has kept the horizon this many transactions behind, for this long.',
    backed: 'demo:activity',
  },
  {
    chapter: 'one-query',
    says: 'Filtering on `backend_xmin IS NOT NULL` finds sessions that hold a snapshot.',
    backed: 'demo:activity',
  },
  {
    chapter: 'one-query',
    says: 'it holds no snapshot, so its `backend_xmin` is empty. It does hold an XID, because it claimed a row, and that XID holds the horizon all the same.',
    backed: 'demo:activity',
  },
  {
    chapter: 'one-query',
    says: "as a role that can see other sessions' queries (a superuser, or a member of `pg_read_all_stats`",
    backed: `source:${pgDocs}/monitoring-stats.html#MONITORING-PG-STAT-ACTIVITY-VIEW`,
  },

  // 9. The fix is a shape
  {
    chapter: 'the-fix-is-a-shape',
    says: 'VACUUM says what it could clean up behind each shape',
    backed: 'demo:fix',
  },
  {
    chapter: 'the-fix-is-a-shape',
    says: 'When the block commits, SQLAlchemy expires every object the session loaded (its `expire_on_commit` setting is on by default)',
    backed: `source:${sqlalchemy}/orm/session_api.html#sqlalchemy.orm.Session.params.expire_on_commit`,
  },
  {
    chapter: 'the-fix-is-a-shape',
    says: "the object's session has closed, so SQLAlchemy raises `DetachedInstanceError`",
    backed: `source:${sqlalchemy}/orm/exceptions.html#sqlalchemy.orm.exc.DetachedInstanceError`,
  },
  {
    chapter: 'the-fix-is-a-shape',
    says: 'with `expire_on_commit=False`, the same read after the block returns the value it had',
    backed: `source:${sqlalchemy}/orm/session_api.html#sqlalchemy.orm.Session.params.expire_on_commit`,
  },

  // 10. Two settings
  {
    chapter: 'two-settings',
    says: 'The worker finds out when it next uses the connection.',
    backed: 'demo:pre-ping',
  },
  {
    chapter: 'two-settings',
    says: 'If that is after forty minutes of work, the record fails and the work is done again.',
    backed: 'demo:pre-ping',
  },
  {
    chapter: 'two-settings',
    says: 'With `pool_pre_ping=True`, SQLAlchemy tests each connection with a trivial statement when it is checked out, and replaces a dead one before the code sees it.',
    backed: `source:${sqlalchemy}/core/pooling.html#disconnect-handling-pessimistic`,
  },
  {
    chapter: 'two-settings',
    says: '`pool_recycle=1800` replaces connections older than half an hour at checkout',
    backed: `source:${sqlalchemy}/core/pooling.html#setting-pool-recycle`,
  },
  {
    chapter: 'two-settings',
    says: 'The setting is off (0) by default.',
    backed: 'demo:idle-timeout',
  },
  {
    chapter: 'two-settings',
    says: "When it fires, the session's transaction is rolled back and its connection is closed; the client reads the error at its next statement. The horizon moves on at once, and VACUUM can remove what it had to keep",
    backed: 'demo:idle-timeout',
  },
  {
    chapter: 'two-settings',
    says: 'the worker loses its connection and its job goes back to the queue for someone else',
    backed: 'demo:idle-timeout',
  },

  // 11. Summary: it places no demo; its table names where each claim is checked.
  {
    chapter: 'summary',
    says: 'a transaction left open after it wrote, locked or took a lasting snapshot costs everyone, because VACUUM cannot clean up behind it',
    backed: 'test:tests/fidelity/scenarios.test.ts',
  },
  {
    chapter: 'summary',
    says: 'The partial index is used to find the next job',
    backed: 'test:tests/fidelity/chapters.test.ts',
  },
  {
    chapter: 'summary',
    says: 'The 98th ordinary connection gets 53300 with the reserved-slots text; a superuser three seats later',
    backed: 'test:tests/fidelity/slots-demo.test.ts',
  },
  {
    chapter: 'summary',
    says: 'Without SKIP LOCKED the second worker waits on `Lock`/`transactionid`; with it, it takes the next rows',
    backed: 'test:tests/fidelity/scenarios.test.ts',
  },
  {
    chapter: 'summary',
    says: 'An XID or a snapshot holds the horizon; `BEGIN` alone does not',
    backed: 'test:tests/fidelity/scenarios.test.ts',
  },
  {
    chapter: 'summary',
    says: '`backend_xmin IS NOT NULL` misses the worker; `COALESCE(backend_xmin, backend_xid)` finds it',
    backed: 'test:tests/fidelity/scenarios.test.ts',
  },
  {
    chapter: 'summary',
    says: 'Holding the transaction keeps 100 dead rows; claim-close lets VACUUM remove them',
    backed: 'test:tests/fidelity/scenarios.test.ts',
  },
  {
    chapter: 'summary',
    says: 'Without pre-ping the record fails with 57P01; with it the backend pid changes',
    backed: 'test:tests/fidelity/scenarios.test.ts',
  },
  {
    chapter: 'summary',
    says: 'The idle timeout ends the session with 25P03, and VACUUM catches up',
    backed: 'test:tests/fidelity/scenarios.test.ts',
  },
  {
    chapter: 'summary',
    says: 'One transaction leaves both rows or neither; a broker leaves one without the other',
    backed: 'test:tests/fidelity/scenarios.test.ts',
  },
];

/** A chapter's prose as the reader reads it: links reduced to their text, no bold, one space. */
export function readableText(body: string): string {
  return body
    .replace(/\[([^\]]*)\]\([^)\s]+\)/g, '$1')
    .replace(/\*\*/g, '')
    .replace(/\s+/g, ' ');
}

/** The entry for a claim, by chapter and what it says; throws if there is none. */
export function claimEntry(chapter: string, says: string): ChapterClaim {
  const entry = chapterClaims.find((c) => c.chapter === chapter && c.says === says);
  if (!entry) throw new Error(`no audited claim in ${chapter}: ${says}`);
  return entry;
}
