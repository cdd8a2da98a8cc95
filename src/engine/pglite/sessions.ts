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
import type { PgErrorFields, QueryResult, SessionOptions } from '../types';
import type { Backend, BackendReply } from './backend';

/** A session's `state` as pg_stat_activity shows it. */
export type SessionStateName =
  'active' | 'idle' | 'idle in transaction' | 'idle in transaction (aborted)';

/** Where a session's open transaction is while other sessions use the backend. */
export type Holding =
  | { kind: 'none' }
  | { kind: 'resident'; isolation: string; snapshotTaken: boolean }
  | { kind: 'released' }
  | { kind: 'failed' }
  | { kind: 'parked'; gid: string; xid: string; emulatedSnapshot: boolean }
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
  /** Session-level settings, saved while another session's are loaded in the backend. */
  settings: [name: string, value: string][];
}

/** The answer to one query as plain data: results, or an error with what came before it. */
export type QueryReply =
  { ok: true; result: QueryResult } | { ok: false; error: PgErrorFields; partial: QueryResult };

/** The answer to opening a session: its ids, or the FATAL a server sends instead. */
export type OpenReply = { ok: true; id: number; pid: number } | { ok: false; error: PgErrorFields };

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
const readsSessions = /pg_stat_activity|pg_backend_pid|pg_cancel_backend|pg_terminate_backend/i;

/** Settings that belong to the layer's bookkeeping, never saved with a session. */
const layerSettings = new Set(['sim.sessions', 'sim.signals']);

/** Statements that do not take a snapshot in a REPEATABLE READ transaction. */
const noSnapshot = /^\s*(begin|start|set|savepoint|release|show|reset)\b/i;

const limitCode = '0A000'; // feature_not_supported: what the engine cannot do, not an SQL error

/** An error from the session layer itself, worded so a reader knows it is a limit. */
function limitError(message: string, hint?: string): QueryReply {
  return {
    ok: false,
    error: { code: limitCode, severity: 'ERROR', message, ...(hint ? { hint } : {}) },
    partial: { results: [], notices: [] },
  };
}

