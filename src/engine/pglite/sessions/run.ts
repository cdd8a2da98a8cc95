// Running a reader's statement: refused, made to wait, or run in its session's own transaction.
import { noteBackendTimers } from './backend-timers';
import type { BackendReply } from '../backend';
import {
  answerTesterProbe,
  carryOut,
  noteSessionReaders,
  readsSessions,
  sessionsJson,
  standInGids,
  takeSignals,
} from './activity';
import { checkAdvisory, heldKeys, noteAdvisory } from './advisory-locks';
import { readLocksCheck, runMeetingReads } from './read-locks';
import { drawsWhereDropped, noteSequenceCache } from './sequence-caches';
import type { AdvisoryCall } from '../advisory';
import { finishStatement, get, setState, whose, type LayerContext } from './context';
import type { SessionRecord } from './context';
import { backendStateMet, noteBackendState } from './backend-objects';
import { breakDeadlock } from './deadlocks';
import { guard } from './guards';
import { inFlightMs, sleepOutlasts, startSleep } from './in-flight';
import { enter, finishParked, setAside, settle, takesSnapshot, transactionEnd } from './parking';
import { recheckPlan, runGuarded, runUndoable, type RowWait } from './recheck';
import { toSavepoint } from './claims';
import { forgetLog, logStatement, noteShown, resume, xidsHidden } from './resume';
import { notExpressible, toReply, type Outcome, type QueryReply } from './replies';
import { serial } from './journal';
import { asksAccessExclusive } from './snapshot-import';
import { byText } from '../../by-text';
import { leadingKeyword, splitStatements } from '../../split-statements';
import type { QueryResult } from '../../types';
import {
  changesSettings,
  customNotSet,
  customSettingsNamed,
  loadSettings,
  notePrepared,
  staleStatement,
  ownSequenceValues,
  sessionSequence,
} from './session-settings';
import { calledNames, lockModes, statementNeeds } from '../waits';
import { check, likelyHolder, mergeMatchedRows, parkedLocksOn, type Verdict } from './wait-checks';
import { retryWaitersOn, setOrReset, waitFor, wakeWaiters, type WaitOn } from './waiting';
import {
  asksAge,
  horizonHeldByLocks,
  spentSetting,
  uncountedRefusal,
  withholdCounts,
} from './spent-xids';
import { replayTraceRefusal } from './replay-traces';
import { readsStatistics, statisticsShared } from './statistics';
import { runReader } from './watchdog';

const isParked = (r: SessionRecord) => r.holding.kind === 'parked';

/** What lists the transactions running now, by XID: a snapshot taken or exported now. */
const showsSnapshot =
  /\b(?:pg_current_snapshot|txid_current_snapshot|pg_export_snapshot|pg_snapshot_(?:xip|xmin|xmax)|txid_snapshot_(?:xip|xmin|xmax))\b/i;

/** Creating a temporary table, view or sequence (each backend has its own on a server). */
const temporaryObject =
  /\bCREATE\s+(?:(?:GLOBAL|LOCAL)\s+)?(?:TEMP|TEMPORARY)\s+(?:TABLE|VIEW|SEQUENCE)\b|\bINTO\s+(?:TEMP|TEMPORARY)\b/i;

/** A cursor that outlives its transaction, or a LISTEN: both are the backend's. */
const backendWide = /\bWITH\s+HOLD\b|(?:^|;)\s*(?:LISTEN|UNLISTEN)\b/im;

/**
 * What shows the backend's own locks by pid: PGlite's one backend, its pid not a
 * session's, the parked transactions as prepared ones with none, and no layer's waits.
 */
const backendLocks = /\b(pg_locks|pg_blocking_pids|pg_safe_snapshot_blocking_pids)\b/i;

/**
 * The functions under pg_stat_activity, which show backends by their slots: PGlite's one
 * backend, not the sessions (the layer's pg_stat_activity shows those).
 */
