// Checkpoints of the journal: the data directory as it is, with the layer's records, so that
// a recovery starts there and replays only the calls made since. Without them the journal
// behind the watchdog would grow for the life of the page (src/engine/ARCHITECTURE.md, "The
// journal and the watchdog").
import type { PgErrorFields } from '../../types';
import type {
  Holding,
  LayerContext,
  PreparedStatement,
  Renumbering,
  SessionRecord,
} from './context';
import type { Slots } from './slots';
import { unloadSettings } from './session-settings';

/** A session record as plain data (its dates as ISO text, its prepared statements listed). */
type SessionData = Omit<
  SessionRecord,
  'backendStart' | 'xactStart' | 'queryStart' | 'stateChange' | 'blockedBy' | 'prepared'
> & {
  blockedBy: null;
  backendStart: string;
  xactStart: string | null;
  queryStart: string | null;
  stateChange: string;
  prepared: [name: string, PreparedStatement][];
};

/** The layer's records at a checkpoint, as plain data. */
export interface LayerSnapshot {
  sessions: SessionData[];
  nextId: number;
  parkSeq: number;
  statementSeq: number;
  ended: [id: number, PgErrorFields][];
  advisoryHeld: [key: string, holder: number, count: number][];
  /** XIDs of open transactions a reader has seen (resume.ts, `noteShown`). */
  shownXids: string[];
  /** XIDs the layer spent that a server would not (spent-xids.ts), and whether one is unknown. */
  spentXids: string[];
  xidsUncounted: boolean;
  /** Whether the reader's views or functions read the sessions (activity.ts). */
  sessionsReadIndirectly: boolean;
  /** Transactions replayed under a new XID, their session by id (resume.ts). */
  renumbered: (Omit<Renumbering, 's'> & { sessionId: number })[];
  /** What replays left behind (replay-traces.ts). */
  replayTraces: {
    scanned: boolean;
    written: string[];
    reordered: [oid: string, { always: boolean; xids: string[] }][];
  };
  slots: Slots | undefined;
  databaseOid: string | undefined;
  /** Custom settings defined in the backend (context.ts, `customSettings`). */
  customSettings: string[];
}

/** What a restore must find in the data directory, read as the checkpoint was taken. */
interface Expected {
  /** pg_prepared_xacts: gid and XID. */
  prepared: [gid: string, xid: string][];
  /** Every relation outside the catalogs with its size on disk. */
  relations: [name: string, bytes: string][];
}

/** Where a recovery starts instead of the prepared data directory (see `takeCheckpoint`). */
export interface LayerCheckpoint {
  /** The data directory, a gzipped tar (PGlite's `dumpDataDir`). */
  dataDir: Blob;
  layer: LayerSnapshot;
  expected: Expected;
}

/**
 * Journal entries to let pass after a checkpoint the data directory did not allow: a
 * tenth of `CheckpointLimits.after` (200 by default).
 */
const retryAfter = (ctx: LayerContext) => Math.ceil(ctx.checkpoints.after.entries / 10);

/**
 * Per layer: what was journaled since the last checkpoint, and the count of entries before
 * which none is tried again.
 */
const since = new WeakMap<LayerContext, { entries: number; bytes: number; notBefore: number }>();

/** Counts a journaled call towards the next checkpoint. */
export function noteJournaled(ctx: LayerContext, bytes: number): void {
  const counted = since.get(ctx) ?? { entries: 0, bytes: 0, notBefore: 0 };
  counted.entries++;
  counted.bytes += bytes;
  since.set(ctx, counted);
}

/**
 * Whether a checkpoint is due and the layer's records allow one now: no transaction open
 * in the backend, no statement waiting, sleeping or set aside for a wait. (Parked and
 * released transactions are records and prepared transactions, which a checkpoint keeps.)
 * `'quiet'`: past `after`, to be taken at a quiet moment; `'now'`: past `anyway`.
 */
