// PostgreSQL's own timers for idle sessions and open transactions, kept off in PGlite's one
// backend between the layer's calls. A server arms idle_in_transaction_session_timeout and
// idle_session_timeout each time a backend waits for its client's next command, and
// transaction_timeout as a transaction starts (ProcessInterrupts in
// src/backend/tcop/postgres.c ends the session when one fires). PGlite's backend arms them
// too, and Emscripten runs their timers on the thread's event loop: one that fires ends
// PGlite itself at the next statement, every session with it, and the statement never
// answers. The layer ends sessions on those timeouts itself (timers.ts), so the backend's
// are set to 0 when a call ends and given back before the session's next statement
// (src/engine/ARCHITECTURE.md, "Timers").
import { durationMs, setAside } from './parking';
import type { LayerContext, SessionRecord } from './context';

/** The settings whose timers run while the backend waits for the next command. */
const settings = [
  'idle_in_transaction_session_timeout',
  'idle_session_timeout',
  'transaction_timeout',
] as const;

/** A statement that may set one of them; a session that ran one is watched from then on. */
const namesBackendTimer = new RegExp(`\\b(?:${settings.join('|')})\\b`, 'i');

/** Notes that `s`'s `sql` may set one of the timers. */
export function noteBackendTimers(s: SessionRecord, sql: string): void {
  if (!s.armsTimers && namesBackendTimer.test(sql)) s.armsTimers = true;
}

/**
 * At the end of a call: sets the timers of the session whose settings the backend holds
 * to 0, at the level they were set (LOCAL inside its transaction, which PREPARE, COMMIT or
 * ROLLBACK then drops), and keeps their values for `rearmBackendTimers`. It reads the
 * session's idle_session_timeout for timers.ts too. An aborted transaction takes no SET:
 * it is set aside (rolled back) first.
 */
export async function disarmBackendTimers(ctx: LayerContext): Promise<void> {
  const s = ctx.loaded;
  // Set to 0 already, and not given back since: the backend holds none of them.
  if (!s?.armsTimers || s.disarmed || !ctx.sessions.has(s.id)) return;
  if (ctx.resident === s && s.status === 'E') await setAside(ctx, s);
  const local = ctx.resident === s;
  const [read] = await ctx.backend.exec(
    'SELECT n, pg_catalog.current_setting(n) FROM pg_catalog.jsonb_array_elements_text($1) n',
    [settings],
  );
  const values = read!.rows.map(([name, value]) => [name!, value!] as [string, string]);
  const sessionMs = durationMs(values.find(([name]) => name === 'idle_session_timeout')![1]);
  s.timeouts = { ...s.timeouts, sessionMs };
  const set = values.filter(([, value]) => durationMs(value) > 0);
  if (set.length === 0) return;
  await ctx.backend.exec(
    "SELECT pg_catalog.set_config(n, '0', $2) FROM pg_catalog.jsonb_array_elements_text($1) n",
    [set.map(([name]) => name), local],
  );
  s.disarmed = { values: set, local };
}

/**
 * Gives `s`'s timers back as `enter` makes the backend `s`'s again: those set for the
 * session once its settings are loaded, before a transaction is opened again (a failed
 * one takes no SET); those set LOCAL once its transaction is open again. One set LOCAL in
 * a transaction that has ended since is gone with it, as it would be.
 */
export async function rearmBackendTimers(
  ctx: LayerContext,
  s: SessionRecord,
  level: 'session' | 'local',
): Promise<void> {
  const disarmed = s.disarmed;
  if (!disarmed || disarmed.local !== (level === 'local')) return;
  s.disarmed = null;
  if (disarmed.local && (ctx.resident !== s || s.status === 'E')) return;
  await ctx.backend.exec(
    'SELECT pg_catalog.set_config(key, value, $2) FROM pg_catalog.jsonb_each_text($1)',
    [Object.fromEntries(disarmed.values), disarmed.local],
  );
}