const backendStatus = /\b(pg_stat_get_activity|pg_stat_get_backend_\w+)\s*\(/i;

/**
 * Runs `sql` for session `id` as the client sent it: the session shows it as its query
 * while it runs. A session the server ended gets the error that ended it, once.
 */
export async function query(
  ctx: LayerContext,
  id: number,
  sql: string,
  params?: unknown[],
): Promise<Outcome> {
  const why = ctx.ended.get(id);
  if (why) {
    ctx.ended.set(id, {
      code: '08003',
      severity: 'ERROR',
      message: 'the connection is closed: the server ended this session',
    });
    return { ok: false, error: why, partial: { results: [], notices: [] } };
  }
  const s = get(ctx, id);
  s.query = sql;
  s.queryStart = ctx.now;
  setState(ctx, s, 'active');
  const { statements } = textFacts(sql);
  const outcome =
    statements.length > 1 && params === undefined && inExplicitTransaction(s, statements[0]!)
      ? await runInTurn(ctx, s, statements, { results: [], notices: [] })
      : await runQuery(ctx, s, sql, params);
  if ('wait' in outcome) {
    return {
      wait: outcome.wait.then((reply) => {
        noteShown(ctx, sql, reply);
        return reply;
      }),
    };
  }
  finishStatement(ctx, s);
  noteShown(ctx, sql, outcome);
  return outcome;
}

/** Runs a query string of `statements` as `query` does, in turn or whole. */
function runString(
  ctx: LayerContext,
  s: SessionRecord,
  statements: readonly string[],
): Promise<Outcome> {
  return statements.length > 1 && inExplicitTransaction(s, statements[0]!)
    ? runInTurn(ctx, s, statements, { results: [], notices: [] })
    : runQuery(ctx, s, statements.join(';\n'));
}

/** Whether `s`'s query string runs in a transaction block it opens or is already in. */
function inExplicitTransaction(s: SessionRecord, first: string): boolean {
  return s.holding.kind !== 'none' || /^\s*(?:BEGIN|START\s+TRANSACTION)\b/i.test(first);
}

/**
 * Runs the statements of one query string in a transaction block one after another, as a
 * server does, so that one that waits waits after the ones before it ran (their SET, their
 * locks), and the rest run once it ends. An error or a refusal stops the string there. (A
 * string outside a transaction block is one implicit transaction, and runs whole.)
 */
async function runInTurn(
  ctx: LayerContext,
  s: SessionRecord,
  statements: readonly string[],
  done: QueryResult,
): Promise<Outcome> {
  for (const [i, statement] of statements.entries()) {
    // Once its block has ended (COMMIT, ROLLBACK, END), the rest of the string runs as a
    // server runs a string: in one implicit transaction, unless it opens a block again.
    if (i > 0 && s.holding.kind === 'none') {
      const rest = await runString(ctx, s, statements.slice(i));
      return 'wait' in rest
        ? { wait: rest.wait.then((reply) => joined(done, reply)) }
        : joined(done, rest);
    }
    // A server's backend is active for the whole string, waits included.
    if (i > 0) setState(ctx, s, 'active');
    const outcome = await runQuery(ctx, s, statement);
    if ('wait' in outcome) {
      const rest = statements.slice(i + 1);
      return {
        wait: outcome.wait.then((reply) => {
          if (!reply.ok || rest.length === 0) return joined(done, reply);
          // The rest goes on as a call of its own, after the one that ended the wait.
          return serial(ctx, async () => {
            setState(ctx, s, 'active');
            const more = await runInTurn(ctx, s, rest, append(done, reply.result));
            if ('wait' in more) return more.wait;
            finishStatement(ctx, s);
            return more;
          });
        }),
      };
    }
    if (!outcome.ok) return joined(done, outcome);
    done = append(done, outcome.result);
  }
  return { ok: true, result: done };
}

/** The results and notices of `done`, then those of `more`. */
function append(done: QueryResult, more: QueryResult): QueryResult {
  const omitted = (done.noticesOmitted ?? 0) + (more.noticesOmitted ?? 0);
  return {
    results: [...done.results, ...more.results],
    notices: [...done.notices, ...more.notices],
    ...(omitted ? { noticesOmitted: omitted } : {}),
  };
}

/** `reply` with the results and notices of the statements before it in front. */
function joined(done: QueryResult, reply: QueryReply): QueryReply {
  if ('notExpressible' in reply) return reply;
  return reply.ok
    ? { ok: true, result: append(done, reply.result) }
    : { ...reply, partial: append(done, reply.partial) };
}

/**
 * The reader's own PREPARE TRANSACTION: it would leave a transaction no session holds,
 * whose locks the checks and the watchdog cannot follow (they know parked sessions').
 */
const readersPrepare = /^\s*PREPARE\s+TRANSACTION\b/i;

/**
 * Commands that build or drop an index CONCURRENTLY (or detach a partition so): between
 * transactions of their own they wait for every transaction that holds a lock on the
 * table, and for every snapshot older than theirs (WaitForLockers, WaitForOlderSnapshots).
 */
const waitsForOlder =
  /^\s*(?:CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY|DROP\s+INDEX\s+CONCURRENTLY|REINDEX\b[^;]*\bCONCURRENTLY|ALTER\s+TABLE\b[^;]*\bDETACH\s+PARTITION\b[^;]*\bCONCURRENTLY)\b/i;

/**
 * Of those, the ones that wait for every transaction holding any lock on the table, a
 * reader's ACCESS SHARE too (WaitForLockers in ACCESS EXCLUSIVE mode): DROP INDEX and
 * DETACH PARTITION CONCURRENTLY. The others wait for writers' locks (SHARE mode).
 */
const waitsForReaders =
  /^\s*(?:DROP\s+INDEX\s+CONCURRENTLY|ALTER\s+TABLE\b[^;]*\bDETACH\s+PARTITION\b[^;]*\bCONCURRENTLY)\b/i;

/**
 * The transactions set aside with PREPARE TRANSACTION, as a reader would name them: a
 * parked session's, or one the reader prepared with PREPARE TRANSACTION (by its gid).
 */
async function preparedTransactions(ctx: LayerContext): Promise<string[]> {
  const [prepared] = await ctx.backend.exec(
    'SELECT gid FROM pg_catalog.pg_prepared_xacts ORDER BY gid',
  );
  const sessions = [...ctx.sessions.values()];
  const names = prepared!.rows.map(([gid]) => {
    const owner = sessions.find((r) => r.holding.kind === 'parked' && r.holding.gid === gid);
    if (owner) return whose(owner);
    const standIn = /^seat-ledger:(\d+):/.exec(gid!);
    const standsFor = standIn ? ctx.sessions.get(Number(standIn[1])) : undefined;
    if (standsFor) return whose(standsFor);
    return `the prepared transaction '${gid}'`;
  });
  return [...new Set(names)];
}

/**
 * What TRUNCATE, VACUUM, ANALYZE, ALTER TABLE, DROP TABLE and LOCK check on a table before
 * they lock it (the callbacks of RangeVarGetRelidExtended, and expand_vacuum_rel): a
 * privilege, or for ALTER and DROP its ownership. Without it a server's statement fails,
 * or warns and skips the table, at once instead of waiting.
 */
const checkedBeforeLock: Record<string, string> = {
  TRUNCATE: 'TRUNCATE',
  VACUUM: 'MAINTAIN',
  ANALYZE: 'MAINTAIN',
  ANALYSE: 'MAINTAIN',
  'ALTER TABLE': 'owner',
  'DROP TABLE': 'owner',
  LOCK: 'by mode',
};

/**
 * The privileges any one of which lets LOCK take its mode (LockTableAclCheck in
 * lockcmds.c): MAINTAIN, UPDATE, DELETE or TRUNCATE any mode, SELECT up to ACCESS SHARE,
 * INSERT up to ROW EXCLUSIVE.
 */
function lockPrivileges(statement: string): string {
  const rank = lockModes.indexOf(statementNeeds(statement).mode ?? 'AccessExclusiveLock');
  return [
    'MAINTAIN, UPDATE, DELETE, TRUNCATE',
    ...(rank <= lockModes.indexOf('AccessShareLock') ? ['SELECT'] : []),
    ...(rank <= lockModes.indexOf('RowExclusiveLock') ? ['INSERT'] : []),
  ].join(', ');
}

/**
 * The tables `statement` names, in order, for the commands that may name several (LOCK,
 * TRUNCATE, DROP TABLE); null when they cannot be read from the text.
 */
function namedTables(sql: string): string[] | null {
  const statement = sql.replace(/;\s*$/, '');
  const list =
    /^\s*(?:LOCK(?:\s+TABLE)?|TRUNCATE(?:\s+TABLE)?|DROP\s+TABLE(?:\s+IF\s+EXISTS)?)\s+([\s\S]*?)\s*(?:\bIN\s+[A-Z\s]+\s+MODE\b|\bNOWAIT\b|\bRESTART\b|\bCONTINUE\b|\bCASCADE\b|\bRESTRICT\b|$)/i.exec(
      statement,
    )?.[1];
  if (!list) return null;
  const names = list.split(',').map((name) =>
    name
      .trim()
      .replace(/^ONLY\s+/i, '')
      .replace(/\s*\*$/, ''),
  );
  // Plain names only, `schema.table` or `table`: anything else is not read here.
  const plain = /^[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)?$/;
  return names.every((name) => plain.test(name)) ? names : null;
}

/**
 * Whether `s`'s statement, found to wait for a table lock (`verdict`), lacks the privilege
 * its command checks before it locks: then it does not wait on a server, and sent here it
 * ends at once as there. The tables it names are checked in order up to the one it waits
 * for; one that does not exist ends it at once too. A string may open its transaction
 * block and read first. Asked in the session's own transaction (in a savepoint) when it
 * is in the backend, else with its SETs made in a transaction rolled back after.
 */
async function deniedBeforeLock(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  verdict: Extract<Verdict, { verdict: 'waits' }>,
): Promise<boolean> {
  const statements = splitStatements(sql).map(({ sql: statement }) => statement);
  // Before it, a string may open its transaction block, and read: a plain read takes
  // ACCESS SHARE at most, so a wait for a stronger lock is the command's own.
  const opens = (st: string) => /^\s*(?:BEGIN|START\s+TRANSACTION)\b/i.test(st);
  const reads = (st: string) =>
    /^\s*(?:SELECT|VALUES|SHOW|TABLE)\b/i.test(st) &&
    !/\b(?:FOR\s+(?:UPDATE|SHARE|NO\s+KEY|KEY)|INTO)\b/i.test(st);
  const first = statements.findIndex((st) => !opens(st) && !reads(st));
  const text = first === -1 ? '' : statements[first]!;
  const readFirst = statements.slice(0, Math.max(first, 0)).some(reads);
  if (readFirst && verdict.table?.mode === 'AccessShareLock') return false;
  const command = /^\s*(ALTER|DROP)\s+TABLE\b/i.exec(text);
  const privilege =
    checkedBeforeLock[command ? `${command[1]!.toUpperCase()} TABLE` : leadingKeyword(text)];
  const { holding } = s;
  if (!privilege || !verdict.table) return false;
  if (holding.kind === 'failed' || holding.kind === 'lost') return false;
  // In its own transaction a question takes the snapshot a REPEATABLE READ one has not.
  const inPlace = holding.kind === 'resident';
  if (inPlace && !holding.snapshotTaken && holding.isolation !== 'read committed') return false;
  // VACUUM and ANALYZE of several tables, and ALTER TABLE, name the one they wait for.
  const tables = /^\s*(?:VACUUM|ANALY[SZ]E|ALTER)\b/i.test(text)
    ? [verdict.table.relname]
    : namedTables(text);
  if (tables === null) return false;
  const ownSets =
    holding.kind === 'parked'
      ? holding.shape.replay.filter(setOrReset)
      : holding.kind === 'released'
        ? holding.replay.filter(setOrReset)
        : [];
  if (inPlace) {
    await enter(ctx, s);
  } else {
    if (ctx.resident) await setAside(ctx, ctx.resident);
    await loadSettings(ctx, s);
  }
  const wanted = privilege === 'by mode' ? lockPrivileges(text) : privilege;
  await ctx.backend.exec(inPlace ? 'SAVEPOINT seat_ledger_acl' : 'BEGIN');
  try {
    for (const statement of ownSets) await ctx.backend.run(statement);
    // The session's own timeouts are not for the layer's question (PGlite fires them).
    await ctx.backend.exec('SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0');
    for (const table of tables) {
      const read = await ctx.backend.run(
        `SELECT ${
          privilege === 'owner'
            ? `pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c
                 WHERE c.oid = $1::pg_catalog.text::pg_catalog.regclass), 'USAGE')`
            : 'pg_catalog.has_table_privilege($1::pg_catalog.text, $3)'
        }, $1::pg_catalog.text::pg_catalog.regclass = $2::pg_catalog.text::pg_catalog.regclass`,
        privilege === 'owner'
          ? [table, verdict.table.relname]
          : [table, verdict.table.relname, wanted],
      );
      // A table that does not exist fails the statement before any wait.
      if (read.error) return ['42P01', '3F000', '42602'].includes(read.error.code ?? '');
      const [allowed, waitedFor] = read.results[0]!.rows[0]!;
      if (allowed === 'f') return true;
      if (waitedFor === 't') return false;
    }
    return false;
  } finally {
    await ctx.backend.exec(
      inPlace
        ? 'ROLLBACK TO SAVEPOINT seat_ledger_acl; RELEASE SAVEPOINT seat_ledger_acl'
        : 'ROLLBACK',
    );
  }
}