/** The session layer over one backend; every call runs alone, in the order it came. */
export function makeSessionLayer(backend: Backend, now: () => Date = () => new Date()) {
  const sessions = new Map<number, SessionRecord>();
  let nextId = 1;
  let resident: SessionRecord | null = null; // whose transaction is open in the backend
  let loaded: SessionRecord | null = null; // whose settings the backend has
  let queue: Promise<unknown> = Promise.resolve();
  let parkSeq = 0;
  let slots: Slots | undefined;

  async function readSlots(): Promise<Slots> {
    const [read] = await backend.exec(
      "SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int, current_setting('reserved_connections')::int",
    );
    const [max, superuserReserved, reserved] = read!.rows[0]!.map(Number);
    return { max: max!, superuserReserved: superuserReserved!, reserved: reserved! };
  }
  /** Sessions the server ended, with what their client reads next. */
  const ended = new Map<number, PgErrorFields>();

  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = queue.then(fn, fn);
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
        (holding.isolation !== 'read committed' && holding.snapshotTaken);
      if (!holdsSnapshot) {
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
      : { kind: 'parked', gid, xid, emulatedSnapshot };
  }

  /** Loads `s`'s session-level settings into the backend, saving the previous owner's. */
  async function loadSettings(s: SessionRecord): Promise<void> {
    if (loaded === s) return;
    if (loaded) {
      const [saved] = await backend.exec(
        "SELECT name, current_setting(name) FROM pg_settings WHERE source = 'session'",
      );
      loaded.settings = saved!.rows
        .filter(([name]) => !layerSettings.has(name!))
        .map(([name, value]) => [name!, value!]);
    }
    await backend.exec('RESET ALL');
    if (s.settings.length > 0) {
      await backend.exec('SELECT set_config(key, value, false) FROM jsonb_each_text($1)', [
        Object.fromEntries(s.settings),
      ]);
    }
    loaded = s;
  }

  /** Makes the backend `s`'s: sets the resident aside, loads settings, reopens `s`'s transaction. */
  async function enter(s: SessionRecord): Promise<void> {
    if (resident && resident !== s) await setAside(resident);
    await loadSettings(s);
    if (s.holding.kind === 'released') {
      await backend.exec('BEGIN ISOLATION LEVEL READ COMMITTED');
      s.holding = { kind: 'resident', isolation: 'read committed', snapshotTaken: false };
    } else if (s.holding.kind === 'failed') {
      // Recreate the failed state, so the next statement gets PostgreSQL's own answer.
      await backend.exec('BEGIN');
      await backend.run("DO $$BEGIN RAISE EXCEPTION 'recreating a failed transaction'; END$$");
      s.holding = { kind: 'resident', isolation: 'read committed', snapshotTaken: false };
    }
    if (s.holding.kind === 'resident') resident = s;
  }

  /** Updates `s` from the backend's transaction status after its statement. */
  async function settle(s: SessionRecord, reply: BackendReply, sql: string): Promise<void> {
    if (reply.status === 'I') {
      s.holding = { kind: 'none' };
      s.xactStart = null;
      setState(s, 'idle');
      if (resident === s) resident = null;
      return;
    }
    if (s.holding.kind !== 'resident') {
      const [level] = await backend.exec("SELECT current_setting('transaction_isolation')");
      s.holding = { kind: 'resident', isolation: level!.rows[0]![0]!, snapshotTaken: false };
      s.xactStart = s.queryStart;
    }
    if (!noSnapshot.test(sql)) s.holding.snapshotTaken = true;
    resident = s;
    setState(s, reply.status === 'E' ? 'idle in transaction (aborted)' : 'idle in transaction');
  }

  /** The session table as `sim.sessions()` reads it, with `current` as the querying one. */
  function sessionsJson(current: SessionRecord): string {
    return JSON.stringify(
      [...sessions.values()].map((r) => ({
        pid: r.pid,
        usename: r.role,
        application_name: r.applicationName,
        backend_start: r.backendStart.toISOString(),
        xact_start: r.xactStart?.toISOString() ?? null,
        query_start: r.queryStart?.toISOString() ?? null,
        state_change: r.stateChange.toISOString(),
        wait_event_type: r.waitEventType,
        wait_event: r.waitEvent,
        state: r.state,
        query: r.query,
        gid: r.holding.kind === 'parked' ? r.holding.gid : null,
        emulated: r.holding.kind === 'parked' && r.holding.emulatedSnapshot,
        is_current: r === current,
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

  /** Rolls back whatever transaction `r` has, wherever it is, and forgets the session. */
  async function end(r: SessionRecord, why: PgErrorFields): Promise<void> {
    sessions.delete(r.id);
    ended.set(r.id, why);
    if (r.holding.kind === 'parked') await backend.exec(`ROLLBACK PREPARED '${r.holding.gid}'`);
    if (resident === r) {
      await backend.exec('ROLLBACK');
      resident = null;
    }
    if (loaded === r) {
      // DISCARD ALL drops temp tables, settings, prepared statements and session
      // advisory locks, as a backend's exit does.
      await backend.exec('DISCARD ALL');
      loaded = null;
    }
  }

  /** Carries out pg_terminate_backend (cancel has nothing to cancel: no one else runs). */
  async function carryOut(signals: { kind: string; pid: number }[]): Promise<void> {
    for (const { kind, pid } of signals) {
      const target = [...sessions.values()].find((r) => r.pid === pid);
      if (kind === 'terminate' && target) {
        // The FATAL a client reads when its backend is terminated (ProcessInterrupts in
        // src/backend/tcop/postgres.c).
        await end(target, {
          code: '57P01',
          severity: 'FATAL',
          message: 'terminating connection due to administrator command',
        });
      }
    }
  }

  /** Runs COMMIT or ROLLBACK for a parked session as COMMIT/ROLLBACK PREPARED. */
  async function finishParked(
    s: SessionRecord,
    how: 'commit' | 'rollback',
    gid: string,
  ): Promise<QueryReply> {
    if (resident) await setAside(resident);
    const reply = await backend.run(`${how.toUpperCase()} PREPARED '${gid}'`);
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

  async function runQuery(s: SessionRecord, sql: string, params?: unknown[]): Promise<QueryReply> {
    const holding = s.holding;
    if (holding.kind === 'parked') {
      const how = transactionEnd(sql);
      if (how) return finishParked(s, how, holding.gid);
      return limitError(
        'This session’s transaction is parked: the in-browser engine runs one transaction ' +
          'at a time, so it set this one aside with PREPARE TRANSACTION when another session ' +
          'needed PostgreSQL. A parked transaction can only COMMIT or ROLLBACK.',
        'End it with COMMIT or ROLLBACK; a real server would let it go on.',
      );
    }
    if (holding.kind === 'lost') {
      s.holding = { kind: 'none' };
      s.xactStart = null;
      setState(s, 'idle');
      return limitError(
        `This session’s transaction could not be set aside: ${holding.reason}. ` +
          'Its changes are gone; the session can start a new transaction.',
      );
    }
    await enter(s);
    const seesSessions = readsSessions.test(sql) && s.state !== 'idle in transaction (aborted)';
    if (seesSessions) {
      await backend.exec("SELECT set_config('sim.sessions', $1, false)", [sessionsJson(s)]);
    }
    const reply = await backend.run(sql, params);
    await settle(s, reply, sql);
    if (seesSessions) await carryOut(await takeSignals());
    const partial = { results: reply.results, notices: reply.notices };
    return reply.error ? { ok: false, error: reply.error, partial } : { ok: true, result: partial };
  }

  return {
    /** Opens a session; nothing reaches the backend until it runs a statement. */
    openSession({
      applicationName = 'seat-ledger',
      role = 'superuser',
    }: SessionOptions = {}): Promise<OpenReply> {
      return serial(async () => {
        slots ??= await readSlots();
        const refusal = seatRefusal(sessions.size, role === 'superuser', slots);
        if (refusal) return { ok: false as const, error: refusal };
        const id = nextId++;
        const record: SessionRecord = {
          id,
          pid: 40000 + id, // synthetic, in the range a server's backends usually get
          applicationName,
          // Modelled: every session runs as the superuser in the one backend; the role
          // decides its seat and what pg_stat_activity shows, not its privileges.
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
          settings: [
            ['application_name', applicationName],
            ['sim.pid', String(40000 + id)],
          ],
        };
        sessions.set(id, record);
        return { ok: true as const, id, pid: record.pid };
      });
    },

    /** Runs `sql` for session `id`, switching the backend to it first. */
    query(id: number, sql: string, params?: unknown[]): Promise<QueryReply> {
      return serial(async () => {
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
        try {
          return await runQuery(s, sql, params);
        } finally {
          if (s.state === 'active') setState(s, s.xactStart ? 'idle in transaction' : 'idle');
        }
      });
    },

    /** Ends the session as a disconnect would: its transaction rolls back, its state goes. */
    closeSession(id: number): Promise<void> {
      return serial(async () => {
        if (ended.delete(id)) return;
        await end(get(id), { code: '08003', severity: 'ERROR', message: 'the session is closed' });
        ended.delete(id);
      });
    },

    /** A copy of every session's record, for pg_stat_activity and the UI. */
    list(): Promise<SessionRecord[]> {
      return serial(async () => [...sessions.values()].map((s) => structuredClone(s)));
    },
  };
}

/** The session layer's operations. */
export type SessionLayer = ReturnType<typeof makeSessionLayer>;
