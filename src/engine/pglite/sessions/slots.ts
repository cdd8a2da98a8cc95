// Connection slots: who gets a seat, by PostgreSQL 18's rules, and the record a seat starts with.
import type { PgErrorFields, SessionOptions } from '../../types';
import type { LayerContext, SessionRecord } from './context';
import { notExpressible, type OpenReply } from './replies';

/** Connection slots, read from the engine's own settings. */
export interface Slots {
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

/** The engine's connection slots, as its settings give them. */
async function readSlots(ctx: LayerContext): Promise<Slots> {
  const [read] = await ctx.backend.exec(
    "SELECT pg_catalog.current_setting('max_connections')::int, " +
      "pg_catalog.current_setting('superuser_reserved_connections')::int, " +
      "pg_catalog.current_setting('reserved_connections')::int",
  );
  const [max, superuserReserved, reserved] = read!.rows[0]!.map(Number);
  return { max: max!, superuserReserved: superuserReserved!, reserved: reserved! };
}

/** Opens a session when a seat is free; nothing reaches the backend until it runs a statement. */
export async function openSession(
  ctx: LayerContext,
  { applicationName = 'seat-ledger', role = 'superuser', database = 'postgres' }: SessionOptions,
): Promise<OpenReply> {
  if (database !== 'postgres') return notExpressible('other-database', database);
  ctx.slots ??= await readSlots(ctx);
  const refusal = seatRefusal(ctx.sessions.size, role === 'superuser', ctx.slots);
  if (refusal) return { ok: false, error: refusal };
  const id = ctx.nextId++;
  const connectionSettings: [string, string][] = [
    ['application_name', applicationName],
    ...(role === 'superuser' ? [] : [['role', 'app'] as [string, string]]),
  ];
  const record: SessionRecord = {
    id,
    pid: 40000 + id, // synthetic, in the range a server's backends usually get
    applicationName,
    // The backend logs in as the superuser; an ordinary session runs as `app` by its
    // `role` setting (SET ROLE), so it has app's privileges, as on a server.
    role: role === 'superuser' ? 'postgres' : 'app',
    backendStart: ctx.now,
    state: 'idle',
    waitEventType: null,
    waitEvent: null,
    xactStart: null,
    queryStart: null,
    stateChange: ctx.now,
    query: '',
    holding: { kind: 'none' },
    status: 'I',
    xid: null,
    xactSeq: 0,
    xactLog: [],
    xactSnapshot: null,
    xactWrites: null,
    replayedFrom: null,
    blockedBy: null,
    settingsTouched: false,
    settingsAtBegin: null,
    settingsSetAside: false,
    customSettings: [],
    prepared: new Map(),
    drawnAhead: new Set(),
    waitByWatchdog: false,
    waitXmin: null,
    timeouts: { idleMs: 0, transactionMs: 0 },
    settings: [...connectionSettings],
    connectionSettings,
  };
  ctx.sessions.set(id, record);
  return { ok: true, id, pid: record.pid };
}