/** A SELECT or VALUES of constants: it reads no table and calls no function. */
const readsNothing = (sql: string) =>
  textFacts(sql).statements.every(
    (st) =>
      /^\s*(?:SELECT|VALUES)\b/i.test(st) && !/\bFROM\b/i.test(st) && calledNames(st).length === 0,
  );

/** A lone LOCK TABLE … NOWAIT, which fails where it would wait. */
const locksNowait = (sql: string) => {
  const statements = textFacts(sql).statements;
  return statements.length === 1 && /^\s*LOCK\b[\s\S]*\bNOWAIT\s*;?\s*$/i.test(statements[0]!);
};

/**
 * The wait on another parked transaction's row that `s`'s UPDATE or DELETE, woken from a
 * wait on a row, meets now: on a server it followed the row to its newest version and
 * found that locked too (another waiter took it first). Null when it meets none, or when
 * it is not a plain UPDATE or DELETE, whose check looks without running anything (that of
 * a SELECT … FOR UPDATE runs it when its rows are free, which a recheck must guard).
 */
async function waitsOnAnother(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params: unknown[] | undefined,
): Promise<(WaitOn & { holder: SessionRecord }) | null> {
  const statements = splitStatements(sql);
  if (statements.length !== 1 || statementNeeds(statements[0]!.sql).rows.kind !== 'modify') {
    return null;
  }
  const verdict = await check(ctx, s, sql, params, { quiet: true });
  if (verdict.verdict !== 'waits' || verdict.event !== 'transactionid') return null;
  const { holder } = verdict;
  if (holder?.holding.kind !== 'parked' || holder.holding.emulatedSnapshot) return null;
  return { ...verdict, holder };
}