export function checkpointDue(ctx: LayerContext): 'now' | 'quiet' | false {
  const counted = since.get(ctx);
  if (!counted || !ctx.watch?.checkpoint || ctx.replaying) return false;
  if (counted.entries < counted.notBefore) return false;
  const { after } = ctx.checkpoints;
  if (counted.entries < after.entries && counted.bytes < after.bytes) return false;
  const allowed =
    ctx.resident === null &&
    ctx.waiters.length === 0 &&
    ctx.sleepers.size === 0 &&
    ctx.spentStandIns.length === 0 &&
    ctx.snapshotPins.size === 0;
  if (!allowed) return false;
  return pastAnyway(ctx.checkpoints, counted) ? 'now' : 'quiet';
}

const pastAnyway = (
  { anyway }: LayerContext['checkpoints'],
  counted: { entries: number; bytes: number },
) => counted.entries >= anyway.entries || counted.bytes >= anyway.bytes;

/**
 * What the data directory must hold for a dump of it to come back whole: no temporary or
 * unlogged relations (a restart empties them), no cursor or LISTEN of the backend's, and
 * prepared transactions only once the journal is long (`CheckpointLimits.anyway`): with
 * workers that always hold their claims (the counter's hold shape) a moment with none
 * never comes.
 * dumpDataDir followed by loadDataDir once lost a committed table while a transaction
 * was prepared (PGlite 0.5.16; src/engine/ARCHITECTURE.md, "Checkpoints"); on 0.5.17 prepared transactions, their locks
 * and tables created around them came back through CHECKPOINT, dump and load every time
 * tried (tests/unit/engine/checkpoint.test.ts), and a restore checks what it finds.
 */
async function mayTake(ctx: LayerContext): Promise<boolean> {
  const counted = since.get(ctx)!;
  const [read] = await ctx.backend.exec(
    `SELECT (SELECT pg_catalog.count(*) FROM pg_catalog.pg_class WHERE relpersistence IN ('t', 'u')),
            (SELECT pg_catalog.count(*) FROM pg_catalog.pg_cursors),
            (SELECT pg_catalog.count(*) FROM pg_catalog.pg_listening_channels()),
            (SELECT pg_catalog.count(*) FROM pg_catalog.pg_prepared_xacts)`,
  );
  const [temporary, cursors, channels, prepared] = read!.rows[0]!.map(Number);
  if (temporary! + cursors! + channels! > 0) return false;
  return prepared === 0 || pastAnyway(ctx.checkpoints, counted);
}

/** Reads what a restore compares (see `Expected`). */
async function readExpected(ctx: LayerContext): Promise<Expected> {
  const [prepared, relations] = await ctx.backend.exec(
    `SELECT gid, transaction::pg_catalog.text FROM pg_catalog.pg_prepared_xacts ORDER BY gid;
     SELECT c.relname::pg_catalog.text, pg_catalog.pg_relation_size(c.oid)::pg_catalog.text
       FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
        AND c.relkind IN ('r', 'm', 'S', 'i')
      ORDER BY c.oid`,
  );
  return {
    prepared: prepared!.rows.map(([gid, xid]) => [gid!, xid!]),
    relations: relations!.rows.map(([name, bytes]) => [name!, bytes!]),
  };
}

/**
 * Takes a checkpoint if one is due and may be taken: the loaded session's settings are
 * saved and the backend given its defaults, PostgreSQL's CHECKPOINT writes every commit and
 * every prepared transaction's state to the data files, and the data directory is dumped
 * beside the layer's records. Returns null when it was not taken.
 */
export async function takeCheckpoint(ctx: LayerContext): Promise<LayerCheckpoint | null> {
  if (!checkpointDue(ctx)) return null;
  if (!(await mayTake(ctx))) {
    const counted = since.get(ctx)!;
    counted.notBefore = counted.entries + retryAfter(ctx);
    return null;
  }
  await unloadSettings(ctx);
  await ctx.backend.exec('CHECKPOINT');
  const expected = await readExpected(ctx);
  const dataDir = await ctx.backend.dump();
  since.delete(ctx);
  return { dataDir, layer: snapshot(ctx), expected };
}

