// Session settings and prepared statements: kept per session, loaded into the backend in turn.
import { splitStatements } from '../../split-statements';
import type { LayerContext, SessionRecord } from './context';

/**
 * Statements that may change session settings (SET, RESET, DISCARD, set_config); the
 * others leave them as last saved, so switching away from their session reads nothing.
 */
export const changesSettings = /(?:^|;)\s*(?:set|reset|discard)\b|\bset_config\s*\(/im;

/**
 * The custom settings (a name with a dot) a statement sets or resets by name: SET, RESET,
 * SET LOCAL, and set_config() with the name in a literal. Unquoted names fold to lower case.
 */
export function customSettingsNamed(sql: string): string[] {
  const part = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)`;
  const set = new RegExp(
    String.raw`(?:^|;)\s*(?:SET|RESET)\s+(?:SESSION\s+|LOCAL\s+)?(${part}\s*\.\s*${part})`,
    'gim',
  );
  const names = [...sql.matchAll(set)].map((m) =>
    m[1]!
      .split(/\s*\.\s*/)
      .map((p) => (p.startsWith('"') ? p.slice(1, -1).replace(/""/g, '"') : p.toLowerCase()))
      .join('.'),
  );
  for (const m of sql.matchAll(/\bset_config\s*\(\s*'((?:[^']|'')*\.(?:[^']|'')*)'/gi)) {
    names.push(m[1]!.replace(/''/g, "'").toLowerCase());
  }
  return names.filter((n) => !layerSettings.has(n));
}

/** Settings that belong to the layer's bookkeeping, never saved with a session. */
const layerSettings = new Set(['sim.sessions', 'sim.standins', 'sim.signals', 'sim.pid']);

const prepareStatement = /^\s*PREPARE\s+(\w+)(?:\s*\([^()]*\))?\s+AS\s+([\s\S]*)$/i;
const executeStatement = /^\s*EXECUTE\s+(\w+)/i;

const deallocateStatement = /^\s*DEALLOCATE\s+(?:PREPARE\s+)?(\w+)/i;
const discardAll = /^\s*DISCARD\s+ALL\b/i;

/**
 * Gives the backend back its own defaults, saving the loaded session's settings first:
 * before another session's are loaded, and before a checkpoint (checkpoint.ts).
 */
export async function unloadSettings(ctx: LayerContext): Promise<void> {
  const { backend, loaded } = ctx;
  if (!loaded) return;
  if (loaded.settingsTouched) {
    loaded.settingsTouched = false;
    const [saved] = await backend.exec(
      // pg_settings does not list the role nor custom settings (GUC_NO_SHOW_ALL), so
      // those are read on their own.
      `SELECT name, pg_catalog.current_setting(name) FROM pg_catalog.pg_settings WHERE source = 'session'
       UNION ALL SELECT 'role', pg_catalog.current_setting('role')
        WHERE pg_catalog.current_setting('role') <> 'none'
       UNION ALL SELECT n, pg_catalog.current_setting(n, true)
        FROM pg_catalog.jsonb_array_elements_text($1::pg_catalog.jsonb) n
        WHERE pg_catalog.current_setting(n, true) IS NOT NULL`,
      [JSON.stringify(loaded.customSettings)],
    );
    loaded.settings = saved!.rows
      .filter(([name]) => !layerSettings.has(name!))
      .map(([name, value]) => [name!, value!]);
  }
  // RESET ALL leaves the role alone (GUC_NO_RESET_ALL), so that is reset on its own.
  await backend.exec('RESET ALL; RESET ROLE');
  // Prepared statements belong to the backend too: the loaded session's go.
  if (loaded.prepared.size) await backend.exec('DEALLOCATE ALL');
  ctx.loaded = null;
}

/** Loads `s`'s session-level settings into the backend, saving the previous owner's. */
export async function loadSettings(ctx: LayerContext, s: SessionRecord): Promise<void> {
  const { backend } = ctx;
  if (ctx.loaded === s) return;
  // With no owner, the backend's settings are its defaults already (a fresh start, or
  // DISCARD ALL after the last owner closed).
  await unloadSettings(ctx);
  // sim.pid is what pg_backend_pid() answers (sim-schema.ts): always this session's.
  await backend.exec(
    'SELECT pg_catalog.set_config(key, value, false) FROM pg_catalog.jsonb_each_text($1)',
    [{ ...Object.fromEntries(s.settings), 'sim.pid': String(s.pid) }],
  );
  // This session's prepared statements are made again.
  for (const { statement } of s.prepared.values()) await backend.run(statement);
  ctx.loaded = s;
}

/**
 * What `sql` runs when `s` sends it: a PREPARE runs nothing, and an EXECUTE runs the
 * text its session prepared under that name.
 */
export function executedText(s: SessionRecord, sql: string): string {
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
export function notePrepared(s: SessionRecord, sql: string): void {
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