/**
 * Whether `sql` can run inside a savepoint and be undone: data statements only, not ones
 * that end or open a transaction, touch savepoints, or cannot run in a transaction block.
 */
function undoable(sql: string): boolean {
  return splitStatements(sql).every(({ sql: statement }) =>
    /^\s*(?:SELECT|INSERT|UPDATE|DELETE|MERGE|WITH|VALUES|TABLE|EXECUTE)\b/i.test(statement),
  );
}

/**
 * What `runQuery` asks of a query string's text alone, worked out once per text: a page's
 * workers send the same few statements over and over (by-text.ts).
 */
const textFacts = byText((sql: string) => {
  const split = splitStatements(sql);
  const some = (pattern: RegExp) => split.some(({ sql: statement }) => pattern.test(statement));
  return {
    statements: split.map(({ sql: statement }) => statement) as readonly string[],
    changesSettings: changesSettings.test(sql),
    temporaryObject: temporaryObject.test(sql),
    backendWide: backendWide.test(sql),
    sessionSequence: sessionSequence.test(sql),
    /** The view or function that shows the backend's own locks, if `sql` names one. */
    backendLocks: backendLocks.exec(sql)?.[1]!.toLowerCase() ?? null,
    /** A function that shows backends by their slots, if `sql` calls one. */
    backendStatus: backendStatus.exec(sql)?.[1]!.toLowerCase() ?? null,
    readersPrepare: some(readersPrepare),
    waitsForOlder: some(waitsForOlder),
    waitsForReaders: some(waitsForReaders),
    readsSessions: readsSessions.test(sql),
    readsStatistics: readsStatistics(sql),
    asksAge: asksAge.test(sql),
    toSavepoint: some(toSavepoint),
  } as const;
});

