// What the layer answers: PostgreSQL's results or error, or a refusal with its kind and words.
import type { PgErrorFields, QueryResult, Refusal, RefusalKind } from '../../types';
import type { BackendReply } from '../backend';
import { guardRefusal } from './guard-codes';

/** The answer to one query as plain data: results, or an error with what came before it. */
export type QueryReply =
  | { ok: true; result: QueryResult }
  | { ok: false; error: PgErrorFields; partial: QueryResult }
  /** What one backend cannot show truthfully: the limit's kind, and words naming it. */
  | { ok: false; notExpressible: Refusal };

/** The answer to opening a session: its ids, or the FATAL a server sends instead. */
export type OpenReply =
  | { ok: true; id: number; pid: number }
  | { ok: false; error: PgErrorFields }
  | { ok: false; notExpressible: Refusal };

/** A statement that may wait: its answer now, or a promise of it once the wait ends. */
export type Outcome = QueryReply | { wait: Promise<QueryReply> };

/**
 * The backend's answer as the layer's: results, or the error and what came before it. An
 * error the layer's guard raised in PostgreSQL (sim-schema.ts) is a refusal, not the
 * server's answer.
 */
export function toReply(reply: BackendReply): QueryReply {
  const partial: QueryResult = { results: reply.results, notices: reply.notices };
  if (reply.noticesOmitted) partial.noticesOmitted = reply.noticesOmitted;
  if (!reply.error) return { ok: true, result: partial };
  const guarded = guardRefusal(reply.error, reply.status === 'E');
  if (guarded) return notExpressible(guarded.kind, guarded.what, guarded.stopped);
  return { ok: false, error: reply.error, partial };
}

/** What a client reads when its statement is cancelled (ProcessInterrupts, 57014). */
export const cancelled: QueryReply = {
  ok: false,
  error: { code: '57014', severity: 'ERROR', message: 'canceling statement due to user request' },
  partial: { results: [], notices: [] },
};

