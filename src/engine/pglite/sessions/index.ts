// Many sessions on PGlite's one backend (DESIGN.md, "The central problem, and the
// mechanism"). The backend holds at most one open transaction, the resident's. When
// another session needs the backend, the resident's transaction is set aside:
// - holding an XID, it is parked with PREPARE TRANSACTION: it keeps its XID and locks,
//   so other sessions meet them for real, and it can later only COMMIT or ROLLBACK;
// - holding a snapshot but no XID (REPEATABLE READ, SERIALIZABLE, an open cursor), it is
//   parked after taking an XID, a stand-in that pins the horizon where the snapshot did;
// - READ COMMITTED that only read holds nothing on a server either: it is closed in the
//   backend and reopened at the session's next statement;
// - a failed transaction is closed and recreated as failed at the next statement.
import type { PgErrorFields, QueryResult, Refusal, RefusalKind, SessionOptions } from '../../types';
import type { SessionInfo, SessionStateName } from '../../session-info';
import { splitStatements } from '../../split-statements';
import { advisoryCalls, type AdvisoryCall } from '../advisory';
import type { Backend, BackendReply, TransactionStatus } from '../backend';
import { conflicts, mentions, statementNeeds, withNowait, type LockMode } from '../waits';

/** Where a session's open transaction is while other sessions use the backend. */
export type Holding =
  | { kind: 'none' }
  | {
      kind: 'resident';
      isolation: string;
      snapshotTaken: boolean;
      /**
       * The last statement came over the extended protocol: on a server its finished
       * unnamed portal keeps its snapshot (backend_xmin) until the next query.
       */
      portalSnapshot?: boolean;
    }
  | { kind: 'released' }
  | { kind: 'failed' }
  | {
      kind: 'parked';
      gid: string;
      xid: string;
      emulatedSnapshot: boolean;
      /** Its isolation level: only a READ COMMITTED one may wait (see `runQuery`). */
      isolation: string;
    }
  | { kind: 'lost'; reason: string };

/** One simulated connection: what pg_stat_activity shows, and where its transaction is. */
export interface SessionRecord {
  id: number;
  pid: number;
  applicationName: string;
  /** The role it connected as (`usename`). */
  role: string;
  backendStart: Date;
  state: SessionStateName;
  waitEventType: string | null;
  waitEvent: string | null;
  xactStart: Date | null;
  queryStart: Date | null;
  stateChange: Date;
  query: string;
  holding: Holding;
  /** The backend's transaction status after this session's last statement. */
  status: TransactionStatus;
  /** The session whose parked transaction this one waits for. */
  blockedBy: SessionRecord | null;
  /** Its wait was found by the watchdog (PGlite stopped answering), not by a check. */
  waitByWatchdog: boolean;
  /**
   * While it waits: the xmin of the snapshot its statement took, which a server shows as
   * backend_xmin for a waiting statement (read from PostgreSQL when the wait began).
   */
  waitXmin: string | null;
  /** idle_in_transaction_session_timeout and transaction_timeout in ms (0: off). */
  timeouts: { idleMs: number; transactionMs: number };
  /** Session-level settings, saved while another session's are loaded in the backend. */
  settings: [name: string, value: string][];
  /** It ran something that may have changed its settings since they were last saved. */
  settingsTouched: boolean;
  /**
   * Its prepared statements, by name: the PREPARE that made each, and the text it runs.
   * They belong to a backend, so they are made again whenever the session gets it.
   */
  prepared: Map<string, { statement: string; text: string }>;
}

/** The answer to one query as plain data: results, or an error with what came before it. */
export type QueryReply =
  | { ok: true; result: QueryResult }
  | { ok: false; error: PgErrorFields; partial: QueryResult }
  /** What one backend cannot show truthfully: the limit's kind, and words naming it. */
  | { ok: false; notExpressible: Refusal };

/** One call to the layer as its journal keeps it: enough to make it again, in order. */
export type LayerCall =
  | { method: 'openSession'; args: [options?: SessionOptions] }
  | { method: 'query'; args: [id: number, sql: string, params?: unknown[]] }
  | { method: 'closeSession'; args: [id: number] }
  | { method: 'cancel'; args: [id: number] }
  /** A timeout's timer fired. */
  | { method: 'tick'; args: [] };

/**
 * A call that changed the layer's state, with the time it ran at and the caller's tag
 * (the worker's callId). Replaying the journal on a fresh backend from the same data
 * directory rebuilds every session, transaction and parked XID, because one backend fed
 * the same statements in the same order answers the same (see `replay`).
 */
export interface JournalEntry {
  call: LayerCall;
  at: string;
  tag?: number;
}

/** What the layer tells whoever watches it for hangs (the page's watchdog). */
export interface LayerWatch {
  /** A call finished: it belongs in the journal. */
  journal(entry: JournalEntry): void;
  /**
   * A reader's statement, number `seq`, is about to go to the backend (`guarded`: a parked
   * transaction holds locks, so it might wait), or it came back (`done`).
   */
  statement(event: { seq: number; sessionId: number; guarded: boolean; done: boolean }): void;
}

/** How the layer is set up; every part has a default. */
export interface LayerOptions {
  /** The wall clock, read once as each call starts. */
  clock?: () => Date;
  watch?: LayerWatch;
  /**
   * Statements (by `seq`) that an earlier backend never answered: the watchdog took them
   * for lock waits that slipped past the checks. They are not sent again; their sessions
   * wait instead, and try again when a parked transaction ends.
   */
  stuck?: ReadonlySet<number>;
}

/** A statement waiting for a lock another session holds, and how to answer its caller. */
interface Waiter {
  s: SessionRecord;
  sql: string;
  params?: unknown[];
  answer: (reply: QueryReply) => void;
  /** Whether what it waits for is still held. */
  held: () => boolean;
  /**
   * When its deadlock check runs (its session's deadlock_timeout after the wait began),
   * or null once it has run: like a server's, it runs once per wait (ProcSleep).
   */
  deadlockCheckAt: number | null;
  /** The lock it waits for, as a server's deadlock report names it. */
  lock: string;
  /**
   * The gid of a parked transaction that stands in for the snapshot its statement took,
   * pinning the horizon as the waiting statement does on a server (emulated).
   */
  standIn?: { gid: string; xid: string };
}

/** The answer to opening a session: its ids, or the FATAL a server sends instead. */
export type OpenReply =
  | { ok: true; id: number; pid: number }
  | { ok: false; error: PgErrorFields }
  | { ok: false; notExpressible: Refusal };

/** A relation lock a parked transaction holds. */
interface ParkedLock {
  relname: string;
  mode: LockMode;
  /** The lock's tag as a server's deadlock report writes it (DescribeLockTag in lmgr.c). */
  tag: string;
}

/** Connection slots, read from the engine's own settings. */
interface Slots {
  max: number;
  superuserReserved: number;
  reserved: number;
}

/**
 * Whether one more session of this kind gets a seat, by PostgreSQL 18's rules: a
 * superuser needs any free slot (InitProcess: "sorry, too many clients already"); any
 * other role must leave the reserved slots free (InitPostgres in
 * src/backend/utils/init/postinit.c), counting its own slot as taken.
 */
export function seatRefusal(open: number, superuser: boolean, slots: Slots): PgErrorFields | null {
  const fatal = (message: string): PgErrorFields => ({ code: '53300', severity: 'FATAL', message });
  if (open >= slots.max) return fatal('sorry, too many clients already');
  if (superuser) return null;
  const free = slots.max - open - 1;
  if (free >= slots.superuserReserved + slots.reserved) return null;
  if (free < slots.superuserReserved) {
    return fatal('remaining connection slots are reserved for roles with the SUPERUSER attribute');
  }
  return fatal(
    'remaining connection slots are reserved for roles with privileges of the "pg_use_reserved_connections" role',
  );
}