/**
 * Runs `s`'s statement, switching the backend to `s` first, unless one backend cannot
 * show it truthfully (refused) or it would wait on another session (it waits).
 */
export async function runQuery(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params?: unknown[],
  rowWait?: RowWait,
): Promise<Outcome> {
  const probe = answerTesterProbe(ctx, s, sql, params);
  if (probe) return probe;
  ctx.lostOnPark = null;
  const refused = await guard(ctx, s, sql);
  if (refused) return refused;
  const hidden = xidsHidden(ctx, sql) ?? uncountedRefusal(ctx, sql);
  if (hidden) return hidden;
  // A stand-in holds an XID where a server's transaction has a snapshot and none.
  if (showsSnapshot.test(sql) && standInGids(ctx).length > 0) {
    return notExpressible('stand-in-xid');
  }
  const unset = customNotSet(ctx, s, sql);
  if (unset) return notExpressible('custom-setting', unset);
  if (s.drawnAhead.size > 0) {
    const dropped = await drawsWhereDropped(ctx, s, sql);
    if (dropped) return notExpressible('sequence-cache', dropped);
  }
  const facts = textFacts(sql);
  if (facts.changesSettings) {
    noteBackendTimers(s, sql);
    s.settingsTouched = true;
    for (const name of customSettingsNamed(sql)) {
      if (!s.customSettings.includes(name)) s.customSettings.push(name);
      ctx.customSettings.add(name);
    }
  }
  // A replay that imported its snapshot keeps the stand-in that held it (resume.ts), with
  // ACCESS SHARE on the tables it read: a statement of its own that asks for ACCESS
  // EXCLUSIVE would wait for it. Set aside, it is refused as a parked one that goes on.
  if (ctx.resident === s && ctx.snapshotPins.has(s.id) && asksAccessExclusive(sql)) {
    await setAside(ctx, s);
  }
  const holding = s.holding;
  // A parked transaction can only end. A statement of a READ COMMITTED one that would
  // wait still waits, as on a server, since a wait can end without the statement going
  // on: a deadlock or a cancel fails it and rolls the transaction back. Only once it
  // would run is it beyond one backend.
  let parked = false;
  if (holding.kind === 'parked') {
    const how = transactionEnd(sql);
    if (how) {
      const reply = await finishParked(ctx, s, how, holding.gid);
      await wakeWaiters(ctx);
      return reply;
    }
    parked = true;
  }
  if (holding.kind === 'lost') {
    s.holding = { kind: 'none' };
    s.xactStart = null;
    setState(ctx, s, 'idle');
    return notExpressible('transaction-lost', holding.reason);
  }
  const deferring = deferredBy(ctx, s, sql);
  if (deferring) return notExpressible('deferrable-snapshot', whose(deferring));
  if (facts.temporaryObject && ctx.sessions.size > 1) {
    return notExpressible('temporary-object');
  }
  if (facts.backendWide && ctx.sessions.size > 1) {
    return notExpressible('backend-wide-object');
  }
  // What a session made of the backend's own while it was alone (backend-objects.ts).
  const met = await backendStateMet(ctx, s, sql);
  if (met) return notExpressible(met);
  noteBackendState(ctx, s, sql, facts.temporaryObject || facts.backendWide);
  if (facts.sessionSequence && !(await ownSequenceValues(ctx, s, sql))) {
    return notExpressible('session-sequence');
  }
  if (facts.backendLocks) return notExpressible('backend-locks', facts.backendLocks);
  if (facts.backendStatus) return notExpressible('backend-status', facts.backendStatus);
  const heldBack = horizonHeldByLocks(ctx, s, sql);
  if (heldBack) return heldBack;
  const statistics = facts.readsStatistics ? await statisticsShared(ctx, s, sql) : null;
  if (statistics) return notExpressible('statistics-shared', statistics);
  const traces = await replayTraceRefusal(ctx, s, sql);
  if (traces) return traces;
  if (facts.readersPrepare) {
    return notExpressible('prepared-by-reader');
  }
  const advisory = await checkAdvisory(ctx, s, sql);
  if (advisory.verdict === 'refused') return advisory.reply;
  if (advisory.verdict === 'waits') return waitFor(ctx, s, sql, params, advisory.wait);
  // The resident's locks must be parked ones before the check can see them.
  if (ctx.resident && ctx.resident !== s) await setAside(ctx, ctx.resident);
  // The checks against parked transactions read the tables they lock: PostgreSQL counts
  // those scans as a server never would (replay-traces.ts).
  if (!ctx.replayTraces.scanned && [...ctx.sessions.values()].some(isParked)) {
    ctx.replayTraces.scanned = true;
  }
  // A CONCURRENTLY build commits its first part, then waits for older transactions. A
  // parked one would hang PGlite (its locks), a stand-in would not make it wait as the
  // snapshot it stands for would on a server (a prepared transaction has none), and a
  // wait cut short leaves the first part behind: none of it can be shown.
  if (facts.waitsForOlder) {
    // A transaction closed in the backend after it read (released) holds ACCESS SHARE
    // on a server, which some of them wait for too.
    const readers = [...ctx.sessions.values()].filter(
      (r) =>
        facts.waitsForReaders &&
        r !== s &&
        r.holding.kind === 'released' &&
        r.holding.reads.length > 0,
    );
    const others = [...new Set([...(await preparedTransactions(ctx)), ...readers.map(whose)])];
    if (others.length > 0) return notExpressible('waits-for-older', others.join(', '));
  }
  const outlasted = await sleepOutlasts(ctx, s, sql);
  if (outlasted) return notExpressible(outlasted.kind, outlasted.limit);
  const sleepMs = inFlightMs(s, sql);
  if (sleepMs !== null) return startSleep(ctx, s, sql, sleepMs);
  // In a failed transaction every statement but its end fails at once: nothing waits.
  const failed = s.holding.kind === 'failed' || (ctx.resident === s && s.status === 'E');
  // A statement that waited for a row runs again only as far as that is what a server's
  // recheck would show (recheck.ts).
  const plan = rowWait && !failed ? await recheckPlan(ctx, s, sql, params, rowWait) : null;
  if (plan?.kind === 'refuse') return notExpressible('recheck', plan.why);
  if (plan?.kind === 'guarded') {
    if (await parkedLocksOn(ctx, s, sql)) {
      const next = await waitsOnAnother(ctx, s, sql, params);
      if (next) return waitFor(ctx, s, sql, params, { ...next, carried: rowWait });
      return notExpressible('recheck', 'another parked transaction holds locks it meets');
    }
    // Its own transaction was set aside while it waited (it held the statement's locks):
    // it goes on as a replay, as one that would run does (below), and runs from inside.
    if (parked) {
      const refused = (await resume(ctx, s, sql)) ?? (await replayTraceRefusal(ctx, s, sql));
      if (refused) return refused;
      parked = false;
    }
    const guarded = await runGuarded(ctx, s, sql, params, plan);
    if (guarded !== 'stuck' && 'undone' in guarded) {
      if (guarded.undone === 'notices') return notExpressible('notices-before-wait');
      if (guarded.undone === 'order') {
        return notExpressible(
          'recheck',
          'the rows it returns come in the order they lie, which that change moved',
        );
      }
      return notExpressible('recheck', 'it would lock or change a row that transaction wrote');
    }
    if (guarded === 'stuck') return stuckWait(ctx, s, sql, params);
    return finish(ctx, s, guarded, sql, params, advisory.calls);
  }
  // A statement that waited for a row ran part-way on a server before it waited: it runs
  // again undoably, and is refused if it raised notices (see `runUndoable`).
  const woken = rowWait !== undefined && !failed;
  let verdict = failed
    ? ({ verdict: 'free' } as const)
    : await check(ctx, s, sql, params, { quiet: woken });
  // One that ends at once on a server, for want of a privilege, is sent: a parked
  // transaction goes on first, and the check is made again from inside it.
  if (verdict.verdict === 'waits' && (await deniedBeforeLock(ctx, s, sql, verdict))) {
    verdict = { verdict: 'free' };
  }
  // A parked transaction that would run (or that meets its own row locks, which a check
  // from outside it cannot tell apart) goes on only as a replay (resume.ts); then the
  // check is made again from inside it.
  const ownLocks = verdict.verdict === 'unknown' && verdict.holder === s;
  if (parked && (verdict.verdict === 'free' || ownLocks)) {
    const refused = await resume(ctx, s, sql);
    if (refused) return refused;
    parked = false;
    // The replay may have just put its rows after others' (replay-traces.ts): the
    // statement that made it go on is asked about as any later one is.
    const traced = await replayTraceRefusal(ctx, s, sql);
    if (traced) return traced;
    verdict = await check(ctx, s, sql, params, { quiet: woken });
  }
  // A statement whose rows cannot be checked in advance is sent under the watchdog's eye
  // (`runReader` times it): if it ends, it did not wait, as on a server; if it spins, the
  // watchdog finds it and it waits (`stuckWait`), to run again under the recheck's rules.
  // A parked transaction's statement cannot be sent: it would have to go on first.
  if (verdict.verdict === 'unknown' && (parked || verdict.holder === s)) {
    return notExpressible('wait-unchecked', whose(verdict.holder));
  }
  if (verdict.verdict === 'waits' && (await deniedBeforeLock(ctx, s, sql, verdict))) {
    verdict = { verdict: 'free' };
  }
  // LOCK … NOWAIT fails at once where it would wait. A parked holder's lock is PostgreSQL's
  // own, so the statement sent fails as on a server; one the layer keeps for a transaction
  // closed in the backend (a reader's ACCESS SHARE) is not, and PostgreSQL would grant it.
  if (verdict.verdict === 'waits' && verdict.event === 'relation' && locksNowait(sql)) {
    if (verdict.holder?.holding.kind !== 'parked') {
      return notExpressible(
        'lock-nowait',
        verdict.holder ? whose(verdict.holder) : 'another session',
      );
    }
    verdict = { verdict: 'free' };
  }
  if (verdict.verdict === 'waits') return waitFor(ctx, s, sql, params, verdict);
  if (verdict.verdict === 'deadlock') {
    // A server finds this one before the request waits, and fails it at once.
    const { waiter, mode } = verdict;
    const table = waiter.lock.slice(waiter.lock.indexOf(' on ') + ' on '.length);
    const outcome = await waitFor(ctx, s, sql, params, {
      holder: waiter.s,
      event: 'relation',
      lock: `${mode} on ${table}`,
      table: { relname: waiter.table.relname, mode },
    });
    const mine = ctx.waiters.find((w) => w.s === s);
    if (mine) await breakDeadlock(ctx, [mine, waiter]);
    return outcome;
  }
  if (verdict.verdict === 'one-of') {
    return notExpressible('wait-unchecked', verdict.holders.map(whose).join(' and '), 'several');
  }
  if (verdict.verdict === 'queued') {
    const { waiter } = verdict;
    return notExpressible('lock-queue', whose(waiter.s), waiter.table.relname, waiter.table.mode);
  }
  if (parked) return notExpressible('parked-goes-on');
  // Another transaction could not be set aside for this statement and was rolled back: on
  // a server it would still be open, with its locks and writes, until its COMMIT failed.
  if (verdict.verdict !== 'done') await enter(ctx, s);
  // (Set while this statement's checks set the resident aside: TypeScript cannot see that.)
  const lost = ctx.lostOnPark as LayerContext['lostOnPark'];
  if (lost && lost.r !== s && !readsNothing(sql)) {
    return notExpressible('set-aside-failed', whose(lost.r), lost.why);
  }
  let reply: BackendReply;
  if (verdict.verdict === 'done') {
    reply = verdict.reply;
  } else {
    await enter(ctx, s);
    // Its prepared statements were made again as it entered (`remakePrepared`).
    const stale = staleStatement(s, sql);
    if (stale) return notExpressible('prepared-remade', stale);
    const seesSessions = facts.readsSessions && s.status !== 'E';
    // Through the reader's own views or functions, any statement may read them.
    const mayRead = ctx.sessionsReadIndirectly && !seesSessions && s.status !== 'E';
    if (seesSessions || mayRead) {
      await ctx.backend.exec(
        "SELECT pg_catalog.set_config('sim.sessions', $1, false), " +
          "pg_catalog.set_config('sim.standins', $2, false)",
        [sessionsJson(ctx, s), standInGids(ctx).join(',')],
      );
    }
    if (ctx.spentXids.length > 0 && facts.asksAge && s.status !== 'E') {
      await ctx.backend.exec("SELECT pg_catalog.set_config('sim.spent_xids', $1, false)", [
        spentSetting(ctx),
      ]);
    }
    const again = woken && undoable(sql);
    // One that may lock a table a released transaction read is run to see (read-locks.ts).
    const sent = again
      ? await runUndoable(ctx, s, sql, params)
      : readLocksCheck(ctx, s, sql) === 'run'
        ? await runMeetingReads(ctx, s, sql, params)
        : await runReader(ctx, s, sql, params);
    if (sent !== 'stuck' && 'undone' in sent) return notExpressible('notices-before-wait');
    let ran = sent;
    if (ran !== 'stuck' && 'waits' in ran) {
      // A failure for want of a privilege comes before the lock (`deniedBeforeLock`).
      const denied = ran.failed && (await deniedBeforeLock(ctx, s, sql, ran.waits));
      if (denied) ran = ran.failed!;
      else if (ran.notices) return notExpressible('notices-before-wait');
      else return waitFor(ctx, s, sql, params, ran.waits);
    }
    if (ran === 'stuck') return stuckWait(ctx, s, sql, params);
    reply = ran;
    await noteSessionReaders(ctx, sql, reply.error !== undefined);
    if (seesSessions) {
      if (!reply.error) await noteSessionState(ctx, s, sql);
      await settle(ctx, s, reply, sql, params !== undefined);
      forgetLog(s);
      await carryOut(ctx, await takeSignals(ctx));
      await wakeAfterEnd(ctx, reply);
      return toReply(withholdCounts(ctx, reply));
    }
    if (mayRead) {
      // What it answered may show the other sessions, as the layer had them.
      forgetLog(s);
      const outcome = await finish(ctx, s, reply, sql, params, advisory.calls);
      await carryOut(ctx, await takeSignals(ctx));
      return outcome;
    }
  }
  return finish(ctx, s, reply, sql, params, advisory.calls);
}