/** What each refusal tells the reader, with the details it names. */
const refusalWords = {
  'parked-goes-on': (...why: string[]) =>
    'this session’s transaction is parked: the in-browser engine runs one transaction ' +
    'at a time, so it set this one aside with PREPARE TRANSACTION when another session ' +
    'needed PostgreSQL, and a parked transaction can only COMMIT or ROLLBACK ' +
    '(a real server would let it go on)' +
    (why[0] ? `; it cannot be replayed in a new transaction either, since ${why[0]}` : ''),
  'replay-differs': (n: string, statement: string) =>
    'this session’s transaction was parked, and to let it go on the in-browser engine ' +
    'rolled it back and ran its statements again in a new transaction; PostgreSQL ' +
    `answered statement ${n} (${statement}) differently the second time, so the replay ` +
    'could not stand for the original, and the transaction is rolled back: end it with ' +
    'ROLLBACK and start again',
  'transaction-lost': (why: string) =>
    `this session’s transaction could not be set aside: ${why}; ` +
    'its changes are gone, and the session can start a new transaction',
  'xid-renumbered': (whom: string, was: string, now: string, why: string) =>
    `${whom}’s transaction was parked, and went on by being replayed in a new ` +
    `transaction (its XID was ${was}, now ${now}); ` +
    (why === 'rows'
      ? `a reader had seen ${was}, and the rows it wrote or locked carry the new one, so a ` +
        'statement that shows the XIDs in rows (xmin, xmax) would show what a server never ' +
        'would, from now on (Reset starts afresh)'
      : (why === 'shown'
          ? `a reader had seen ${was}, so a statement that shows XIDs or their ages`
          : 'that puts it after transactions that began after it, which on a server it ' +
            'comes before, so a statement that shows XIDs, their ages or their order') +
        ' (pg_stat_activity, pg_locks, xmin and xmax, txid_current(), VACUUM) would show them ' +
        `otherwise than a server would, until ${why === 'order' ? 'those transactions end' : 'it ends'}`),
  'xid-count-unknown': () =>
    'a transaction went on by being replayed in a new one, and the savepoints it had ' +
    'took XIDs of their own that the in-browser engine could not read, so an age() here ' +
    'could count XIDs a server never took',
  'temporary-object': () =>
    'temporary tables belong to the backend, and every session here shares PGlite’s one ' +
    'backend, so other sessions would see this one’s temporary tables',
  'backend-wide-object': () =>
    'cursors WITH HOLD and LISTEN belong to the backend, and every session here shares ' +
    'PGlite’s one backend, so other sessions would share this one’s',
  'set-aside-failed': (whom: string, why: string) =>
    `${whom}’s transaction could not be set aside for this statement (${why}), and was ` +
    'rolled back; on a server it would still be open, holding its locks and writes, so ' +
    'this statement would not meet what it meets there',
  'statement-timeout': (limit: string) =>
    `this statement sleeps at least as long as statement_timeout (${limit}) allows: a ` +
    'server cancels it when the time is up (57014), but PGlite’s timers run only between ' +
    'statements, so nothing would interrupt it: it would sleep on and answer',
  'transaction-timeout': (limit: string) =>
    `this statement would sleep past the session's transaction_timeout (${limit}): a ` +
    'server ends the session when the time is up (FATAL 25P04), but PGlite’s timers run ' +
    'only between statements, so nothing would interrupt it: it would sleep on and answer',
  'shared-random': () =>
    'setseed() seeds random() for the backend, and every session here shares PGlite’s one ' +
    'backend, so one session’s seed would decide the numbers another draws, where on a ' +
    'server each session has its own',
  'custom-setting': (name: string) =>
    `another session set ${name} in PGlite’s one backend, which every session here shares, ` +
    'so there it now answers an empty string; this session never set it, and on a server ' +
    'it would not know it (NULL, or “unrecognized configuration parameter”)',
  'session-sequence': () =>
    'currval() and lastval() answer what this session’s own last nextval() gave; here every ' +
    'session shares PGlite’s one backend, which keeps the last value any session got (none ' +
    'after the engine rebuilt its sessions), so it would not be this session’s',
  'sequence-cache': (names: string) =>
    `${names} caches values: a server’s backend draws several at a time and hands them to ` +
    'this session alone, so its next value would come from those; here every session ' +
    'shares PGlite’s one backend, which let them go when another session got it, so it ' +
    'would draw a value the server would not give this session yet',
  'backend-locks': (what: string) =>
    `${what} shows PGlite’s one backend as it is: every session here shares it, and the ` +
    'transactions set aside for other sessions are prepared ones there, with no pid (and ' +
    'waits are the in-browser engine’s, not the backend’s), so it would not show the ' +
    'sessions and their locks as a server would; pg_stat_activity shows the sessions',
  'replay-traces': (tables: string) =>
    tables === ''
      ? 'while transactions were parked, the in-browser engine read the tables they lock ' +
        'with queries of its own (to tell whether a statement would wait), and may have ' +
        'replayed a transaction, running its statements twice; PostgreSQL counted all of ' +
        'that, so its counts of scans, rows read and calls would show work a server never ' +
        'did (Reset starts afresh)'
      : 'a parked transaction went on by being replayed: the in-browser engine rolled it ' +
        'back and ran its statements again, where a server ran them once, so PostgreSQL ' +
        `counted its work twice, and the rows the rolled-back one wrote in ${tables} are ` +
        'dead row versions there, which a server never had, and its new rows may lie after ' +
        'rows others wrote since: what counts rows or dead ones, shows where rows lie or ' +
        'lists them in that order (no ORDER BY), or costs a plan by the pages they take ' +
        'would show it (Reset starts afresh)',
  'locks-hold-horizon': (who: string) =>
    `${who}'s transaction holds locks and nothing else: on a server it has no XID and no ` +
    'snapshot, so VACUUM would remove the rows deleted since; here, to keep its locks while ' +
    'the other sessions share the one backend, it is set aside as a prepared transaction, ' +
    'which has an XID, and VACUUM would keep those rows as dead but not yet removable',
  'stand-in-xid': () =>
    'another session’s transaction has a snapshot and no XID; on a server that is all it ' +
    'holds, but here, while it is set aside, a stand-in transaction holds it, with an XID ' +
    'of its own, so a snapshot taken now would list that XID among the running ones, ' +
    'where a server’s lists none for it',
  'backend-status': (what: string) =>
    `${what} shows the server's backends by their slots, and here every session shares ` +
    'PGlite’s one backend, so it would show that one alone; pg_stat_activity shows the ' +
    'sessions (its pid is each session’s own, as pg_backend_pid() answers)',
  'statistics-shared': (why: string) =>
    why === 'cached'
      ? 'this transaction read the statistics before, and keeps what it read until it ' +
        'ends (stats_fetch_consistency); here another session’s statement ran since, in ' +
        'PGlite’s one backend, which every session shares, and that dropped what this ' +
        'transaction kept, so it would read them afresh'
      : why === 'database'
        ? 'the database’s counts (transactions committed and rolled back, rows, blocks, ' +
          'deadlocks) count the in-browser engine’s own work too: it sets sessions’ ' +
          'transactions aside and takes them up again with transactions of its own, and ' +
          'finds deadlocks itself, so they would count what a server never did'
        : why === 'xact'
          ? 'the pg_stat_xact views and functions show what the backend counted and has not ' +
            'yet sent out; here every session shares PGlite’s one backend, so they would count ' +
            'other sessions’ work too, where a server counts this session’s own'
          : (why === 'own-pending'
              ? 'this transaction’s own statements counted calls, scans or reads that a server ' +
                'keeps in this session’s backend until the transaction ends'
              : 'another session’s open transaction counted calls, scans or reads that a server ' +
                'keeps in that session’s backend until its transaction ends') +
            '; here every session shares PGlite’s one backend, which may have sent them out ' +
            'already, so these statistics could count what a server’s would not yet',
  'advisory-untracked': () =>
    'session-level advisory locks belong to the backend, which every session here shares; ' +
    'the in-browser engine keeps them apart only for exclusive locks with literal ' +
    'number keys (transaction-level ones, pg_advisory_xact_lock, always work)',
  'advisory-not-held': (holder: string, key: string) =>
    (key === ''
      ? `${holder} holds session-level advisory locks, which a server’s ` +
        'pg_advisory_unlock_all() in this session would leave alone'
      : `${holder} holds advisory lock ${key}; on a server this session holds none of it, so ` +
        'pg_advisory_unlock answers false with a warning') +
    '; here every session shares PGlite’s one backend, which holds them for all, and would ' +
    'let them go',
  'prepared-remade': (why: string) =>
    `${why}; a server keeps this session’s prepared statements in its own backend and checks ` +
    'each again as it runs, while here they are made again in PGlite’s one backend whenever ' +
    'this session gets it back from another, so the answer would not be the server’s',
  'advisory-try': (holder: string, key: string) =>
    `${holder} holds advisory lock ${key}, and PGlite’s one backend, which holds ` +
    'it, would answer true where a server answers false',
  'advisory-part-way': (holder: string, key: string) =>
    `this statement would wait, part-way through, for advisory lock ${key} that ` +
    `${holder} holds; to go on with it afterwards the in-browser engine would have to ` +
    'set the half-run statement aside and continue it, and like a parked transaction ' +
    'it cannot go on',
  'wait-unchecked': (holder: string, several = '') =>
    several === 'several'
      ? `this statement would wait for a row that one of ${holder} holds in a parked ` +
        'transaction, and which one it meets first cannot be told: on a server it goes on ' +
        'once that one ends, so the in-browser engine cannot show when it would'
      : `this statement may wait on rows that ${holder} holds in its parked transaction, and ` +
        'the in-browser engine cannot check this kind of statement in advance (PGlite would ' +
        'hang on the wait)',
  'serializable-parked': (whom: string) =>
    `PostgreSQL failed this SERIALIZABLE transaction (40001) while ${whom}, also ` +
    'SERIALIZABLE, was set aside with PREPARE TRANSACTION; PostgreSQL counts a prepared ' +
    'transaction as already committed when it checks for conflicts, so a server with both ' +
    'transactions open might have failed the other one, or this one later',
  recheck: (why: string) =>
    'this statement waited for a row another transaction changed; a server goes on with ' +
    'the snapshot the statement took before the wait and re-reads only the rows it locks ' +
    'or changes, while the in-browser engine runs it again from the start, which shows the ' +
    `same only when the change cannot reach what the statement reads; here ${why}`,
  'catalog-changed': () =>
    'this statement waited for a lock on something it does not name, and the catalog ' +
    'changed before the lock was free (a table altered, attached, detached or dropped, a ' +
    'schema, type or function dropped); on a server the statement had looked up what it ' +
    'needs before the wait (a table’s children or partitions, the objects it depends on) ' +
    'and goes on with what it found, while the in-browser engine runs it again from the ' +
    'start, which would see the change',
  'lock-nowait': (holder: string) =>
    `${holder} holds a lock on this table that conflicts with the one asked for, so on a ` +
    'server NOWAIT would fail at once; here that lock is kept by the in-browser engine for a ' +
    'transaction it closed in PGlite’s one backend, which would grant the request',
  'lock-queue': (whom: string, table: string, mode: string) =>
    `${whom} is waiting for ${mode} on ${table}, and this request conflicts with it: a ` +
    'server puts it in the queue behind that request (and its deadlock check may reorder ' +
    'the queue), while the in-browser engine keeps no queue of waiting requests and would ' +
    'grant it at once',
  'notices-before-wait': () =>
    'this statement waits for a lock, and it raises notices (a trigger, a function it ' +
    'calls, a dropped object); on a server it runs part-way before the wait, so the notices raised up to ' +
    'there reach the client before the wait and the rest after, while the in-browser ' +
    'engine runs it only once the wait is over and cannot tell which notices came first',
  'set-between-statements': () =>
    'this string of statements would wait, and it changes a setting between two of its ' +
    'other statements; a server runs it statement by statement, so the setting applies to ' +
    'the wait only if it comes before the statement that waits, and the in-browser engine ' +
    'cannot tell which statement that is',
  'string-part-way': () =>
    'this string of statements outside a transaction block would wait, and more than one ' +
    'of its statements locks or changes rows (or takes a lock, or draws from a sequence); ' +
    'a server runs it statement by statement in one implicit transaction, so those before ' +
    'the statement that waits have run and hold their locks while it waits, where the ' +
    'in-browser engine runs the whole string only once the wait is over (in a transaction ' +
    'block, BEGIN first, it runs them in turn as a server does)',
  'waits-for-older': (whom: string) =>
    'CREATE INDEX CONCURRENTLY (and REINDEX, DROP INDEX or DETACH PARTITION CONCURRENTLY) ' +
    'commits part of its work and then waits for every older transaction that holds a ' +
    'lock on the table or an old snapshot; other sessions’ transactions are open ' +
    `(${whom}), set aside with PREPARE TRANSACTION or closed in PGlite’s one backend, ` +
    'which PGlite might wait on for good, or not wait on where a server would (a ' +
    'prepared transaction holds no snapshot, a closed one no lock), and the in-browser ' +
    'engine cannot show the statement stopped part-way',
  'prepared-by-reader': () =>
    'the in-browser engine itself uses PREPARE TRANSACTION to set sessions’ transactions ' +
    'aside, and follows the locks of those only; a transaction you prepare belongs to no ' +
    'session, so a statement that waits for its locks could not be seen in advance and ' +
    'would hang PGlite',
  'deferrable-snapshot': (whom: string) =>
    'a SERIALIZABLE READ ONLY DEFERRABLE transaction takes its first snapshot only once ' +
    `no SERIALIZABLE transaction that may write is running (${whom} has one open); a ` +
    'server waits for those to end, then keeps that snapshot if it is safe or takes ' +
    'another, while here they are set aside with PREPARE TRANSACTION, which PGlite would ' +
    'wait on for good, and which snapshot a server would use cannot be told',
  'other-database': (database: string) =>
    'PGlite’s one backend is connected to the database postgres for good, so a ' +
    `session in another database (${database}) cannot be shown`,
  'layer-transaction': (gid: string) =>
    `'${gid}' is a transaction the in-browser engine prepared itself, to set a session’s ` +
    'open transaction aside with PREPARE TRANSACTION; that session ends it with its own ' +
    'COMMIT or ROLLBACK, and ending it from here would leave the session holding a ' +
    'transaction that is gone',
  'session-authorization': () =>
    'every session here shares PGlite’s one backend, which logs in once, as postgres; ' +
    'SET SESSION AUTHORIZATION would change who every session is, and stop the engine’s ' +
    'own bookkeeping, which runs as that login (SET ROLE works, for this session alone)',
  'layer-schema': (what: string, stopped: string) =>
    `this would change ${what}, which the in-browser engine needs to show many sessions on ` +
    'PGlite’s one backend: the sim schema holds the pg_stat_activity, pg_backend_pid() and ' +
    'pg_terminate_backend() you see, the role app is how ordinary sessions log in, and the ' +
    'engine’s own settings and guard keep them whole; every session’s view would break' +
    stopped,
  'shadows-catalog': (name: string, stopped: string) =>
    `${name} is also the name of one of PostgreSQL’s own objects in pg_catalog; here the ` +
    'search path puts public (and sim) ahead of pg_catalog, so that pg_stat_activity shows ' +
    'the sessions you started, and an object of that name would hide PostgreSQL’s own from ' +
    'every session, where on a server pg_catalog always comes first' +
    stopped,
  'statement-too-large': (bytes: string, limit: string) =>
    `this statement is ${bytes} bytes long, and the in-browser engine takes statements of ` +
    `up to ${limit} bytes: it keeps every statement it runs, to rebuild the sessions if ` +
    'PostgreSQL stops answering, and one paste must not fill the page’s memory',
  'releases-others-locks': (holder: string) =>
    'DISCARD ALL and pg_advisory_unlock_all() give up every session-level advisory lock ' +
    `the backend holds, and here the one backend also holds ${holder}’s, which a server ` +
    'would leave with that session',
} satisfies Record<RefusalKind, (...details: string[]) => string>;

/** The answer for what the engine cannot show truthfully: its kind, in words for people. */
export function notExpressible<K extends RefusalKind>(
  kind: K,
  ...details: Parameters<(typeof refusalWords)[K]>
): { ok: false; notExpressible: Refusal } {
  const words = refusalWords[kind] as (...details: string[]) => string;
  return { ok: false, notExpressible: { kind, reason: words(...(details as string[])) } };
}
