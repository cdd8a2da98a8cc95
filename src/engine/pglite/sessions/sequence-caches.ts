// Sequences with CACHE above 1. A server's backend draws that many values at a time and
// hands them out to its own session only; the one backend would hand the values it drew
// for one session to the next session that draws. So at each change of session the layer
// lets go of what the backend has drawn ahead (DISCARD SEQUENCES): the next session draws
// afresh, as its own backend would. The session whose values went would, on a server, go
// on from them: its next draw from such a sequence is refused (`sequence-cache`).
// (src/engine/ARCHITECTURE.md, "How a statement runs".)
import type { LayerContext, SessionRecord } from './context';

/** A statement that may make a sequence that caches (CREATE or ALTER SEQUENCE, identity). */
const namesCache = /\bCACHE\b/i;

/** A statement that may draw from a sequence: nextval(), or a default that calls it. */
const mayDraw =
  /\bnextval\b|\bINSERT\b|\bMERGE\b|\bCOPY\b|\bDEFAULT\b|\bEXECUTE\b|\bDO\b|\bCALL\b/i;

/** Notes, after `sql` ran without error, that a sequence may now cache values. */
export function noteSequenceCache(ctx: LayerContext, sql: string): void {
  if (!ctx.sequenceCaches && namesCache.test(sql)) ctx.sequenceCaches = true;
}

/**
 * Before another session than the backend's last user gets it: the sequences of which the
 * backend holds values drawn ahead for that user (its currval() short of the last value
 * written), which it goes on from on a server; then lets go of them all.
 */
export async function dropDrawnAhead(ctx: LayerContext, next: SessionRecord): Promise<void> {
  if (!ctx.sequenceCaches || ctx.resident !== null) return;
  const last = ctx.lastSent ? ctx.sessions.get(ctx.lastSent.sessionId) : undefined;
  if (!last || last === next) return;
  const [, read] = await ctx.backend.exec(
    `DO $$DECLARE r record; c bigint; ahead text := ''; BEGIN
       FOR r IN SELECT s.seqrelid FROM pg_catalog.pg_sequence s WHERE s.seqcache > 1 LOOP
         BEGIN c := pg_catalog.currval(r.seqrelid); EXCEPTION WHEN OTHERS THEN CONTINUE; END;
         IF c IS DISTINCT FROM pg_catalog.pg_sequence_last_value(r.seqrelid) THEN
           ahead := ahead || r.seqrelid::pg_catalog.text || ',';
         END IF;
       END LOOP;
       PERFORM pg_catalog.set_config('sim.drawn_ahead', ahead, false);
     END$$;
     SELECT pg_catalog.current_setting('sim.drawn_ahead'); DISCARD SEQUENCES`,
  );
  for (const oid of read!.rows[0]![0]!.split(',').filter(Boolean)) last.drawnAhead.add(oid);
}

/**
 * The sequence `s` had values drawn ahead of, let go when another session got the backend,
 * which `sql` may draw from; null when none. On a server its next draw comes from them.
 */
export async function drawsWhereDropped(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<string | null> {
  if (s.drawnAhead.size === 0 || !mayDraw.test(sql)) return null;
  if (ctx.resident !== null && ctx.resident !== s) return null;
  const [found] = await ctx.backend.exec(
    `SELECT c.oid::pg_catalog.text, c.relname FROM pg_catalog.pg_class c
      WHERE c.oid::pg_catalog.text IN (SELECT pg_catalog.jsonb_array_elements_text($1::pg_catalog.jsonb))`,
    [JSON.stringify([...s.drawnAhead])],
  );
  // A sequence dropped since is none of its business any more.
  const alive = new Map(found!.rows.map(([oid, name]) => [oid!, name!]));
  for (const oid of s.drawnAhead) if (!alive.has(oid)) s.drawnAhead.delete(oid);
  return alive.size > 0 ? [...alive.values()].join(', ') : null;
}