/** The layer's records as plain data. */
function snapshot(ctx: LayerContext): LayerSnapshot {
  return {
    sessions: [...ctx.sessions.values()].map(
      ({ backendStart, xactStart, queryStart, stateChange, prepared, ...plain }) => ({
        // No statement waits at a checkpoint, so `blockedBy` is null: nothing to keep.
        ...structuredClone({ ...plain, blockedBy: null }),
        backendStart: backendStart.toISOString(),
        xactStart: xactStart?.toISOString() ?? null,
        queryStart: queryStart?.toISOString() ?? null,
        stateChange: stateChange.toISOString(),
        prepared: [...prepared],
      }),
    ),
    nextId: ctx.nextId,
    parkSeq: ctx.parkSeq,
    statementSeq: ctx.statementSeq,
    ended: [...ctx.ended],
    advisoryHeld: [...ctx.advisoryHeld].map(([key, h]) => [key, h.holder.id, h.count]),
    shownXids: [...ctx.shownXids],
    spentXids: ctx.spentXids.map(String),
    xidsUncounted: ctx.xidsUncounted,
    sessionsReadIndirectly: ctx.sessionsReadIndirectly,
    renumbered: ctx.renumbered.map(({ s, ...r }) => ({ ...structuredClone(r), sessionId: s.id })),
    replayTraces: {
      scanned: ctx.replayTraces.scanned,
      written: [...ctx.replayTraces.written],
      reordered: structuredClone([...ctx.replayTraces.reordered]),
    },
    slots: ctx.slots,
    databaseOid: ctx.databaseOid,
    customSettings: [...ctx.customSettings],
  };
}

/**
 * Makes a fresh layer, on a backend booted from `checkpoint.dataDir`, the layer that took
 * it: its records, and the session-level advisory locks, which the backend held and a
 * restart gives up. Throws when the data directory did not come back as it was dumped.
 */
export async function restoreCheckpoint(
  ctx: LayerContext,
  checkpoint: Omit<LayerCheckpoint, 'dataDir'>,
): Promise<void> {
  const found = await readExpected(ctx);
  if (JSON.stringify(found) !== JSON.stringify(checkpoint.expected)) {
    throw new Error(
      'the checkpoint of the data directory did not come back as it was taken ' +
        `(expected ${JSON.stringify(checkpoint.expected)}, found ${JSON.stringify(found)})`,
    );
  }
  const { layer } = checkpoint;
  for (const data of layer.sessions) {
    const record: SessionRecord = {
      ...data,
      backendStart: new Date(data.backendStart),
      xactStart: data.xactStart === null ? null : new Date(data.xactStart),
      queryStart: data.queryStart === null ? null : new Date(data.queryStart),
      stateChange: new Date(data.stateChange),
      blockedBy: null,
      prepared: new Map(data.prepared),
      holding: data.holding as Holding,
    };
    ctx.sessions.set(record.id, record);
  }
  ctx.nextId = layer.nextId;
  ctx.parkSeq = layer.parkSeq;
  ctx.statementSeq = layer.statementSeq;
  for (const [id, error] of layer.ended) ctx.ended.set(id, error);
  for (const xid of layer.shownXids) ctx.shownXids.add(xid);
  ctx.spentXids.push(...layer.spentXids.map(BigInt));
  ctx.xidsUncounted = layer.xidsUncounted;
  ctx.sessionsReadIndirectly = layer.sessionsReadIndirectly;
  ctx.replayTraces.scanned = layer.replayTraces.scanned;
  for (const oid of layer.replayTraces.written) ctx.replayTraces.written.add(oid);
  for (const [oid, r] of layer.replayTraces.reordered) ctx.replayTraces.reordered.set(oid, r);
  for (const name of layer.customSettings) ctx.customSettings.add(name);
  // A backend booted from a data directory has no sequence used yet in it.
  ctx.backendUsers = 'shared';
  for (const { sessionId, ...r } of layer.renumbered) {
    const s = ctx.sessions.get(sessionId);
    if (s) ctx.renumbered.push({ ...r, s });
  }
  ctx.slots = layer.slots;
  ctx.databaseOid = layer.databaseOid;
  for (const [key, holderId, count] of layer.advisoryHeld) {
    const holder = ctx.sessions.get(holderId)!;
    ctx.advisoryHeld.set(key, { holder, count });
    const args = key.split(',').join(', ');
    for (let i = 0; i < count; i++)
      await ctx.backend.exec(`SELECT pg_catalog.pg_advisory_lock(${args})`);
  }
}