/**
 * The session whose SERIALIZABLE transaction the first snapshot of `s`'s SERIALIZABLE
 * READ ONLY DEFERRABLE transaction would wait for: on a server it waits until every
 * SERIALIZABLE transaction that may write has ended, then keeps that snapshot if it is
 * safe or takes another (GetSafeSnapshot in src/backend/storage/lmgr/predicate.c). Here
 * those transactions are set aside, so PGlite would wait for good, and which snapshot a
 * server would keep cannot be told. Null when nothing stands in the way.
 */
function deferredBy(ctx: LayerContext, s: SessionRecord, sql: string): SessionRecord | null {
  const h = s.holding;
  const deferrable =
    (h.kind === 'resident' && !h.snapshotTaken) || h.kind === 'released'
      ? h.isolation === 'serializable' && h.readOnly && h.deferrable
      : false;
  if (!deferrable || !takesSnapshot(sql) || transactionEnd(sql)) return null;
  for (const r of ctx.sessions.values()) {
    if (r === s) continue;
    const o = r.holding;
    if (o.kind === 'parked' && o.isolation === 'serializable') return r;
    if ((o.kind === 'resident' || o.kind === 'released') && o.isolation === 'serializable') {
      if (!o.readOnly) return r;
    }
  }
  return null;
}

