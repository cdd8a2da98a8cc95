// The one context every module of the session layer shares, and the records it keeps.
import type { SessionStateName } from '../../session-info';
import type { PgErrorFields } from '../../types';
import type { Backend, Origin, TransactionStatus } from '../backend';
import type { LockMode } from '../waits';
import type { RowWait } from './recheck';
import type { QueryReply } from './replies';
import type { Slots } from './slots';
import type { WaitedRow } from './tuple-locks';
import type { LayerWatch } from './watchdog';

/** A session's prepared statement, as the layer keeps it to make it again. */
export interface PreparedStatement {
  /** The PREPARE that made it. */
  statement: string;
  /** The statement it runs. */
  text: string;
  /** The types it returned when first prepared (pg_prepared_statements), if read. */
  resultTypes: string | null;
  /** Whether it has been made again in the backend since. */
  remade: boolean;
  /** Why it no longer answers as the server's would, once made again. */
  stale?: string;
}

/** A table a transaction read, by OID, and its name as pg_class has it. */
export interface ReadTable {
  oid: string;
  relname: string;
}

/**
 * What a transaction is besides its work: its characteristics and the statements that
 * made its transaction-local state (savepoints, SET, SET LOCAL), in order. A transaction
 * that holds nothing is closed in the backend and opened again from this (`enter`).
 */
export interface TransactionShape {
  isolation: string;
  readOnly: boolean;
  deferrable: boolean;
  /** SAVEPOINT, RELEASE, ROLLBACK TO, SET, RESET and SET LOCAL statements it ran. */
  replay: string[];
  /** Tables it read while set aside before (see the `released` holding). */
  reads: ReadTable[];
  /**
   * Its transaction_timestamp() (what now() answers in it) in ms since the epoch, read
   * when it was first set aside: the transaction it is opened again in starts at that
   * time (`Backend.atClock`), as its now() must not move.
   */
  clockMs?: number;
}

/** Where a session's open transaction is while other sessions use the backend. */
export type Holding =
  | { kind: 'none' }
  | ({
      kind: 'resident';
      snapshotTaken: boolean;
      /**
       * The last statement came over the extended protocol: on a server its finished
       * unnamed portal keeps its snapshot (backend_xmin) until the next query.
       */
      portalSnapshot?: boolean;
    } & TransactionShape)
  /**
   * Closed in the backend while it holds nothing another session must meet, but for the
   * ACCESS SHARE locks on the tables it read (`reads`), which the layer keeps for it: on a
   * server a statement that needs ACCESS EXCLUSIVE (LOCK TABLE, ALTER, DROP) waits for it.
   */
  | ({ kind: 'released' } & TransactionShape)
  | { kind: 'failed' }
  | {
      kind: 'parked';
      gid: string;
      xid: string;
      emulatedSnapshot: boolean;
      /**
       * It held locks and nothing else (no XID, no snapshot): its stand-in's XID stands for
       * nothing a server has, and holds back VACUUM where a server's would not (spent-xids.ts,
       * `horizonHeldByLocks`).
       */
      locksOnly?: true;
      /** Its isolation level: only a READ COMMITTED one may wait (see `runQuery`). */
      isolation: string;
      /** What it was before it was set aside, for when it is replayed to go on (resume.ts). */
      shape: TransactionShape;
      /**
       * With savepoints that may have taken XIDs of their own: the first XID after all of
       * its, read as it was set aside; a replay spends those (spent-xids.ts).
       */
      xidsBefore?: string;
    }
  | { kind: 'lost'; reason: string };

/**
 * Rows inserted, updated and deleted (a running total, as pg_stat_all_tables counts them)
 * in each relation a parked transaction holds a lock on (by oid), and in the catalog.
 */