/** Matches a statement that ends a transaction, and says how. */
function transactionEnd(sql: string): 'commit' | 'rollback' | null {
  const words = sql.replace(/;\s*$/, '').trim().toLowerCase().split(/\s+/);
  const [verb, ...rest] = words;
  const tail = rest.join(' ');
  if (!['', 'work', 'transaction', 'and no chain'].includes(tail)) return null;
  if (verb === 'commit' || verb === 'end') return 'commit';
  if (verb === 'rollback' || verb === 'abort') return 'rollback';
  return null;
}

/** Statements that read the `sim` schema's view of the sessions, or signal one. */
const readsSessions =
  /pg_stat_activity|pg_backend_pid|pg_cancel_backend|pg_terminate_backend|pg_isolation_test_session_is_blocked/i;

/** Session-level advisory lock functions (not the _xact_ ones, which end with the transaction). */
const sessionAdvisoryLock = /\bpg_(?:try_)?advisory_(?:un)?lock(?:_shared|_all)?\s*\(/i;

/** Creating a temporary table, view or sequence (each backend has its own on a server). */
const temporaryObject =
  /\bCREATE\s+(?:(?:GLOBAL|LOCAL)\s+)?(?:TEMP|TEMPORARY)\s+(?:TABLE|VIEW|SEQUENCE)\b|\bINTO\s+(?:TEMP|TEMPORARY)\b/i;

/** A cursor that outlives its transaction, or a LISTEN: both are the backend's. */
const backendWide = /\bWITH\s+HOLD\b|(?:^|;)\s*(?:LISTEN|UNLISTEN)\b/im;

/**
 * Statements that may change session settings (SET, RESET, DISCARD, set_config); the
 * others leave them as last saved, so switching away from their session reads nothing.
 */
const changesSettings = /(?:^|;)\s*(?:set|reset|discard)\b|\bset_config\s*\(/im;

/** A statement that only sleeps, `SELECT pg_sleep(n)`: the one kept in flight (see `startSleep`). */
const inFlightSleep = /^\s*SELECT\s+pg_sleep\s*\(\s*(\d+(?:\.\d+)?)\s*\)\s*;?\s*$/i;

/** Settings that belong to the layer's bookkeeping, never saved with a session. */
const layerSettings = new Set(['sim.sessions', 'sim.signals', 'sim.pid']);

/** Statements that do not take a snapshot in a REPEATABLE READ transaction. */
const noSnapshot = /^\s*(begin|start|set|savepoint|release|show|reset)\b/i;

/** Whether `sql` takes a snapshot: any of its statements but those above does. */
const takesSnapshot = (sql: string) =>
  splitStatements(sql).some((statement) => !noSnapshot.test(statement.sql));

/** What a client reads when its statement is cancelled (ProcessInterrupts, 57014). */
const cancelled: QueryReply = {
  ok: false,
  error: { code: '57014', severity: 'ERROR', message: 'canceling statement due to user request' },
  partial: { results: [], notices: [] },
};

/** A statement that is one call of pg_advisory_lock and nothing else. */
const advisoryLockAlone =
  /^\s*SELECT\s+pg_advisory_lock\s*\(\s*-?\d+\s*(?:,\s*-?\d+\s*)?\)\s*;?\s*$/i;

const prepareStatement = /^\s*PREPARE\s+(\w+)(?:\s*\([^()]*\))?\s+AS\s+([\s\S]*)$/i;
const executeStatement = /^\s*EXECUTE\s+(\w+)/i;

const deallocateStatement = /^\s*DEALLOCATE\s+(?:PREPARE\s+)?(\w+)/i;
const discardAll = /^\s*DISCARD\s+ALL\b/i;

/**
 * What `sql` runs when `s` sends it: a PREPARE runs nothing, and an EXECUTE runs the
 * text its session prepared under that name.
 */
function executedText(s: SessionRecord, sql: string): string {
  if (!/\b(?:PREPARE|EXECUTE)\b/i.test(sql)) return sql;
  return splitStatements(sql)
    .map(({ sql: statement }) => {
      if (prepareStatement.test(statement)) return '';
      const execute = executeStatement.exec(statement);
      return execute ? (s.prepared.get(execute[1]!.toLowerCase())?.text ?? statement) : statement;
    })
    .join(';\n');
}

/** Keeps `s`'s list of prepared statements up to date after `sql` ran without error. */
function notePrepared(s: SessionRecord, sql: string): void {
  if (!/\b(?:PREPARE|DEALLOCATE|DISCARD)\b/i.test(sql)) return;
  for (const { sql: statement } of splitStatements(sql)) {
    const prepare = prepareStatement.exec(statement);
    const deallocate = deallocateStatement.exec(statement);
    if (prepare) s.prepared.set(prepare[1]!.toLowerCase(), { statement, text: prepare[2]! });
    else if (discardAll.test(statement) || deallocate?.[1]!.toLowerCase() === 'all') {
      s.prepared.clear();
    } else if (deallocate) s.prepared.delete(deallocate[1]!.toLowerCase());
  }
}

/** Whether a table lock in `mode` is the one a transaction takes with rows it locks or changes. */
const locksRows = (mode: LockMode) => mode === 'RowShareLock' || mode === 'RowExclusiveLock';

/** What each refusal tells the reader, with the details it names. */
const refusalWords = {
  'parked-goes-on': () =>
    'this session’s transaction is parked: the in-browser engine runs one transaction ' +
    'at a time, so it set this one aside with PREPARE TRANSACTION when another session ' +
    'needed PostgreSQL, and a parked transaction can only COMMIT or ROLLBACK ' +
    '(a real server would let it go on)',
  'transaction-lost': (why: string) =>
    `this session’s transaction could not be set aside: ${why}; ` +
    'its changes are gone, and the session can start a new transaction',
  'temporary-object': () =>
    'temporary tables belong to the backend, and every session here shares PGlite’s one ' +
    'backend, so other sessions would see this one’s temporary tables',
  'backend-wide-object': () =>
    'cursors WITH HOLD and LISTEN belong to the backend, and every session here shares ' +
    'PGlite’s one backend, so other sessions would share this one’s',
  'advisory-untracked': () =>
    'session-level advisory locks belong to the backend, which every session here shares; ' +
    'the in-browser engine keeps them apart only for exclusive locks with literal ' +
    'number keys (transaction-level ones, pg_advisory_xact_lock, always work)',
  'advisory-try': (holder: string, key: string) =>
    `${holder} holds advisory lock ${key}, and PGlite’s one backend, which holds ` +
    'it, would answer true where a server answers false',
  'advisory-part-way': (holder: string, key: string) =>
    `this statement would wait, part-way through, for advisory lock ${key} that ` +
    `${holder} holds; to go on with it afterwards the in-browser engine would have to ` +
    'set the half-run statement aside and continue it, and like a parked transaction ' +
    'it cannot go on',
  'wait-unchecked': (holder: string) =>
    `this statement may wait on rows that ${holder} holds in its parked transaction, and ` +
    'the in-browser engine cannot check this kind of statement in advance (PGlite would ' +
    'hang on the wait)',
  'wait-holding-xid': (whom: string) =>
    `this session would wait for ${whom} while holding an XID of its own; to let that ` +
    'session finish, the in-browser engine would have to park this one, and a parked ' +
    'transaction cannot go on',
  'other-database': (database: string) =>
    'PGlite’s one backend is connected to the database postgres for good, so a ' +
    `session in another database (${database}) cannot be shown`,
} satisfies Record<RefusalKind, (...details: string[]) => string>;

/** The answer for what the engine cannot show truthfully: its kind, in words for people. */
function notExpressible<K extends RefusalKind>(
  kind: K,
  ...details: Parameters<(typeof refusalWords)[K]>
): { ok: false; notExpressible: Refusal } {
  const words = refusalWords[kind] as (...details: string[]) => string;
  return { ok: false, notExpressible: { kind, reason: words(...details) } };
}

/** How the reader knows a session: its application_name and its pid. */
const whose = (s: SessionRecord) => `${s.applicationName} (pid ${s.pid})`;

/** The session layer over one backend; every call runs alone, in the order it came. */
export function makeSessionLayer(backend: Backend, options: LayerOptions = {}) {
  const { clock = () => new Date(), watch, stuck = new Set<number>() } = options;
  /** The time of the call running now: one instant per call, so a replay can give it again. */
  let callTime = clock();
  const now = () => callTime;
  /** Reader statements sent so far; the same calls replayed number them the same. */
  let statementSeq = 0;
  let replaying = false;
  const sessions = new Map<number, SessionRecord>();
  let nextId = 1;
  let resident: SessionRecord | null = null; // whose transaction is open in the backend
  let loaded: SessionRecord | null = null; // whose settings the backend has
  let queue: Promise<unknown> = Promise.resolve();
  let parkSeq = 0;
  const waiters: Waiter[] = [];
  /**
   * Statements in flight: a `SELECT pg_sleep(n)` while other sessions are open is not
   * slept in the backend (that would hold up every session) but stood in for by a parked
   * transaction that pins the horizon where its snapshot would, until its time is up.
   */
  const sleepers = new Map<
    number,
    { s: SessionRecord; sql: string; until: number; answer: (reply: QueryReply) => void }
  >();
  /** Session-level advisory locks: which session holds each key, and how many times. */
  const advisoryHeld = new Map<string, { holder: SessionRecord; count: number }>();
  let slots: Slots | undefined;
  /** The database's oid, for advisory lock tags; read when first needed. */
  let databaseOid: string | undefined;

  async function readSlots(): Promise<Slots> {
    const [read] = await backend.exec(
      "SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int, current_setting('reserved_connections')::int",
    );
    const [max, superuserReserved, reserved] = read!.rows[0]!.map(Number);
    return { max: max!, superuserReserved: superuserReserved!, reserved: reserved! };
  }
  /** Sessions the server ended, with what their client reads next. */
  const ended = new Map<number, PgErrorFields>();

  /** What `serial` needs to journal a call: the call, its caller's tag, a replayed time. */
  type Journaled = [call?: LayerCall, tag?: number, at?: Date];

  /**
   * Runs `fn` after every call before it. A call that changes state is journaled once it
   * has run, with its time and `tag`; `at` replays a recorded time.
   */
  function serial<T>(fn: () => Promise<T>, call?: LayerCall, tag?: number, at?: Date): Promise<T> {
    const run = async () => {
      callTime = at ?? clock();
      try {
        await expire();
        return await fn();
      } finally {
        if (call && !replaying) watch?.journal({ call, at: callTime.toISOString(), tag });
      }
    };
    const next = queue.then(run, run);
    queue = next.catch(() => {});
    return next;
  }

  function get(id: number): SessionRecord {
    const s = sessions.get(id);
    if (!s) throw new Error(`session ${id} is not open`);
    return s;
  }

  function setState(s: SessionRecord, state: SessionStateName): void {
    if (s.state !== state) s.stateChange = now();
    s.state = state;
  }

  /** Sets the resident's transaction aside so another session can use the backend. */
  async function setAside(r: SessionRecord): Promise<void> {
    const holding = r.holding;
    resident = null;
    if (holding.kind !== 'resident') return;
    if (r.state === 'idle in transaction (aborted)') {
      await backend.exec('ROLLBACK');
      r.holding = { kind: 'failed' };
      return;
    }
    const [assigned] = await backend.exec('SELECT pg_current_xact_id_if_assigned()::text');
    let xid = assigned!.rows[0]![0];
    let emulatedSnapshot = false;
    if (xid === null) {
      const [cursors] = await backend.exec('SELECT count(*) FROM pg_cursors');
      const holdsSnapshot =
        cursors!.rows[0]![0] !== '0' ||
        (holding.isolation !== 'read committed' && holding.snapshotTaken) ||
        holding.portalSnapshot === true;
      // A lock stronger than a reader's (LOCK TABLE, an advisory lock) must be kept too.
      const [locks] = await backend.exec(
        `SELECT count(*) FROM pg_locks WHERE pid = pg_catalog.pg_backend_pid()
            AND locktype IN ('relation', 'advisory', 'object') AND mode <> 'AccessShareLock'
            AND (locktype <> 'advisory' OR $1)`,
        // Session-level advisory locks are the backend's, not this transaction's: while
        // any are held, advisory locks in pg_locks say nothing about the resident.
        [advisoryHeld.size === 0],
      );
      if (!holdsSnapshot && locks!.rows[0]![0] === '0') {
        await backend.exec('ROLLBACK');
        r.holding = { kind: 'released' };
        return;
      }
      // No other session ran since the snapshot was taken, so the next XID is the one
      // the snapshot's horizon stood at: taking it now pins the horizon in the same place.
      const [taken] = await backend.exec('SELECT pg_current_xact_id()::text');
      xid = taken!.rows[0]![0]!;
      emulatedSnapshot = true;
    }
    const gid = `seat-ledger:${r.id}:${++parkSeq}`;
    const reply = await backend.run(`PREPARE TRANSACTION '${gid}'`);
    r.holding = reply.error
      ? {
          kind: 'lost',
          reason: `PREPARE TRANSACTION failed (${reply.error.message}), so PostgreSQL rolled it back`,
        }
      : { kind: 'parked', gid, xid, emulatedSnapshot, isolation: holding.isolation };
  }

  /** Loads `s`'s session-level settings into the backend, saving the previous owner's. */
  async function loadSettings(s: SessionRecord): Promise<void> {
    if (loaded === s) return;
    if (loaded?.settingsTouched) {
      loaded.settingsTouched = false;
      const [saved] = await backend.exec(
        // pg_settings does not list the role (GUC_NO_SHOW_ALL), so it is read on its own.
        `SELECT name, current_setting(name) FROM pg_settings WHERE source = 'session'
         UNION ALL SELECT 'role', current_setting('role') WHERE current_setting('role') <> 'none'`,
      );
      loaded.settings = saved!.rows
        .filter(([name]) => !layerSettings.has(name!))
        .map(([name, value]) => [name!, value!]);
    }
    // With no owner, the backend's settings are its defaults already (a fresh start, or
    // DISCARD ALL after the last owner closed).
    // RESET ALL leaves the role alone (GUC_NO_RESET_ALL), so that is reset on its own.
    if (loaded) await backend.exec('RESET ALL; RESET ROLE');
    // sim.pid is what pg_backend_pid() answers (sim-schema.ts): always this session's.
    await backend.exec('SELECT set_config(key, value, false) FROM jsonb_each_text($1)', [
      { ...Object.fromEntries(s.settings), 'sim.pid': String(s.pid) },
    ]);
    // Prepared statements too: the last owner's go, this session's are made again.
    if (loaded?.prepared.size) await backend.exec('DEALLOCATE ALL');
    for (const { statement } of s.prepared.values()) await backend.run(statement);
    loaded = s;
  }

  /** Makes the backend `s`'s: sets the resident aside, loads settings, reopens `s`'s transaction. */
  async function enter(s: SessionRecord): Promise<void> {
    if (resident && resident !== s) await setAside(resident);
    await rollBackSpentStandIns();
    await loadSettings(s);
    if (s.holding.kind === 'released') {
      await backend.exec('BEGIN ISOLATION LEVEL READ COMMITTED');
      s.holding = { kind: 'resident', isolation: 'read committed', snapshotTaken: false };
    } else if (s.holding.kind === 'failed') {
      // Recreate the failed state, so the next statement gets PostgreSQL's own answer.
      await backend.exec('BEGIN');
      await backend.run("DO $$BEGIN RAISE EXCEPTION 'recreating a failed transaction'; END$$");
      s.holding = { kind: 'resident', isolation: 'read committed', snapshotTaken: false };
      s.status = 'E';
    }
    if (s.holding.kind === 'resident') resident = s;
  }

  /** Updates `s` from the backend's transaction status after its statement. */
  async function settle(
    s: SessionRecord,
    reply: BackendReply,
    sql: string,
    extended: boolean,
  ): Promise<void> {
    s.status = reply.status;
    if (reply.status === 'I') {
      s.holding = { kind: 'none' };
      s.xactStart = null;
      setState(s, 'idle');
      if (resident === s) resident = null;
      return;
    }
    let isolation = 'read committed';
    if (reply.status === 'T') {
      // The session's timeouts, in ms, as its settings stand (SET may have changed them).
      // current_setting shows them with a unit (`300ms`, `5min`, `0`), which reads as an
      // interval; the pg_settings view would build a row for every setting, each time.
      const [read] = await backend.exec(
        `SELECT current_setting('transaction_isolation'),
                extract(epoch FROM current_setting('idle_in_transaction_session_timeout')::interval) * 1000,
                extract(epoch FROM current_setting('transaction_timeout')::interval) * 1000`,
      );
      const [level, idle, xact] = read!.rows[0]!;
      isolation = level!;
      s.timeouts = { idleMs: Number(idle), transactionMs: Number(xact) };
    }
    if (s.holding.kind !== 'resident') {
      s.holding = { kind: 'resident', isolation, snapshotTaken: false };
      s.xactStart = s.queryStart;
    }
    const snapshot = takesSnapshot(sql);
    if (snapshot) s.holding.snapshotTaken = true;
    s.holding.portalSnapshot = extended && snapshot;
    resident = s;
    setState(s, reply.status === 'E' ? 'idle in transaction (aborted)' : 'idle in transaction');
  }

  /** The session table as `sim.sessions()` reads it, with `current` as the querying one. */
  function sessionsJson(current: SessionRecord): string {
    /**
     * A statement that waits on a row has taken an XID on a server (heap_update and
     * heap_lock_tuple are handed one); its snapshot's stand-in took one as the wait began.
     */
    const rowWaitXid = (r: SessionRecord) =>
      r.waitEvent === 'transactionid'
        ? (waiters.find((w) => w.s === r)?.standIn?.gid ?? null)
        : null;
    return JSON.stringify(
      [...sessions.values()].map((r) => ({
        pid: r.pid,
        usename: r.role,
        application_name: r.applicationName,
        backend_start: r.backendStart.toISOString(),
        xact_start: r.xactStart?.toISOString() ?? null,
        query_start: r.queryStart?.toISOString() ?? null,
        state_change: r.stateChange.toISOString(),
        // A server's idle backend waits for its client: Client/ClientRead.
        wait_event_type: r.state.startsWith('idle') ? 'Client' : r.waitEventType,
        wait_event: r.state.startsWith('idle') ? 'ClientRead' : r.waitEvent,
        state: r.state,
        query: r.query,
        gid: r.holding.kind === 'parked' ? r.holding.gid : rowWaitXid(r),
        emulated: r.holding.kind === 'parked' && r.holding.emulatedSnapshot,
        is_current: r === current,
        blocked_by: r.blockedBy?.pid ?? null,
        snapshot_xmin: r.waitXmin,
      })),
    );
  }

  /** Reads and clears the signals `sim.pg_cancel_backend` and friends recorded. */
  async function takeSignals(): Promise<{ kind: string; pid: number }[]> {
    const [taken] = await backend.exec(
      "SELECT current_setting('sim.signals', true), set_config('sim.signals', '', false)",
    );
    return (taken!.rows[0]![0] ?? '')
      .split(',')
      .filter(Boolean)
      .map((signal) => {
        const [kind, pid] = signal.split(':');
        return { kind: kind!, pid: Number(pid) };
      });
  }

  let timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Ends sessions whose idle_in_transaction_session_timeout or transaction_timeout ran
   * out, with the FATAL a server sends (ProcessInterrupts in src/backend/tcop/postgres.c),
   * then sets a timer for the next deadline so it also happens while nothing else runs.
   */
  async function expire(): Promise<void> {
    const at = now().getTime();
    let next = Infinity;
    for (const r of [...sessions.values()]) {
      const idleSince = r.state.startsWith('idle in transaction') ? r.stateChange.getTime() : null;
      const idleEnds =
        r.timeouts.idleMs && idleSince !== null ? idleSince + r.timeouts.idleMs : Infinity;
      const xactEnds =
        r.timeouts.transactionMs && r.xactStart
          ? r.xactStart.getTime() + r.timeouts.transactionMs
          : Infinity;
      if (at >= xactEnds) {
        await terminate(r, '25P04', 'terminating connection due to transaction timeout');
      } else if (at >= idleEnds) {
        await terminate(r, '25P03', 'terminating connection due to idle-in-transaction timeout');
      } else next = Math.min(next, idleEnds, xactEnds);
    }
    for (const sleeper of [...sleepers.values()]) {
      if (at >= sleeper.until) await wake(sleeper.s);
      else next = Math.min(next, sleeper.until);
    }
    for (const waiter of [...waiters]) {
      if (waiter.deadlockCheckAt === null || !waiters.includes(waiter)) continue;
      if (at >= waiter.deadlockCheckAt) {
        waiter.deadlockCheckAt = null;
        const cycle = deadlockCycle(waiter);
        if (cycle) await breakDeadlock(cycle);
      } else next = Math.min(next, waiter.deadlockCheckAt);
    }
    clearTimeout(timer);
    if (next !== Infinity && !replaying) {
      const tick: LayerCall = { method: 'tick', args: [] };
      timer = setTimeout(() => void serial(async () => {}, tick), Math.max(0, next - at) + 1);
      (timer as { unref?: () => void }).unref?.();
    }
  }

  /** Ends `r` as the server would on a FATAL; a statement it has waiting gets the FATAL. */
  async function terminate(r: SessionRecord, code: string, message: string): Promise<void> {
    const fatal = { code, severity: 'FATAL', message };
    const waiting = waiters.find((w) => w.s === r);
    if (waiting) await removeWaiter(waiting);
    const waiter = waiting ?? sleepers.get(r.id);
    sleepers.delete(r.id);
    await end(r, fatal);
    if (waiter) {
      ended.delete(r.id);
      waiter.answer({ ok: false, error: fatal, partial: { results: [], notices: [] } });
    }
    await wakeWaiters();
  }

  /** Rolls back whatever transaction `r` has, wherever it is, and forgets the session. */
  async function end(r: SessionRecord, why: PgErrorFields): Promise<void> {
    sessions.delete(r.id);
    const waiting = waiters.find((w) => w.s === r);
    if (waiting) await removeWaiter(waiting);
    noteAdvisory(r, [{ fn: 'unlock_all', key: '' }]);
    ended.set(r.id, why);
    if (resident === r) {
      await backend.exec('ROLLBACK');
      resident = null;
    }
    if (r.holding.kind === 'parked') await rollbackPrepared(r.holding.gid);
    if (loaded === r) {
      // DISCARD ALL drops temp tables, settings, prepared statements and session
      // advisory locks, as a backend's exit does.
      await backend.exec('DISCARD ALL');
      loaded = null;
    }
  }

  /** Rolls back prepared transaction `gid`, outside any open one, as PostgreSQL requires. */
  async function rollbackPrepared(gid: string): Promise<void> {
    if (resident) await setAside(resident);
    const reply = await asSuperuser(`ROLLBACK PREPARED '${gid}'`);
    if (reply.error) throw new Error(`ROLLBACK PREPARED: ${reply.error.message}`);
  }

  /**
   * Stand-ins whose wait is over. Rolling one back needs a backend with no transaction
   * open, and the resident's must not be set aside for it (a session that cancels a wait
   * from inside its own transaction goes on with it), so it waits for the next moment
   * the backend is free. It holds no lock, and nothing shows it meanwhile.
   */
  const spentStandIns: string[] = [];

  async function rollBackSpentStandIns(): Promise<void> {
    while (!resident && spentStandIns.length > 0) await rollbackPrepared(spentStandIns.shift()!);
  }

  /** Takes `w` off the list of waits; the stand-in for its snapshot is spent. */
  async function removeWaiter(w: Waiter): Promise<void> {
    waiters.splice(waiters.indexOf(w), 1);
    if (w.standIn) spentStandIns.push(w.standIn.gid);
    w.standIn = undefined;
    await rollBackSpentStandIns();
  }

  /** Clears what `s` showed while its statement waited (or slept). */
  function stopWaiting(s: SessionRecord): void {
    s.blockedBy = null;
    s.waitEventType = null;
    s.waitEvent = null;
    s.waitByWatchdog = false;
    s.waitXmin = null;
  }

  /**
   * Cancels `r`'s statement if it is waiting, as a server's cancel would: the statement
   * fails with 57014, and a transaction block it was in is aborted.
   */
  async function cancelWait(r: SessionRecord): Promise<boolean> {
    if (sleepers.has(r.id)) {
      await wake(r, 'cancel');
      return true;
    }
    return failWait(r, cancelled);
  }

  /**
   * Fails `r`'s waiting statement with `reply`'s error. As on a server, a transaction
   * block it was in is aborted and gives up its locks (a parked one rolls back), and the
   * waits those locks held up are tried again.
   */
  async function failWait(r: SessionRecord, reply: QueryReply): Promise<boolean> {
    const waiter = waiters.find((w) => w.s === r);
    if (!waiter) return false;
    await removeWaiter(waiter);
    stopWaiting(r);
    if (resident === r) await setAside(r);
    const holding = r.holding;
    if (holding.kind === 'parked') await rollbackPrepared(holding.gid);
    if (holding.kind !== 'none') r.holding = { kind: 'failed' };
    setState(r, r.holding.kind === 'failed' ? 'idle in transaction (aborted)' : 'idle');
    waiter.answer(reply);
    if (holding.kind === 'parked') await wakeWaiters();
    return true;
  }

  /** Carries out pg_cancel_backend and pg_terminate_backend once the statement ended. */
  async function carryOut(signals: { kind: string; pid: number }[]): Promise<void> {
    for (const { kind, pid } of signals) {
      const target = [...sessions.values()].find((r) => r.pid === pid);
      if (kind === 'cancel' && target) await cancelWait(target);
      if (kind === 'terminate' && target) {
        // The FATAL a client reads when its backend is terminated (ProcessInterrupts).
        await terminate(target, '57P01', 'terminating connection due to administrator command');
      }
    }
  }

  /**
   * Runs the layer's `sql` as the superuser the backend logged in as, whatever role the
   * loaded session has: only the role that prepared a transaction, or a superuser, may end
   * it (FinishPreparedTransaction in src/backend/access/transam/twophase.c), and a parked
   * transaction may have been prepared under another session's role.
   */
  async function asSuperuser(sql: string): Promise<BackendReply> {
    const [role] = await backend.exec("SELECT current_setting('role')");
    const current = role!.rows[0]![0]!;
    if (current === 'none') return backend.run(sql);
    await backend.exec('RESET ROLE');
    try {
      return await backend.run(sql);
    } finally {
      await backend.exec("SELECT set_config('role', $1, false)", [current]);
    }
  }

  /** Runs COMMIT or ROLLBACK for a parked session as COMMIT/ROLLBACK PREPARED. */
  async function finishParked(
    s: SessionRecord,
    how: 'commit' | 'rollback',
    gid: string,
  ): Promise<QueryReply> {
    if (resident) await setAside(resident);
    const reply = await asSuperuser(`${how.toUpperCase()} PREPARED '${gid}'`);
    if (reply.error) return { ok: false, error: reply.error, partial: reply };
    s.holding = { kind: 'none' };
    s.xactStart = null;
    setState(s, 'idle');
    // A server answers the client's COMMIT or ROLLBACK with that tag.
    const command = how === 'commit' ? 'COMMIT' : 'ROLLBACK';
    return {
      ok: true,
      result: {
        results: [{ command, rowCount: null, fields: [], rows: [] }],
        notices: reply.notices,
      },
    };
  }

  /**
   * The relation locks of each parked transaction, by gid. A prepared transaction's locks
   * never change, and nothing can rename or drop a table it has locked (that would need a
   * conflicting lock), so they are read once per parked transaction.
   */
  const parkedLocksByGid = new Map<string, ParkedLock[]>();

  /** Locks that parked transactions hold on relations, with their holders. */
  async function parkedRelationLocks(): Promise<(ParkedLock & { holder: SessionRecord })[]> {
    const byGid = new Map(
      [...sessions.values()].flatMap((r) =>
        r.holding.kind === 'parked' ? [[r.holding.gid, r] as const] : [],
      ),
    );
    for (const gid of parkedLocksByGid.keys()) if (!byGid.has(gid)) parkedLocksByGid.delete(gid);
    if ([...byGid.keys()].some((gid) => !parkedLocksByGid.has(gid))) {
      const [locks] = await backend.exec(`
        WITH parked AS (
          SELECT l.virtualtransaction, p.gid
            FROM pg_locks l JOIN pg_prepared_xacts p
              ON l.locktype = 'transactionid' AND l.transactionid = p.transaction)
        SELECT parked.gid, c.relname, l.mode, format('relation %s of database %s', l.relation, l.database)
          FROM pg_locks l JOIN parked USING (virtualtransaction)
          JOIN pg_class c ON c.oid = l.relation
         WHERE l.locktype = 'relation'`);
      for (const gid of byGid.keys()) parkedLocksByGid.set(gid, []);
      for (const [gid, relname, mode, tag] of locks!.rows) {
        parkedLocksByGid.get(gid!)?.push({ relname: relname!, mode: mode as LockMode, tag: tag! });
      }
    }
    return [...byGid].flatMap(([gid, holder]) =>
      (parkedLocksByGid.get(gid) ?? []).map((lock) => ({ holder, ...lock })),
    );
  }

  /** The parked session holding XID `xid`, if any. */
  function parkedByXid(xid: string): SessionRecord | undefined {
    return [...sessions.values()].find(
      (r) => r.holding.kind === 'parked' && !r.holding.emulatedSnapshot && r.holding.xid === xid,
    );
  }

  /** Does `s` hold an XID in the backend right now? */
  async function residentHasXid(s: SessionRecord): Promise<boolean> {
    if (resident !== s) return false;
    const [assigned] = await backend.exec('SELECT pg_current_xact_id_if_assigned() IS NOT NULL');
    return assigned!.rows[0]![0] === 't';
  }

  /**
   * Sends a reader's statement, numbered for the watchdog. A number an earlier backend
   * never answered is not sent again: the caller treats it as a wait.
   */
  async function runReader(
    s: SessionRecord,
    sql: string,
    params?: unknown[],
  ): Promise<BackendReply | 'stuck'> {
    const seq = ++statementSeq;
    if (stuck.has(seq)) return 'stuck';
    if (replaying || !watch) return backend.run(sql, params);
    // Only a lock held by a parked transaction can make PGlite's one backend wait; a
    // stand-in for a snapshot or a sleeping statement holds none (unknown counts as some).
    const guarded = [...sessions.values()].some(
      (r) => r.holding.kind === 'parked' && (parkedLocksByGid.get(r.holding.gid)?.length ?? 1) > 0,
    );
    watch.statement({ seq, sessionId: s.id, guarded, done: false });
    try {
      return await backend.run(sql, params);
    } finally {
      watch.statement({ seq, sessionId: s.id, guarded, done: true });
    }
  }

  /** The parked session most likely holding what `sql` waits for: one with row locks on a table it names. */
  async function likelyHolder(sql: string): Promise<SessionRecord | null> {
    const locks = await parkedRelationLocks();
    return locks.find((l) => locksRows(l.mode) && mentions(sql, l.relname))?.holder ?? null;
  }

  /**
   * Decides whether `sql`, sent now by `s`, would wait on a parked transaction, asking
   * PostgreSQL: pg_locks for table locks, the xmax of the target rows for UPDATE and
   * DELETE, a NOWAIT probe for SELECT … FOR UPDATE/SHARE. A probe that succeeds has
   * done the statement's work, so its reply is returned as the statement's own.
   */
  async function check(
    s: SessionRecord,
    sql: string,
    params?: unknown[],
  ): Promise<
    | { verdict: 'free' }
    | { verdict: 'done'; reply: BackendReply }
    | {
        verdict: 'waits';
        holder: SessionRecord | null;
        event: 'relation' | 'transactionid';
        watchdog?: boolean;
        /** The lock, as a deadlock report names it, when it is not the holder's XID. */
        lock?: string;
      }
    | { verdict: 'unknown'; holder: SessionRecord }
  > {
    if (![...sessions.values()].some((r) => r.holding.kind === 'parked'))
      return { verdict: 'free' };
    const locks = await parkedRelationLocks();
    const statements = splitStatements(sql).map((st) => st.sql);
    let probe: { holder: SessionRecord } | null = null;
    for (const statement of statements) {
      const needs = statementNeeds(statement);
      for (const lock of locks) {
        if (!mentions(statement, lock.relname)) continue;
        const rowLocks = locksRows(lock.mode);
        if (lock.holder === s) {
          // A parked session's own locks: a server never waits on them, but a NOWAIT
          // probe, sent outside its transaction, would fail on them.
          if (rowLocks && needs.rows.kind === 'lock-rows') return { verdict: 'unknown', holder: s };
          continue;
        }
        if (conflicts(needs.mode, lock.mode)) {
          const tag = `${needs.mode} on ${lock.tag}`;
          return { verdict: 'waits', holder: lock.holder, event: 'relation', lock: tag };
        }
        if (!rowLocks || needs.rows.kind === 'none') continue;
        if (needs.rows.kind === 'unchecked') return { verdict: 'unknown', holder: lock.holder };
        if (needs.rows.kind === 'lock-rows') {
          if (statements.length > 1) return { verdict: 'unknown', holder: lock.holder };
          probe = { holder: lock.holder };
          continue;
        }
        // UPDATE or DELETE: a target row whose xmax is a parked XID is locked or updated
        // by that transaction, and the statement would wait for it.
        const { table, alias, where } = needs.rows;
        await enter(s);
        const parkedXids = [...sessions.values()].flatMap((r) =>
          r.holding.kind === 'parked' && !r.holding.emulatedSnapshot && r !== s
            ? [r.holding.xid]
            : [],
        );
        const target = alias ?? table;
        // XIDs are digits, so they can stand in the text; `params` are the statement's own.
        const [found] = await backend.exec(
          `SELECT ${target}.xmax::text FROM ${table} ${alias ?? ''}
            WHERE (${where ?? 'true'}) AND ${target}.xmax::text = ANY('{${parkedXids.join(',')}}')
            LIMIT 1`,
          params,
        );
        const xid = found?.rows[0]?.[0];
        const holder = xid ? parkedByXid(xid) : undefined;
        if (holder) return { verdict: 'waits', holder, event: 'transactionid' };
      }
    }
    if (!probe) return { verdict: 'free' };
    // A NOWAIT probe, sent where it costs this session nothing it holds: in its own
    // implicit transaction when it has no XID (its open transaction is set aside and
    // reopened, as READ COMMITTED allows), else inside a savepoint of its transaction.
    const savepoint = await residentHasXid(s);
    if (!savepoint && resident) await setAside(resident);
    if (savepoint) await backend.exec('SAVEPOINT seat_ledger_probe');
    else await loadSettings(s);
    const reply = await runReader(s, withNowait(sql), params);
    const blocked = reply === 'stuck' || reply.error?.code === '55P03';
    if (savepoint) {
      await backend.exec(
        blocked
          ? 'ROLLBACK TO SAVEPOINT seat_ledger_probe; RELEASE SAVEPOINT seat_ledger_probe'
          : 'RELEASE SAVEPOINT seat_ledger_probe',
      );
    }
    if (blocked) {
      const watchdog = reply === 'stuck';
      return { verdict: 'waits', holder: probe.holder, event: 'transactionid', watchdog };
    }
    // Outside a transaction the probe was the statement itself; inside one it ran in a
    // savepoint of the session's own transaction. Either way its answer stands.
    const sessionIdle = s.holding.kind === 'none';
    if (savepoint || sessionIdle) return { verdict: 'done', reply };
    // The probe ran apart from the session's open transaction: run it there for real.
    return { verdict: 'free' };
  }

  async function runQuery(
    s: SessionRecord,
    sql: string,
    params?: unknown[],
  ): Promise<QueryReply | { wait: Promise<QueryReply> }> {
    if (changesSettings.test(sql)) s.settingsTouched = true;
    const holding = s.holding;
    // A parked transaction can only end. A statement of a READ COMMITTED one that would
    // wait still waits, as on a server, since a wait can end without the statement going
    // on: a deadlock or a cancel fails it and rolls the transaction back. Only once it
    // would run is it beyond one backend.
    let parked = false;
    if (holding.kind === 'parked') {
      const how = transactionEnd(sql);
      if (how) {
        const reply = await finishParked(s, how, holding.gid);
        await wakeWaiters();
        return reply;
      }
      if (holding.isolation !== 'read committed' || holding.emulatedSnapshot) {
        return notExpressible('parked-goes-on');
      }
      parked = true;
    }
    if (holding.kind === 'lost') {
      s.holding = { kind: 'none' };
      s.xactStart = null;
      setState(s, 'idle');
      return notExpressible('transaction-lost', holding.reason);
    }
    if (temporaryObject.test(sql) && sessions.size > 1) {
      return notExpressible('temporary-object');
    }
    if (backendWide.test(sql) && sessions.size > 1) {
      return notExpressible('backend-wide-object');
    }
    const executed = executedText(s, sql);
    const advisory = sessionAdvisoryLock.test(executed) ? advisoryCalls(executed) : [];
    if (advisory === null) {
      return notExpressible('advisory-untracked');
    }
    const taken = advisory.find(
      (c) =>
        (c.fn === 'lock' || c.fn === 'try') &&
        advisoryHeld.get(c.key)?.holder !== s &&
        advisoryHeld.has(c.key),
    );
    if (taken) {
      const holder = advisoryHeld.get(taken.key)!.holder;
      // A statement that is only this one call waits whole, and runs whole once the key
      // is free: the layer, not the backend, keeps who holds it.
      if (taken.fn === 'lock' && advisoryLockAlone.test(sql)) {
        if (resident && resident !== s) await setAside(resident);
        const held = () => {
          const h = advisoryHeld.get(taken.key);
          return h !== undefined && h.holder !== s && sessions.has(h.holder.id);
        };
        const lock = `ExclusiveLock on advisory lock ${await advisoryTag(taken.key)}`;
        return waitFor(s, sql, params, { holder, event: 'advisory', lock, held });
      }
      const kind = taken.fn === 'try' ? 'advisory-try' : 'advisory-part-way';
      return notExpressible(kind, whose(holder), taken.key);
    }
    // The resident's locks must be parked ones before the check can see them.
    if (resident && resident !== s) await setAside(resident);
    const sleep = inFlightSleep.exec(sql);
    if (sleep && s.holding.kind === 'none' && sessions.size > 1) {
      return startSleep(s, sql, Number(sleep[1]) * 1000);
    }
    // In a failed transaction every statement but its end fails at once: nothing waits.
    const failed = s.holding.kind === 'failed' || (resident === s && s.status === 'E');
    const verdict = failed ? ({ verdict: 'free' } as const) : await check(s, sql, params);
    if (verdict.verdict === 'unknown') {
      return notExpressible('wait-unchecked', whose(verdict.holder));
    }
    if (verdict.verdict === 'waits') return waitFor(s, sql, params, verdict);
    if (parked) return notExpressible('parked-goes-on');
    let reply: BackendReply;
    if (verdict.verdict === 'done') {
      reply = verdict.reply;
    } else {
      await enter(s);
      const seesSessions = readsSessions.test(sql) && s.status !== 'E';
      if (seesSessions) {
        await backend.exec("SELECT set_config('sim.sessions', $1, false)", [sessionsJson(s)]);
      }
      const sent = await runReader(s, sql, params);
      if (sent === 'stuck') {
        const holder = await likelyHolder(sql);
        return waitFor(s, sql, params, { holder, event: 'transactionid', watchdog: true });
      }
      reply = sent;
      if (seesSessions) {
        if (!reply.error) notePrepared(s, sql);
        await settle(s, reply, sql, params !== undefined);
        await carryOut(await takeSignals());
        return toReply(reply);
      }
    }
    if (!reply.error) {
      noteAdvisory(s, advisory);
      notePrepared(s, sql);
    }
    await settle(s, reply, sql, params !== undefined);
    if (advisory.some((c) => c.fn === 'unlock' || c.fn === 'unlock_all')) await wakeWaiters();
    return toReply(reply);
  }

  /** The tag of advisory lock `key` (`5` or `1,2`), as DescribeLockTag writes it. */
  async function advisoryTag(key: string): Promise<string> {
    if (databaseOid === undefined) {
      const [read] = await backend.exec(
        'SELECT oid::text FROM pg_database WHERE datname = current_database()',
      );
      databaseOid = read!.rows[0]![0]!;
    }
    // One bigint key fills fields 2 and 3 with its high and low halves and field 4 with 1;
    // two int keys fill them as they are, with 2 (SET_LOCKTAG_INT64/INT32 in lockfuncs.c).
    const [a, b] = key.split(',').map(BigInt);
    const u32 = (n: bigint) => BigInt.asUintN(32, n).toString();
    const fields = b === undefined ? [u32(a! >> 32n), u32(a!), '1'] : [u32(a!), u32(b), '2'];
    return `[${databaseOid},${fields.join(',')}]`;
  }

  /** Records the session-level advisory locks `s` took or gave back. */
  function noteAdvisory(s: SessionRecord, calls: AdvisoryCall[]): void {
    for (const { fn, key } of calls) {
      const held = advisoryHeld.get(key);
      if (fn === 'lock' || fn === 'try') {
        advisoryHeld.set(key, { holder: s, count: (held?.count ?? 0) + 1 });
      } else if (fn === 'unlock' && held?.holder === s) {
        if (--held.count === 0) advisoryHeld.delete(key);
      } else if (fn === 'unlock_all') {
        for (const [k, h] of advisoryHeld) if (h.holder === s) advisoryHeld.delete(k);
      }
    }
  }

  /**
   * Puts `s`'s `SELECT pg_sleep(n)` in flight: a parked transaction that took its XID now
   * stands in for the statement's snapshot (emulated), and the session shows as a server
   * shows a sleeping backend, until `ms` have passed (see `expire`) or it is cancelled.
   */
  async function startSleep(
    s: SessionRecord,
    sql: string,
    ms: number,
  ): Promise<{ wait: Promise<QueryReply> }> {
    await loadSettings(s);
    const { gid, xid } = await takeStandIn(s);
    s.holding = { kind: 'parked', gid, xid, emulatedSnapshot: true, isolation: 'read committed' };
    s.xactStart = now();
    s.waitEventType = 'Timeout';
    s.waitEvent = 'PgSleep';
    const until = now().getTime() + ms;
    const wait = new Promise<QueryReply>((answer) => sleepers.set(s.id, { s, sql, until, answer }));
    await expire(); // sets the timer for its end
    return { wait };
  }

  /**
   * A parked transaction that takes an XID now and holds nothing else: it pins the horizon
   * where a snapshot taken now would, for `s` (the backend must have no transaction open).
   */
  async function takeStandIn(s: SessionRecord): Promise<{ gid: string; xid: string }> {
    const gid = `seat-ledger:${s.id}:${++parkSeq}`;
    await backend.exec('BEGIN');
    const [taken] = await backend.exec('SELECT pg_current_xact_id()::text');
    await backend.exec(`PREPARE TRANSACTION '${gid}'`);
    return { gid, xid: taken!.rows[0]![0]! };
  }

  /**
   * Ends a statement in flight: its stand-in rolls back, then the statement runs with no
   * time left to sleep, so its answer is PostgreSQL's own; or, cancelled, it gets 57014.
   */
  async function wake(s: SessionRecord, how: 'done' | 'cancel' = 'done'): Promise<void> {
    const sleeper = sleepers.get(s.id)!;
    sleepers.delete(s.id);
    if (s.holding.kind === 'parked') await rollbackPrepared(s.holding.gid);
    s.holding = { kind: 'none' };
    s.xactStart = null;
    stopWaiting(s);
    if (how === 'cancel') {
      setState(s, 'idle');
      sleeper.answer(cancelled);
      return;
    }
    await enter(s);
    const reply = await backend.run(sleeper.sql.replace(inFlightSleep, 'SELECT pg_sleep(0)'));
    await settle(s, reply, sleeper.sql, false);
    finishStatement(s);
    sleeper.answer(toReply(reply));
  }

  /** Makes `s` wait for `holder` (any parked transaction when null) to end. */
  async function waitFor(
    s: SessionRecord,
    sql: string,
    params: unknown[] | undefined,
    wait: {
      holder: SessionRecord | null;
      event: string;
      watchdog?: boolean;
      lock?: string;
      held?: () => boolean;
    },
  ): Promise<QueryReply | { wait: Promise<QueryReply> }> {
    const { holder } = wait;
    const readCommitted = s.holding.kind === 'resident' && s.holding.isolation === 'read committed';
    if (!readCommitted && (await residentHasXid(s))) {
      return notExpressible('wait-holding-xid', holder ? whose(holder) : 'a parked transaction');
    }
    s.blockedBy = holder;
    s.waitEventType = 'Lock';
    s.waitEvent = wait.event;
    s.waitByWatchdog = wait.watchdog === true;
    // The snapshot the waiting statement took: outside a transaction or in READ COMMITTED
    // a fresh one, in REPEATABLE READ the transaction's (PortalStart takes it first).
    await loadSettings(s);
    const [read] = await backend.exec(
      `SELECT pg_snapshot_xmin(pg_current_snapshot())::text,
              extract(epoch FROM current_setting('deadlock_timeout')::interval) * 1000`,
    );
    const [xmin, deadlockMs] = read!.rows[0]!;
    s.waitXmin = xmin ?? null;
    // A READ COMMITTED transaction is set aside: parked when it holds an XID (it still
    // waits: the wait may end in a deadlock or a cancel, see runQuery), else closed. The
    // waiting statement holds its snapshot, which on a server pins the horizon; a parked
    // transaction that takes an XID now stands in for it (emulated), as for one in flight.
    if (resident === s && readCommitted) await setAside(s);
    let standIn: Waiter['standIn'];
    if (s.holding.kind === 'none' || s.holding.kind === 'released') {
      if (resident) await setAside(resident);
      standIn = await takeStandIn(s);
    }
    const held =
      wait.held ??
      (() => holder !== null && holder.holding.kind === 'parked' && sessions.has(holder.id));
    // A wait on a row is a wait on the transaction that holds it (XactLockTableWait).
    const lock =
      wait.lock ??
      (holder?.holding.kind === 'parked' ? `ShareLock on transaction ${holder.holding.xid}` : '');
    const deadlockCheckAt = now().getTime() + Number(deadlockMs);
    const waiter = (answer: (reply: QueryReply) => void): Waiter => ({
      s,
      sql,
      params,
      answer,
      held,
      lock,
      deadlockCheckAt,
      standIn,
    });
    const reply = new Promise<QueryReply>((answer) => waiters.push(waiter(answer)));
    await expire(); // sets the timer for its deadlock check
    return { wait: reply };
  }

  /**
   * The waits that lead from `w` back to its own session, `w` first, when its statement
   * is part of a deadlock; null when it is not.
   */
  function deadlockCycle(w: Waiter): Waiter[] | null {
    const cycle = [w];
    for (let holder = w.s.blockedBy; holder && cycle.every((c) => c.held());) {
      if (holder === w.s) return cycle;
      const next = waiters.find((x) => x.s === holder);
      if (!next || cycle.includes(next)) return null;
      cycle.push(next);
      holder = next.s.blockedBy;
    }
    return null;
  }

  /**
   * Ends a deadlock as the server whose check found it does (DeadLockReport in
   * src/backend/storage/lmgr/deadlock.c): the statement of the session that checked
   * fails with 40P01, naming every wait in the cycle.
   */
  async function breakDeadlock(cycle: Waiter[]): Promise<void> {
    const detail = cycle
      .map(
        (w, i) =>
          `Process ${w.s.pid} waits for ${w.lock}; blocked by process ${cycle[(i + 1) % cycle.length]!.s.pid}.`,
      )
      .join('\n');
    await failWait(cycle[0]!.s, {
      ok: false,
      error: {
        code: '40P01',
        severity: 'ERROR',
        message: 'deadlock detected',
        detail,
        hint: 'See server log for query details.',
      },
      partial: { results: [], notices: [] },
    });
  }

  function toReply(reply: BackendReply): QueryReply {
    const partial = { results: reply.results, notices: reply.notices };
    return reply.error ? { ok: false, error: reply.error, partial } : { ok: true, result: partial };
  }

  /** Retries waiting statements, oldest first, after a parked transaction ended. */
  async function wakeWaiters(): Promise<void> {
    for (const waiter of [...waiters]) {
      const { s, sql, params, answer } = waiter;
      if (!sessions.has(s.id) || waiter.held()) continue;
      await removeWaiter(waiter);
      stopWaiting(s);
      const outcome = await runQuery(s, sql, params);
      if ('wait' in outcome) outcome.wait.then(answer);
      else {
        finishStatement(s);
        answer(outcome);
      }
    }
  }

  /** The state a session shows once its statement has an answer. */
  function finishStatement(s: SessionRecord): void {
    if (s.state === 'active') setState(s, s.xactStart ? 'idle in transaction' : 'idle');
  }

  /** Opens a session; nothing reaches the backend until it runs a statement. */
  function openSession(
    { applicationName = 'seat-ledger', role = 'superuser', database = 'postgres' }: SessionOptions,
    journal: Journaled,
  ): Promise<OpenReply> {
    return serial(
      async () => {
        if (database !== 'postgres') {
          return notExpressible('other-database', database);
        }
        slots ??= await readSlots();
        const refusal = seatRefusal(sessions.size, role === 'superuser', slots);
        if (refusal) return { ok: false as const, error: refusal };
        const id = nextId++;
        const record: SessionRecord = {
          id,
          pid: 40000 + id, // synthetic, in the range a server's backends usually get
          applicationName,
          // The backend logs in as the superuser; an ordinary session runs as `app` by its
          // `role` setting (SET ROLE), so it has app's privileges, as on a server.
          role: role === 'superuser' ? 'postgres' : 'app',
          backendStart: now(),
          state: 'idle',
          waitEventType: null,
          waitEvent: null,
          xactStart: null,
          queryStart: null,
          stateChange: now(),
          query: '',
          holding: { kind: 'none' },
          status: 'I',
          blockedBy: null,
          settingsTouched: false,
          prepared: new Map(),
          waitByWatchdog: false,
          waitXmin: null,
          timeouts: { idleMs: 0, transactionMs: 0 },
          settings: [
            ['application_name', applicationName],
            ...(role === 'superuser' ? [] : [['role', 'app'] as [string, string]]),
          ],
        };
        sessions.set(id, record);
        return { ok: true as const, id, pid: record.pid };
      },
      ...journal,
    );
  }

  /** Runs `sql` for session `id`, switching the backend to it first. */
  function query(
    id: number,
    sql: string,
    params: unknown[] | undefined,
    journal: Journaled,
  ): Promise<QueryReply> {
    return serial(
      async (): Promise<QueryReply | { wait: Promise<QueryReply> }> => {
        const why = ended.get(id);
        if (why) {
          ended.set(id, {
            code: '08003',
            severity: 'ERROR',
            message: 'the connection is closed: the server ended this session',
          });
          return { ok: false, error: why, partial: { results: [], notices: [] } };
        }
        const s = get(id);
        s.query = sql;
        s.queryStart = now();
        setState(s, 'active');
        const outcome = await runQuery(s, sql, params);
        if (!('wait' in outcome)) finishStatement(s);
        return outcome;
      },
      ...journal,
    ).then((outcome) => ('wait' in outcome ? outcome.wait : outcome));
  }

  /** Ends the session as a disconnect would: its transaction rolls back, its state goes. */
  function closeSession(id: number, journal: Journaled): Promise<void> {
    return serial(
      async () => {
        if (ended.delete(id)) return;
        await end(get(id), { code: '08003', severity: 'ERROR', message: 'the session is closed' });
        ended.delete(id);
        await wakeWaiters();
      },
      ...journal,
    );
  }

  /** Makes one journaled call, now (`at` undefined) or again at its recorded time. */
  function dispatch(call: LayerCall, tag?: number, at?: Date): Promise<unknown> {
    const journal: Journaled = [call, tag, at];
    switch (call.method) {
      case 'openSession':
        return openSession(call.args[0] ?? {}, journal);
      case 'query':
        return query(call.args[0], call.args[1], call.args[2], journal);
      case 'closeSession':
        return closeSession(call.args[0], journal);
      case 'cancel':
        return serial(() => cancelWait(get(call.args[0])), ...journal);
      case 'tick':
        return serial(async () => {}, ...journal);
    }
  }

  return {
    openSession: (options: SessionOptions = {}): Promise<OpenReply> =>
      dispatch({ method: 'openSession', args: [options] }) as Promise<OpenReply>,
    query: (id: number, sql: string, params?: unknown[]): Promise<QueryReply> =>
      dispatch({ method: 'query', args: [id, sql, params] }) as Promise<QueryReply>,
    closeSession: (id: number): Promise<void> =>
      dispatch({ method: 'closeSession', args: [id] }) as Promise<void>,
    /** Cancels session `id`'s waiting statement (the console's Cancel button). */
    cancel: (id: number): Promise<boolean> =>
      dispatch({ method: 'cancel', args: [id] }) as Promise<boolean>,
    /** Any of the calls above as data, journaled with the caller's `tag`. */
    invoke: (call: LayerCall, tag?: number): Promise<unknown> => dispatch(call, tag),

    /**
     * Makes a journal's calls again, in order and at their recorded times, with nothing
     * journaled or watched. A replayed call that is still waiting at the end answers
     * through `answer` with its tag when it completes, as the original would have.
     */
    async replay(
      entries: JournalEntry[],
      answer: (tag: number, value: unknown) => void,
    ): Promise<void> {
      replaying = true;
      try {
        for (const { call, at, tag } of entries) {
          const done = dispatch(call, tag, new Date(at));
          if (tag !== undefined)
            done.then(
              (value) => answer(tag, value),
              () => {},
            );
        }
        await serial(async () => {});
      } finally {
        replaying = false;
      }
      // Timers were not set while replaying; a tick sets them for what is still open.
      void dispatch({ method: 'tick', args: [] });
    },

    /** What the UI shows of every session: state, wait, and the XID it holds if parked. */
    list(): Promise<SessionInfo[]> {
      return serial(async () =>
        [...sessions.values()].map((s) => {
          const standIn = waiters.find((w) => w.s === s)?.standIn;
          return {
            id: s.id,
            pid: s.pid,
            applicationName: s.applicationName,
            role: s.role,
            state: s.state,
            xactStart: s.xactStart?.toISOString() ?? null,
            query: s.query,
            waitEventType: s.waitEventType,
            waitEvent: s.waitEvent,
            blockedByPid: s.blockedBy?.pid ?? null,
            parkedXid: s.holding.kind === 'parked' ? s.holding.xid : (standIn?.xid ?? null),
            emulated:
              (s.holding.kind === 'parked' && s.holding.emulatedSnapshot) || standIn !== undefined,
            watchdog: s.waitByWatchdog,
          };
        }),
      );
    },
  };
}
