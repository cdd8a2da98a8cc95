/**
 * The one interface every part of the site uses to talk to PostgreSQL.
 *
 * Two implementations sit behind it: `pglite/` (PostgreSQL 18 compiled to WASM, in a
 * Web Worker) and `server/` (a real PostgreSQL 18 through `pg`, for tests in Node).
 * Everything crossing it is plain data, so it can cross a worker boundary unchanged.
 */

/** One column of a result, as the server described it. */
export interface Field {
  name: string;
  /** The type's OID in pg_type. */
  dataTypeID: number;
}

/**
 * A row as text per column, the way psql shows it, in the order of `fields` (an array,
 * since two columns may share a name); `null` is SQL NULL.
 */
export type Row = (string | null)[];

/** What one statement of a query string returned. */
export interface StatementResult {
  /** The command tag's verb, e.g. `SELECT`, `DELETE`, `VACUUM`. */
  command: string;
  fields: Field[];
  rows: Row[];
  /** Rows returned or changed, as the command tag reports it; `null` when it has none. */
  rowCount: number | null;
  /**
   * Rows PostgreSQL sent that the engine did not keep, and the cap that left them out
   * (`answerCaps`); absent when every row is in `rows`. `rowCount` still counts them all.
   */
  rowsOmitted?: { count: number; cap: 'rows' | 'bytes' };
}

/** A NOTICE/INFO/WARNING message, such as the lines of `VACUUM (VERBOSE)`. */
export interface Notice {
  severity: string;
  code: string;
  message: string;
  detail?: string;
  hint?: string;
  /**
   * What the in-browser engine left out of `message` (marked `…` there) and why, in words
   * for people: a part that PGlite printed but a server would not have printed so.
   */
  withheld?: string;
}

/** The fields of a PostgreSQL ErrorResponse that the site shows. */
export interface PgErrorFields {
  /** SQLSTATE, e.g. `42601`. */
  code: string;
  /** `ERROR`, `FATAL` or `PANIC`. */
  severity: string;
  message: string;
  detail?: string;
  hint?: string;
  /** 1-based character position in the query string, when the server gave one. */
  position?: number;
}

/** The answer to `Session.query`: every statement's result and every notice, in order. */
export interface QueryResult {
  /** One entry per statement that completed. */
  results: StatementResult[];
  notices: Notice[];
  /** Notices PostgreSQL sent past the `notices` or `bytes` cap, counted but not kept. */
  noticesOmitted?: number;
}

/**
 * What the in-browser engine keeps of one answer, so that a statement that returns ten
 * million rows or raises a notice in a loop cannot take the page down. These are limits of
 * the site, not of PostgreSQL: each is named on screen when it applies, and the counts of
 * what was left out are PostgreSQL's own. The worker applies them as the answer streams in,
 * so the page never receives the rest.
 */
export const answerCaps = {
  /** Rows kept per result; the command tag still counts every row. */
  rows: 1000,
  /** Bytes of rows and notices kept per answer (their size on the wire protocol). */
  bytes: 1_000_000,
  /** Notices kept per answer. */
  notices: 100,
  /** Characters kept of an error's or a notice's message, detail and hint each. */
  messageChars: 10_000,
  /** The longest statement the engine takes, in bytes of UTF-8. */
  statementBytes: 100_000,
} as const;

/**
 * A statement failed. Carries the server's error fields and the results and notices of
 * statements that completed before it.
 */
export class PgError extends Error implements PgErrorFields {
  readonly code: string;
  readonly severity: string;
  readonly detail?: string;
  readonly hint?: string;
  readonly position?: number;
  readonly partial: QueryResult;

  constructor(fields: PgErrorFields, partial: QueryResult = { results: [], notices: [] }) {
    super(fields.message);
    this.name = 'PgError';
    this.code = fields.code;
    this.severity = fields.severity;
    this.detail = fields.detail;
    this.hint = fields.hint;
    this.position = fields.position;
    this.partial = partial;
  }

  /** The plain-data form, for crossing a worker boundary. */
  toFields(): PgErrorFields {
    const { code, severity, message, detail, hint, position } = this;
    return { code, severity, message, detail, hint, position };
  }
}

/**
 * Why the engine cannot show something truthfully, as data: tools and tests match these,
 * and only the words that come with a refusal are for people. Each is a limit of running
 * many sessions on PGlite's one backend (src/engine/ARCHITECTURE.md, "Refusals").
 */