export interface WriteCounts {
  relations: Record<string, string>;
  catalog: string;
}

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
  /** The XID its open transaction holds in the backend, read after each statement. */
  xid: string | null;
  /** Counts the transactions it began, so a wait can tell its holder's has ended. */
  xactSeq: number;
  /**
   * The XIDs of savepoints the layer released into its open transaction (`xactSeq`) after
   * they wrote: a statement run again undoably (recheck.ts). Rows it changed carry them.
   */
  savepointXids?: { xactSeq: number; xids: string[] };
  /**
   * The statements its open transaction ran, each with what PostgreSQL answered, so that
   * the transaction can be replayed once it is parked and must go on (resume.ts); null
   * once it ran one that cannot be replayed (its answer came from the layer, say).
   */
  xactLog: LoggedStatement[] | null;
  /** The number of the last statement it sent to the backend (`statementSeq`). */
  lastSeq?: number;
  /** The snapshot its transaction's first statement took, as `pg_current_snapshot()` text. */
  xactSnapshot: string | null;
  /**
   * What other transactions had written, by PostgreSQL's statistics, to the relations its
   * open transaction holds locks on, read when it was first parked (resume.ts, `writeCounts`).
   */
  xactWrites: WriteCounts | null;
  /** The XID its open transaction first had, once it went on as a replay (resume.ts). */
  replayedFrom: string | null;
  /** The session whose parked transaction this one waits for. */
  blockedBy: SessionRecord | null;
  /** Its wait was found by the watchdog (PGlite stopped answering), not by a check. */
  waitByWatchdog: boolean;
  /**
   * While it waits: the xmin of the snapshot its statement took, which a server shows as
   * backend_xmin for a waiting statement (read from PostgreSQL when the wait began).
   */
  waitXmin: string | null;
  /**
   * idle_in_transaction_session_timeout, transaction_timeout and idle_session_timeout in
   * ms (0: off), which timers.ts meets.
   */
  timeouts: { idleMs: number; transactionMs: number; sessionMs?: number };
  /** Its client closed it while its statement waited: it ends once that statement has. */
  closing?: boolean;
  /** It ran a statement that may set a timer the backend must not run (backend-timers.ts). */
  armsTimers?: boolean;
  /** Those timers' values, set to 0 in the backend until its next statement. */
  disarmed?: { values: [name: string, value: string][]; local: boolean } | null;
  /** Session-level settings, saved while another session's are loaded in the backend. */
  settings: [name: string, value: string][];
  /**
   * The settings a server takes from the connection itself (application_name, and the
   * role an ordinary session logs in as): what RESET goes back to.
   */
  readonly connectionSettings: [name: string, value: string][];
  /** It ran something that may have changed its settings since they were last saved. */
  settingsTouched: boolean;
  /**
   * Its session-level settings as they stood when its open transaction began, where known
   * (session-settings.ts, `noteSettingsAtBegin`); null with no transaction open, or when
   * the statement that began it changed settings too.
   */
  settingsAtBegin: [name: string, value: string][] | null;
  /**
   * Its open transaction changed session-level settings and was then set aside: the
   * backend no longer holds what a ROLLBACK would give back (`settingsAtBegin` does).
   */
  settingsSetAside: boolean;
  /**
   * The custom settings (`app.user`) it set or reset by name: pg_settings does not list
   * them (placeholders are GUC_NO_SHOW_ALL), so they are saved by these names.
   */
  customSettings: string[];
  /**
   * Its prepared statements, by name: the PREPARE that made each, and the text it runs.
   * They belong to a backend, so they are made again whenever the session gets it
   * (session-settings.ts, `remakePrepared`).
   */
  prepared: Map<string, PreparedStatement>;
  /**
   * Sequences (by OID) of which the backend had drawn values ahead for it, let go when
   * another session got the backend (sequence-caches.ts): on a server it draws from them.
   */
  readonly drawnAhead: Set<string>;
}

/** A statement of an open transaction, and its answer as `answerKey` writes it. */
export interface LoggedStatement {
  sql: string;
  params?: unknown[];
  answer: string;
  /** Its number among the statements sent to the backend (`statementSeq`). */
  seq?: number;
  /**
   * For a claim, a statement that skips or refuses locked rows (SKIP LOCKED, NOWAIT): the
   * other transactions open when it ran, its last result's columns and rows (hashed), and
   * their origins as RowDescription gave them (claims.ts).
   */
  holders?: string[];
  rows?: string;
  origins?: Origin[];
  /** A claim's rows as text (an UPDATE's or DELETE's: the keys it returned), when few. */
  claimed?: (string | null)[][];
  /**
   * What a replay runs instead of a claim whose rows others have let go since: the same
   * rows, by their keys, locked as the claim locked them (`claimByKeys` in claims.ts).
   */
  replayAs?: string;
}

/**
 * A transaction replayed to go on under a new XID, after the open transactions `passed`,
 * which it came before on a server: until one side ends, output that shows XIDs or their
 * order would differ from a server's (see `xidsHidden` in resume.ts).
 */
