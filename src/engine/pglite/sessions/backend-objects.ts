// What belongs to the backend, not to a session: temporary tables, cursors WITH HOLD, the
// channels it LISTENs on, the seed of random(). On a server each session has its own
// backend; here every session shares PGlite's one. Made while other sessions are open,
// they are refused at once (run.ts); made while a session was alone, they are followed
// here, and a later session's statement that would meet them is refused.
import { mentions } from '../waits';
import type { LayerContext, SessionRecord } from './context';
import { outOfAborted } from './parking';

/** A call of setseed(), which seeds random() for the whole backend. */
const seeds = /\bsetseed\s*\(/i;

/** A call of random() or random_normal(), which draw from the backend's seed. */
const draws = /\brandom(?:_normal)?\s*\(/i;

/** What names the backend's LISTEN channels: listening, unlistening, or asking which. */
const channels = /\b(?:LISTEN|UNLISTEN|pg_listening_channels)\b/i;

/** The kind of refusal for a statement that would meet another session's backend state. */
export type BackendStateKind = 'temporary-object' | 'backend-wide-object' | 'shared-random';

/**
 * Notes what `s`'s statement makes of the backend's own while `s` is the only session
 * (`makes`: it creates a temporary object, a cursor WITH HOLD or a LISTEN), and whether it
 * seeds random(). Called before the statement runs; a statement that fails leaves a note
 * that costs a catalog look, no more.
 */
export function noteBackendState(ctx: LayerContext, s: SessionRecord, sql: string, makes: boolean) {
  const state = ctx.backendState;
  if (makes && ctx.sessions.size === 1) state.madeBy.add(s);
  if (seeds.test(sql)) state.seededBy = s;
}

/**
 * Why `s`'s statement would meet backend state another session made while it was alone,
 * or null: a temporary table or cursor WITH HOLD it names, the LISTEN channels, or a
 * random() drawn from another session's seed (or, by the seeding session, after another
 * session drew from it). A seed set while others are open is refused as well.
 */
export async function backendStateMet(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<BackendStateKind | null> {
  const state = ctx.backendState;
  if (state.seededBy && !ctx.sessions.has(state.seededBy.id)) state.seededBy = null;
  if (seeds.test(sql) && ctx.sessions.size > 1) return 'shared-random';
  if (state.seededBy && state.seededBy !== s && draws.test(sql)) return 'shared-random';
  for (const r of state.madeBy) if (!ctx.sessions.has(r.id)) state.madeBy.delete(r);
  if (![...state.madeBy].some((r) => r !== s)) return null;
  if (!(await outOfAborted(ctx, s))) return null;
  const [found] = await ctx.backend.exec(
    `SELECT 'table', c.relname::pg_catalog.text FROM pg_catalog.pg_class c
      WHERE c.relnamespace = pg_catalog.pg_my_temp_schema()
     UNION ALL SELECT 'cursor', name FROM pg_catalog.pg_cursors WHERE is_holdable
     UNION ALL SELECT 'channel', c FROM pg_catalog.pg_listening_channels() c`,
  );
  const objects = found!.rows;
  if (objects.length === 0) {
    state.madeBy.clear();
    return null;
  }
  for (const [kind, name] of objects) {
    if (kind === 'table' && (mentions(sql, name!) || /\bpg_temp\b/i.test(sql))) {
      return 'temporary-object';
    }
    if (kind === 'cursor' && mentions(sql, name!)) return 'backend-wide-object';
    if (kind === 'channel' && channels.test(sql)) return 'backend-wide-object';
  }
  return null;
}