export const refusalKinds = [
  /**
   * A parked transaction would have to run a statement; it can only COMMIT or ROLLBACK,
   * and it could not be replayed in a new transaction with the same answers.
   */
  'parked-goes-on',
  /**
   * A parked transaction replayed in a new transaction so that it could go on answered a
   * statement differently the second time; it was rolled back.
   */
  'replay-differs',
  /**
   * A transaction replayed under a new XID now comes after transactions it came before on
   * a server: output that shows XIDs or their order would differ until one of them ends.
   */
  'xid-renumbered',
  /**
   * age() after the layer spent XIDs a server would not and could not read their numbers
   * (a replayed transaction's savepoints), so the count cannot be put right (spent-xids.ts).
   */
  'xid-count-unknown',
  /** Setting the transaction aside failed, so PostgreSQL rolled it back. */
  'transaction-lost',
  /** A temporary table, view or sequence, while other sessions share the backend. */
  'temporary-object',
  /** A cursor WITH HOLD or LISTEN, while other sessions share the backend. */
  'backend-wide-object',
  /**
   * A custom setting (`app.user`) this session never set, which another session defined in
   * the one backend: there it answers '', on a server it is unknown to this session.
   */
  'custom-setting',
  /**
   * currval() or lastval() once another session's statements have run on the backend,
   * which keeps one last value per sequence for all sessions.
   */
  'session-sequence',
  /**
   * A draw from a sequence with CACHE above 1 by a session whose values drawn ahead went
   * when another session got the one backend: on a server it goes on from them.
   */
  'sequence-cache',
  /**
   * pg_locks or pg_blocking_pids, which show PGlite's one backend and the layer's prepared
   * transactions, not the sessions.
   */
  'backend-locks',
  /**
   * Cumulative statistics that one backend shows otherwise: counts another session's open
   * transaction made, which a server keeps in that session's backend until it ends, or a
   * transaction's cached statistics, dropped when the backend switched transactions.
   */
  'statistics-shared',
  /**
   * What a replay left behind: statistics that counted the replayed statements twice, and
   * the dead row versions of the rolled-back original (VACUUM VERBOSE, n_dead_tup, ctid).
   */
  'replay-traces',
  /**
   * A snapshot taken now, while a stand-in transaction with an XID holds another session's
   * snapshot, which on a server has none: it would list that XID as running.
   */
  'stand-in-xid',
  /**
   * VACUUM while another session's transaction that held only locks is set aside: its
   * prepared transaction's XID would hold back what a server's transaction does not.
   */
  'locks-hold-horizon',
  /** pg_stat_get_activity() and the pg_stat_get_backend functions: PGlite's one backend. */
  'backend-status',
  /** A session-level advisory lock the layer cannot follow (shared, or a computed key). */
  'advisory-untracked',
  /**
   * pg_advisory_unlock of a key another session holds (or unlock_all while one does): the
   * backend holds it for every session, and would let it go.
   */
  'advisory-not-held',
  /**
   * A prepared statement made again in the one backend after another session had it: it
   * could not be made again, or now returns other columns, where a server's check would
   * fail it; or pg_prepared_statements, whose counts and prepare_time start afresh.
   */
  'prepared-remade',
  /**
   * setseed() while other sessions are open, or random() drawn from another session's
   * seed: the one backend keeps one seed for every session.
   */
  'shared-random',
  /**
   * A sleep (pg_sleep) longer than the session's statement_timeout: PGlite's timers run
   * only between statements, so none cancels it, where a server fails it with 57014.
   */
  'statement-timeout',
  /**
   * A sleep (pg_sleep) that would outlast the session's transaction_timeout: PGlite's timers
   * run only between statements, so none ends it, where a server ends it with FATAL 25P04.
   */
  'transaction-timeout',
  /**
   * Another session's transaction could not be set aside for this statement (PREPARE
   * TRANSACTION failed a deferred constraint's check, or it had failed inside a savepoint)
   * and was rolled back, where on a server it would still be open with its locks and writes.
   */
  'set-aside-failed',
  /** pg_try_advisory_lock on a key another session holds: the backend would say true. */
  'advisory-try',
  /** A statement would wait for an advisory lock part-way through, then have to go on. */
  'advisory-part-way',
  /** A statement may wait on a parked transaction's rows, and cannot be checked first. */
  'wait-unchecked',
  /** A session in a database other than the one PGlite's backend is connected to. */
  'other-database',
  /**
   * A serialization failure (40001) while another SERIALIZABLE transaction is parked:
   * PostgreSQL counts a prepared transaction as committed in its conflict checks, so it
   * fails this one where a server might fail the other, or later.
   */
  'serializable-parked',
  /**
   * A statement that waited for a row would, on a server, go on with its old snapshot and
   * re-read only the rows it locks (EvalPlanQual); run again afresh it might see more.
   */
  'recheck',
  /**
   * A statement that waited for a lock on a table it does not name (or a VACUUM or
   * ANALYZE) while the catalog changed: on a server it found its tables before the wait
   * (a child, a partition) and keeps what it found; run again it would see the change.
   */
  'catalog-changed',
  /**
   * A table lock request that a server would queue behind another session's waiting
   * request (it conflicts with the mode that one waits for); the layer keeps no queue.
   */
  'lock-queue',
  /**
   * LOCK TABLE … NOWAIT on a table whose conflicting lock the layer keeps, not PostgreSQL
   * (a reader's ACCESS SHARE, for a transaction closed in the backend): it would be granted.
   */
  'lock-nowait',
  /**
   * A statement that waited for a row raised notices: on a server those raised before
   * the wait reach the client before it, and which those were cannot be told here.
   */
  'notices-before-wait',
  /**
   * CREATE INDEX CONCURRENTLY and its kind, while transactions are set aside with PREPARE
   * TRANSACTION: it commits part of its work and then waits for older transactions.
   */
  'waits-for-older',
  /**
   * A string of several statements outside a transaction block that would wait, with a
   * SET or RESET between two of its other statements: whether a server applies it before
   * the wait depends on which statement waits, which cannot be told here.
   */
  'set-between-statements',
  /**
   * A string of several statements outside a transaction block that would wait, more than
   * one of which locks or changes something: on a server the ones before the statement
   * that waits have run and hold their locks while it waits; here the string runs whole
   * once the wait is over.
   */
  'string-part-way',
  /** The reader's own PREPARE TRANSACTION: a transaction no session holds, not followed. */
  'prepared-by-reader',
  /**
   * The first snapshot of a SERIALIZABLE READ ONLY DEFERRABLE transaction while another
   * SERIALIZABLE transaction that may write is set aside: a server waits for it to end.
   */
  'deferrable-snapshot',
  /** COMMIT PREPARED or ROLLBACK PREPARED of a transaction the engine set aside itself. */
  'layer-transaction',
  /** SET SESSION AUTHORIZATION: every session shares the one backend's login. */
  'session-authorization',
  /**
   * A change to the `sim` schema, its objects, the role `app`, the engine's own settings or
   * its guard: the engine's view of the sessions (pg_stat_activity, pg_backend_pid) is there.
   */
  'layer-schema',
  /**
   * An object named like one of pg_catalog's in a schema the search path puts ahead of
   * pg_catalog: here it would hide PostgreSQL's own, which a server's search path never does.
   */
  'shadows-catalog',
  /** A statement longer than `answerCaps.statementBytes`. */
  'statement-too-large',
  /**
   * DISCARD ALL or pg_advisory_unlock_all() while another session holds a session-level
   * advisory lock: the one backend would give that session's up too.
   */
  'releases-others-locks',
] as const;