export interface Renumbering {
  s: SessionRecord;
  /** Its transaction's number (`SessionRecord.xactSeq`). */
  seq: number;
  was: string;
  now: string;
  passed: string[];
  /**
   * Others took XIDs after `was` before the replay took its own (committed ones too): an
   * XID it shows now comes after theirs, where on a server it came before.
   */
  skipped?: boolean;
  /**
   * A reader had seen `was` (in a deadlock's DETAIL, say): XIDs stay hidden while the
   * transaction is open, and the rows it wrote or locked carry `now` for good.
   */
  shown?: boolean;
}

/** A table lock a waiting statement asks for. */
export interface TableRequest {
  relname: string;
  mode: LockMode;
}

/** A statement waiting for a lock another session holds, and how to answer its caller. */
/**
 * A parked transaction that took an XID to stand in for a snapshot (parking.ts,
 * `takeStandIn`). `owed`: a server gave the statement an XID of its own as it began to
 * wait (a write waiting on a row), which the stand-in's plays until the wait ends; the
 * layer counts it as spent only then (spent-xids.ts).
 */
export interface StandIn {
  gid: string;
  xid: string;
  owed?: true;
}

export interface Waiter {
  s: SessionRecord;
  sql: string;
  params?: unknown[];
  answer: (reply: QueryReply) => void;
  /**
   * For a wait the watchdog found, or a VACUUM's or ANALYZE's: the catalog's write count
   * when it began (`catalogWrites`; null if it could not be read), to tell whether the
   * catalog changed before it ended.
   */
  catalogWrites?: string | null;
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
  standIn?: StandIn;
  /** For a wait on a row: what the recheck needs when the statement runs again. */
  rowWait?: RowWait;
  /**
   * The waiter holding the tuple lock it waits for, once its own holder ended: it waits on
   * until that one's wait is over (tuple-locks.ts, `rowAhead`).
   */
  behind?: Waiter;
  /** It waits on after a wait on a row, with that wait's snapshot (waiting.ts, `carriedOn`). */
  carried?: true;
  /** For a wait on a row known to it: which row, and its tuple lock's modes (tuple-locks.ts). */
  row?: WaitedRow;
  /** For a wait on a table lock: the table and mode, which later requests queue behind. */
  table?: TableRequest;
  /**
   * When the session's lock_timeout or statement_timeout ends the wait, and the error it
   * fails with (ProcessInterrupts in src/backend/tcop/postgres.c); null when neither is set.
   */
  timeout: { at: number; error: PgErrorFields } | null;
}

/** A `SELECT pg_sleep(n)` in flight, and how to answer its caller when it ends. */
export interface Sleeper {
  s: SessionRecord;
  sql: string;
  /** When its time is up (ms since the epoch, on the layer's clock). */
  until: number;
  answer: (reply: QueryReply) => void;
}

/** A relation lock a parked transaction holds. */
export interface ParkedLock {
  relname: string;
  mode: LockMode;
  /** The lock's tag as a server's deadlock report writes it (DescribeLockTag in lmgr.c). */
  tag: string;
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
  /**
   * Statements (by `seq`) the reader stopped while an earlier backend was busy with them:
   * they are answered 57014 and not sent again (stop.ts).
   */
  cancelled?: ReadonlySet<number>;
  /** When to checkpoint the journal (checkpoint.ts); tests take them sooner. */
  checkpoints?: CheckpointLimits;
}

/** Journal entries, or bytes of them, after which a checkpoint is taken (checkpoint.ts). */
export interface CheckpointLimits {
  /**
   * At the first quiet moment (journal.ts, `quietMs` with no call) at which the layer
   * allows one and no transaction is prepared.
   */
  after: { entries: number; bytes: number };
  /** Once the layer allows one, busy or not, prepared transactions or not. */
  anyway: { entries: number; bytes: number };
}