/**
 * Makes `s`'s statement, which the watchdog found stuck, wait for the parked transaction
 * holding it up. When that cannot be told, it is refused: a wait on no session in
 * particular would never be seen to end, and run again at every end, it would spin again.
 */
async function stuckWait(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  params: unknown[] | undefined,
): Promise<Outcome> {
  const holder = await likelyHolder(ctx, s, sql);
  if (!holder) return notExpressible('wait-unchecked', 'one of several parked transactions');
  // A MERGE's target rows are known only now (wait-checks.ts, `mergeMatchedRows`).
  const matched =
    holder.holding.kind === 'parked' && !holder.holding.emulatedSnapshot
      ? await mergeMatchedRows(ctx, s, sql, params, holder.holding.xid)
      : undefined;
  return waitFor(ctx, s, sql, params, {
    holder,
    event: 'transactionid',
    watchdog: true,
    ...(matched ? { matched } : {}),
  });
}

/**
 * Notes the session state `s`'s `sql`, which ran without error, may have made: prepared
 * statements, and sequences that cache. Most statements make none, and wait for nothing.
 */
function noteSessionState(ctx: LayerContext, s: SessionRecord, sql: string): Promise<void> | void {
  noteSequenceCache(ctx, sql);
  return notePrepared(ctx, s, sql);
}