/** One reason the engine cannot show something truthfully (see `refusalKinds`). */
export type RefusalKind = (typeof refusalKinds)[number];

/** A refusal as plain data, for crossing a worker boundary: its kind and its words. */
export interface Refusal {
  kind: RefusalKind;
  /** For people: names the limit, and what the reader's statement ran into. */
  reason: string;
}

/**
 * The engine cannot show this truthfully: with several sessions on PGlite's one backend
 * some orders of events have no honest rendering (a parked transaction going on, say).
 * Not a PostgreSQL error; `kind` says which limit, the message names it for people. The
 * isolation-spec runner prints it as `not expressible: <message>`.
 */
export class NotExpressibleError extends Error {
  readonly kind: RefusalKind;

  constructor(kind: RefusalKind, message: string) {
    super(message);
    this.name = 'NotExpressibleError';
    this.kind = kind;
  }
}

/** Why the engine went away: restarted (Reset), closed, crashed, or stopped recovering. */
export type EngineGoneKind = 'restarted' | 'closed' | 'crashed' | 'recoveries' | 'stale-session';

/**
 * The engine itself went away (a restart, a crash, a closed worker), so the statement's
 * outcome is unknown. Not a PostgreSQL error: it has no SQLSTATE.
 */
export class EngineGoneError extends Error {
  /** Why, as data; the message says it in words. */
  readonly kind: EngineGoneKind;

  constructor(message: string, kind: EngineGoneKind = 'crashed') {
    super(message);
    this.name = 'EngineGoneError';
    this.kind = kind;
  }
}

/** How to run one query. */
export interface QueryOptions {
  /**
   * Hears each notice as the client reads it: while the statement still runs where the
   * engine can tell (a server's notices arrive as they are sent), else as it ends. The
   * notices are in the result too.
   */
  onNotice?: (notice: Notice) => void;
}

/** One connection's worth of state: its own transaction, settings and temp tables. */
export interface Session {
  readonly id: number;
  /**
   * The backend's process id as `pg_backend_pid()` and `pg_stat_activity.pid` show it
   * (synthetic on PGlite, where every session shares one backend).
   */
  readonly pid: number;
  /**
   * Runs `sql`. Without `params` it goes as a simple-protocol query (several statements
   * allowed); with `params` as one extended-protocol statement with bound parameters.
   * Rejects with `PgError` when PostgreSQL reports an error.
   */
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult>;
  /** Ends the session; an open transaction is rolled back, as when a client disconnects. */
  close(): Promise<void>;
}

/** How a session connects. */
export interface SessionOptions {
  /** Shown as `application_name` in pg_stat_activity. */
  applicationName?: string;
  /**
   * `superuser` connects as `postgres` (the default); `ordinary` as the role `app`, which
   * cannot use the connection slots reserved for superusers.
   */
  role?: 'superuser' | 'ordinary';
  /** The database to connect to (default `postgres`). */
  database?: string;
}

/** A running PostgreSQL that hands out sessions. */
export interface Engine {
  /** `pglite` or `server`: shown to readers so they know where the output came from. */
  readonly kind: 'pglite' | 'server';
  /** Connects; rejects with PgError (FATAL 53300) when no connection slot is left. */
  openSession(options?: SessionOptions): Promise<Session>;
  /** Stops the engine and every session on it. */
  close(): Promise<void>;
}