/** Everything the layer knows, shared by its modules; only the layer's calls change it. */
export interface LayerContext {
  readonly backend: Backend;
  readonly clock: () => Date;
  readonly watch: LayerWatch | undefined;
  /** See `LayerOptions.stuck`. */
  readonly stuck: ReadonlySet<number>;
  /** See `LayerOptions.cancelled`. */
  readonly cancelled: ReadonlySet<number>;
  /** See `LayerOptions.checkpoints`. */
  readonly checkpoints: CheckpointLimits;
  /** The time of the call running now: one instant per call, so a replay can give it again. */
  now: Date;
  /** Calls run one at a time, in the order they came: this is the last one queued. */
  queue: Promise<unknown>;
  /** Reader statements sent so far; the same calls replayed number them the same. */
  statementSeq: number;
  /** A journal is being replayed: nothing is journaled, watched or timed meanwhile. */
  replaying: boolean;
  readonly sessions: Map<number, SessionRecord>;
  nextId: number;
  /** Sessions the server ended, with what their client reads next. */
  readonly ended: Map<number, PgErrorFields>;
  /** Whose transaction is open in the backend. */
  resident: SessionRecord | null;
  /** Whose settings the backend has. */
  loaded: SessionRecord | null;
  /** Numbers the gids of parked transactions. */
  parkSeq: number;
  /**
   * The relation locks of each parked transaction, by gid. A prepared transaction's locks
   * never change, and nothing can rename or drop a table it has locked (that would need a
   * conflicting lock), so they are read once per parked transaction.
   */
  readonly parkedLocksByGid: Map<string, ParkedLock[]>;
  /**
   * Stand-ins whose wait is over. Rolling one back needs a backend with no transaction
   * open, and the resident's must not be set aside for it (a session that cancels a wait
   * from inside its own transaction goes on with it), so it waits for the next moment
   * the backend is free. It holds no lock, and nothing shows it meanwhile.
   */
  readonly spentStandIns: string[];
  /**
   * By session: the stand-in kept for the snapshot a REPEATABLE READ transaction's replays
   * import (resume.ts), until that transaction (`xactSeq`) ends. It holds the horizon where
   * the snapshot's xmin is, and ACCESS SHARE on the tables the transaction first read.
   */
  readonly snapshotPins: Map<number, { gid: string; xid: string; xactSeq: number }>;
  /**
   * XIDs of open transactions that a reader has seen in PostgreSQL's output: such a
   * transaction is not replayed under a new XID (resume.ts, `noteShown`).
   */
  readonly shownXids: Set<string>;
  /**
   * XIDs the layer took that a server would not have, in order (spent-xids.ts): counts of
   * XIDs across them leave them out.
   */
  readonly spentXids: bigint[];
  /** Whether the layer spent an XID whose number it could not read (spent-xids.ts). */
  xidsUncounted: boolean;
  /**
   * Whether the reader's views or functions read the session table, so that any statement
   * may (activity.ts, `noteSessionReaders`).
   */
  sessionsReadIndirectly: boolean;
  /**
   * The sessions whose statements the backend has run since it started, or `shared` once
   * more than one has (or it was restored from a checkpoint): it keeps one currval() per
   * sequence for all of them (run.ts, `sessionSequence`).
   */
  backendUsers: number | 'none' | 'shared';
  /**
   * Custom settings some session has set or reset in the backend: once defined there, a
   * placeholder answers '' to every session, where a server's other backends know none.
   */
  readonly customSettings: Set<string>;
  /** Whether some statement may have made a sequence that caches (sequence-caches.ts). */
  sequenceCaches: boolean;
  /**
   * The last reader statement sent to the backend, whose it was, and whether PostgreSQL
   * failed it (`failed` is set once it answers).
   */
  lastSent: { sessionId: number; sql: string; failed?: boolean } | null;
  /** Transactions replayed under a new XID while younger ones were open (resume.ts). */
  readonly renumbered: Renumbering[];
  /**
   * What the layer left behind (replay-traces.ts): whether PostgreSQL counted scans a
   * server never made (a replay ran statements twice, or the layer's own queries checked a
   * statement against parked transactions), and the relations a rolled-back original of a
   * replay wrote (their dead row versions), by OID.
   */
  readonly replayTraces: {
    scanned: boolean;
    written: Set<string>;
    /**
     * Tables whose rows a replay wrote after others' (by OID): `always` once those
     * committed, else the XIDs of the open transactions that wrote them.
     */
    reordered: Map<string, { always: boolean; xids: string[] }>;
  };
  readonly waiters: Waiter[];
  /**
   * Statements in flight: a `SELECT pg_sleep(n)` while other sessions are open is not
   * slept in the backend (that would hold up every session) but stood in for by a parked
   * transaction that pins the horizon where its snapshot would, until its time is up.
   */
  readonly sleepers: Map<number, Sleeper>;
  /** Session-level advisory locks: which session holds each key, and how many times. */
  readonly advisoryHeld: Map<string, { holder: SessionRecord; count: number }>;
  /**
   * Sessions that made the backend's own objects while they were alone (temporary tables,
   * cursors WITH HOLD, LISTEN) or seeded random(): what every later session would share
   * (backend-objects.ts).
   */
  readonly backendState: { madeBy: Set<SessionRecord>; seededBy: SessionRecord | null };
  /**
   * A session whose transaction could not be set aside since the statement now being run
   * began, and why: PREPARE TRANSACTION failed (a deferred constraint's check), or it had
   * failed inside a savepoint and was rolled back whole. On a server it would still be
   * open, holding its locks (run.ts refuses that statement).
   */
  lostOnPark: { r: SessionRecord; why: string } | null;
  /** Connection slots, read from the engine when the first session asks for one. */
  slots: Slots | undefined;
  /** The database's oid, for lock tags; read when first needed (`databaseOid`). */
  databaseOid: string | undefined;
  /** The timer for the next deadline (see `expire`). */
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** A fresh context over `backend`: no sessions, nothing parked. */
export function makeContext(backend: Backend, options: LayerOptions = {}): LayerContext {
  const {
    clock = () => new Date(),
    watch,
    stuck = new Set<number>(),
    cancelled = new Set<number>(),
    // A recovery replays at most a few thousand calls (seconds, not minutes; about half a
    // millisecond each in Node). A checkpoint costs the worker a few hundred ms (the dump),
    // which a busy run of calls would wait behind: so it waits for a quiet moment, unless
    // the journal has grown long.
    checkpoints = {
      after: { entries: 1000, bytes: 256 * 1024 },
      anyway: { entries: 4000, bytes: 1024 * 1024 },
    },
  } = options;
  return {
    backend,
    clock,
    watch,
    stuck,
    cancelled,
    checkpoints,
    now: clock(),
    queue: Promise.resolve(),
    statementSeq: 0,
    replaying: false,
    sessions: new Map(),
    nextId: 1,
    ended: new Map(),
    resident: null,
    loaded: null,
    parkSeq: 0,
    parkedLocksByGid: new Map(),
    spentStandIns: [],
    snapshotPins: new Map(),
    shownXids: new Set(),
    spentXids: [],
    xidsUncounted: false,
    sessionsReadIndirectly: false,
    backendUsers: 'none',
    lastSent: null,
    customSettings: new Set(),
    sequenceCaches: false,
    renumbered: [],
    replayTraces: { scanned: false, written: new Set(), reordered: new Map() },
    waiters: [],
    sleepers: new Map(),
    advisoryHeld: new Map(),
    backendState: { madeBy: new Set(), seededBy: null },
    lostOnPark: null,
    slots: undefined,
    databaseOid: undefined,
    timer: undefined,
  };
}

/** Session `id`; a call for a session that is not open is a caller's bug, so it throws. */
export function get(ctx: LayerContext, id: number): SessionRecord {
  const s = ctx.sessions.get(id);
  if (!s) throw new Error(`session ${id} is not open`);
  return s;
}

/** Sets `s`'s state, and `state_change` when the state is a new one. */
export function setState(ctx: LayerContext, s: SessionRecord, state: SessionStateName): void {
  if (s.state !== state) s.stateChange = ctx.now;
  s.state = state;
}

/** The state a session shows once its statement has an answer. */
export function finishStatement(ctx: LayerContext, s: SessionRecord): void {
  if (s.state === 'active') setState(ctx, s, s.xactStart ? 'idle in transaction' : 'idle');
}

/** Clears what `s` showed while its statement waited (or slept). */
export function stopWaiting(s: SessionRecord): void {
  s.blockedBy = null;
  s.waitEventType = null;
  s.waitEvent = null;
  s.waitByWatchdog = false;
  s.waitXmin = null;
}

/**
 * Whether a session other than `s` holds a transaction of `kind` (parked, released, …).
 * Asked before every statement, so it walks the sessions without building a list.
 */
export function anotherHolds(ctx: LayerContext, s: SessionRecord, kind: Holding['kind']): boolean {
  for (const r of ctx.sessions.values()) if (r !== s && r.holding.kind === kind) return true;
  return false;
}

/** How the reader knows a session: its application_name and its pid. */
export const whose = (s: SessionRecord) => `${s.applicationName} (pid ${s.pid})`;

/** The oid of the database the backend serves, as lock tags name it; read once. */
export async function databaseOid(ctx: LayerContext): Promise<string> {
  if (ctx.databaseOid === undefined) {
    const [read] = await ctx.backend.exec(
      'SELECT oid::pg_catalog.text FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()',
    );
    ctx.databaseOid = read!.rows[0]![0]!;
  }
  return ctx.databaseOid;
}