/** Takes in what `s`'s statement did: its advisory locks, prepared statements, state. */
async function finish(
  ctx: LayerContext,
  s: SessionRecord,
  reply: BackendReply,
  sql: string,
  params: unknown[] | undefined,
  advisoryCalls: readonly AdvisoryCall[],
): Promise<Outcome> {
  if (!reply.error) {
    const asked = advisoryCalls.some((c) => c.fn !== 'unlock_all');
    noteAdvisory(ctx, s, advisoryCalls, asked ? await heldKeys(ctx) : undefined);
    await noteSessionState(ctx, s, sql);
  }
  await settle(ctx, s, reply, sql, params !== undefined);
  logStatement(ctx, s, sql, params, reply);
  // A failure of serializable snapshot isolation (not RR's "concurrent update").
  const ssi = reply.error?.code === '40001' && /read\/write dependencies/.test(reply.error.message);
  const prepared = ssi ? serializableParked(ctx, s) : undefined;
  if (prepared) return notExpressible('serializable-parked', whose(prepared));
  if (advisoryCalls.some((c) => c.fn === 'unlock' || c.fn === 'unlock_all')) {
    await wakeWaiters(ctx);
  } else await wakeAfterEnd(ctx, reply);
  if (!reply.error && textFacts(sql).toSavepoint) {
    await retryWaitersOn(ctx, s);
  }
  return toReply(withholdCounts(ctx, reply));
}

/**
 * Tries the waiting statements again once a transaction open in the backend has ended or
 * failed: it gives up the locks the layer kept for it (see the `released` holding).
 */
async function wakeAfterEnd(ctx: LayerContext, reply: BackendReply): Promise<void> {
  if (ctx.waiters.length > 0 && reply.status !== 'T') await wakeWaiters(ctx);
}

/**
 * Another session whose SERIALIZABLE transaction is parked, if any: its conflicts count as
 * committed ones (a prepared transaction can no longer be the one PostgreSQL fails).
 */
function serializableParked(ctx: LayerContext, s: SessionRecord): SessionRecord | undefined {
  return [...ctx.sessions.values()].find(
    (r) => r !== s && r.holding.kind === 'parked' && r.holding.isolation === 'serializable',
  );
}
