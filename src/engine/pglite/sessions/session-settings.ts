// Session-level state: settings and prepared statements, kept per session and loaded into
// the backend in turn; custom settings and sequences' last values, which the backend
// keeps for all sessions at once and only some of which can be shown.
import { identifier, splitStatements, storedIdentifier } from '../../split-statements';
import { dropDrawnAhead } from './sequence-caches';
import { spentSetting } from './spent-xids';
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
  const names = [...sql.matchAll(setsCustom)].map((m) => settingName(m[1]!));
  for (const m of sql.matchAll(/\bset_config\s*\(\s*'((?:[^']|'')*\.(?:[^']|'')*)'/gi)) {
    names.push(m[1]!.replace(/''/g, "'").toLowerCase());
  }
  return names.filter((n) => !layerSettings.has(n));
}

/** A custom setting's name as SQL writes it: two identifiers joined by a dot. */
const customName = String.raw`${identifier}\s*\.\s*${identifier}`;
const setsCustom = new RegExp(
  String.raw`(?:^|;)\s*(?:SET|RESET)\s+(?:SESSION\s+|LOCAL\s+)?(${customName})`,
  'gim',
);
const showsCustom = new RegExp(String.raw`(?:^|;)\s*SHOW\s+(${customName})`, 'gim');

/** A custom setting's name as written (`App."Clerk"`) as PostgreSQL keeps it. */
const settingName = (written: string) =>
  written
    .split(/\s*\.\s*/)
    .map(storedIdentifier)
    .join('.');

/** Settings that belong to the layer's bookkeeping, never saved with a session. */
const layerSettings = new Set([
  'sim.sessions',
  'sim.standins',
  'sim.spent_xids',
  'sim.signals',
  'sim.pid',
  'sim.drawn_ahead',
]);

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
    loaded.settings = await readSettings(ctx, loaded);
    // Changed in a transaction still open: a ROLLBACK can no longer give them back here.
    if (loaded.holding.kind !== 'none') loaded.settingsSetAside = true;
  }
  // RESET ALL leaves the role alone (GUC_NO_RESET_ALL), so that is reset on its own.
  await backend.exec('RESET ALL; RESET ROLE');
  // Prepared statements belong to the backend too: the loaded session's go.
  if (loaded.prepared.size) await backend.exec('DEALLOCATE ALL');
  ctx.loaded = null;
}

/** The session-level settings the backend holds for `s`, loaded now. */
async function readSettings(
  ctx: LayerContext,
  s: SessionRecord,
): Promise<[name: string, value: string][]> {
  const [saved] = await ctx.backend.exec(
    // pg_settings does not list the role nor custom settings (GUC_NO_SHOW_ALL), so
    // those are read on their own.
    `SELECT name, pg_catalog.current_setting(name) FROM pg_catalog.pg_settings WHERE source = 'session'
     UNION ALL SELECT 'role', pg_catalog.current_setting('role')
      WHERE pg_catalog.current_setting('role') <> 'none'
     UNION ALL SELECT n, pg_catalog.current_setting(n, true)
      FROM pg_catalog.jsonb_array_elements_text($1::pg_catalog.jsonb) n
      WHERE pg_catalog.current_setting(n, true) IS NOT NULL`,
    [JSON.stringify(s.customSettings)],
  );
  // A transaction's own characteristics show as set in it (BEGIN ISOLATION LEVEL …).
  return saved!.rows
    .filter(([name]) => !layerSettings.has(name!) && !name!.startsWith('transaction_'))
    .map(([name, value]) => [name!, value!]);
}

/**
 * Notes `s`'s settings as its transaction, begun by `sql`, found them: what a ROLLBACK
 * gives back on a server. Read from the backend only where something changed them since
 * they were last saved; unknown where `sql` itself changed them too.
 */
export async function noteSettingsAtBegin(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<void> {
  s.settingsSetAside = false;
  if (changesSettings.test(sql)) {
    s.settingsAtBegin = null;
    return;
  }
  if (s.settingsTouched && ctx.loaded === s) {
    s.settings = await readSettings(ctx, s);
    s.settingsTouched = false;
  }
  s.settingsAtBegin = s.settingsTouched ? null : s.settings;
}

/**
 * Ends what the layer kept of `s`'s settings for its transaction, which just ended
 * (`rolledBack`: by a rollback or a failure). Where it changed settings and was set aside
 * meanwhile, a rollback on a server gives back the settings it began with: those are
 * loaded again in their place.
 */
export async function settingsAtEnd(
  ctx: LayerContext,
  s: SessionRecord,
  rolledBack: boolean,
): Promise<void> {
  const atBegin = s.settingsAtBegin;
  const restore = rolledBack && s.settingsSetAside && atBegin !== null;
  s.settingsAtBegin = null;
  s.settingsSetAside = false;
  if (!restore) return;
  s.settings = atBegin;
  // pg_stat_activity shows the application_name it goes back to.
  const named = (list: readonly (readonly [string, string])[]) =>
    list.find(([name]) => name === 'application_name')?.[1];
  s.applicationName = named(atBegin) ?? named(s.connectionSettings) ?? s.applicationName;
  if (ctx.loaded !== s) return;
  // Loaded again from those, not saved from the backend first.
  s.settingsTouched = false;
  await unloadSettings(ctx);
  await loadSettings(ctx, s);
}

/** Loads `s`'s session-level settings into the backend, saving the previous owner's. */
export async function loadSettings(ctx: LayerContext, s: SessionRecord): Promise<void> {
  const { backend } = ctx;
  if (ctx.loaded === s) return;
  // What the backend drew ahead of sequences for the last session is that session's.
  await dropDrawnAhead(ctx, s);
  // With no owner, the backend's settings are its defaults already (a fresh start, or
  // DISCARD ALL after the last owner closed).
  await unloadSettings(ctx);
  // sim.pid is what pg_backend_pid() answers (sim-schema.ts): always this session's. The
  // XIDs the layer spent go with it for sim.age(), also when a view or a function calls it
  // (a statement that names age() sets them afresh: run.ts).
  const spent = ctx.spentXids.length > 0 ? { 'sim.spent_xids': spentSetting(ctx) } : {};
  await backend.exec(
    'SELECT pg_catalog.set_config(key, value, false) FROM pg_catalog.jsonb_each_text($1)',
    [{ ...Object.fromEntries(s.settings), 'sim.pid': String(s.pid), ...spent }],
  );
  // This session's prepared statements are made again.
  await remakePrepared(ctx, s);
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

/**
 * Keeps `s`'s list of prepared statements up to date after `sql` ran without error, with
 * the types each one returns as PostgreSQL first planned it (`resultTypes`).
 */
export function notePrepared(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<void> | undefined {
  // Most statements touch no prepared statement: answered at once, with nothing to await.
  return /\b(?:PREPARE|DEALLOCATE|DISCARD)\b/i.test(sql) ? notePreparedIn(ctx, s, sql) : undefined;
}

/** `notePrepared` for a statement that may prepare or deallocate. */
async function notePreparedIn(ctx: LayerContext, s: SessionRecord, sql: string): Promise<void> {
  const made: string[] = [];
  for (const { sql: statement } of splitStatements(sql)) {
    const prepare = prepareStatement.exec(statement);
    const deallocate = deallocateStatement.exec(statement);
    if (prepare) {
      const name = prepare[1]!.toLowerCase();
      s.prepared.set(name, { statement, text: prepare[2]!, resultTypes: null, remade: false });
      made.push(name);
    } else if (discardAll.test(statement) || deallocate?.[1]!.toLowerCase() === 'all') {
      s.prepared.clear();
    } else if (deallocate) s.prepared.delete(deallocate[1]!.toLowerCase());
  }
  const types = made.length > 0 ? await resultTypes(ctx, made) : new Map<string, string>();
  for (const [name, returned] of types) {
    const entry = s.prepared.get(name);
    if (entry) entry.resultTypes = returned;
  }
}

/** The types the backend's prepared statements named `names` return, by name. */
async function resultTypes(ctx: LayerContext, names: string[]): Promise<Map<string, string>> {
  const [read] = await ctx.backend.exec(
    `SELECT name, coalesce(result_types::pg_catalog.text, '') FROM pg_catalog.pg_prepared_statements
      WHERE name IN (SELECT pg_catalog.jsonb_array_elements_text($1::pg_catalog.jsonb))`,
    [JSON.stringify(names)],
  );
  return new Map(read!.rows.map(([name, types]) => [name!, types!]));
}

/**
 * Makes `s`'s prepared statements again in the backend. A server keeps the ones a session
 * made and checks each again when it runs (a table dropped since, columns changed): one
 * that cannot be made again, or now returns other types, is `stale`, with the reason, and
 * is refused where it is named (`staleStatement`). Any one made again has new counts and a
 * new prepare_time in pg_prepared_statements (`remade`).
 */
async function remakePrepared(ctx: LayerContext, s: SessionRecord): Promise<void> {
  if (s.prepared.size === 0) return;
  for (const entry of s.prepared.values()) {
    const reply = await ctx.backend.run(entry.statement);
    entry.remade = true;
    if (reply.error) entry.stale ??= `making it again failed: ${reply.error.message}`;
  }
  const types = await resultTypes(ctx, [...s.prepared.keys()]);
  for (const [name, entry] of s.prepared) {
    const now = types.get(name);
    if (now !== undefined && typeof entry.resultTypes === 'string' && now !== entry.resultTypes) {
      entry.stale ??= `the columns it returns changed since it was prepared (${entry.resultTypes} then, ${now} now)`;
    }
  }
}

/**
 * Why `sql` cannot be answered for `s` as a server would, where it names one of `s`'s
 * prepared statements that went stale while made again (`remakePrepared`), or reads
 * pg_prepared_statements after any was made again; null otherwise.
 */
export function staleStatement(s: SessionRecord, sql: string): string | null {
  if (s.prepared.size === 0) return null;
  if (/\bpg_prepared_statements\b/i.test(sql)) {
    const remade = [...s.prepared].find(([, e]) => e.remade);
    if (remade) {
      return `pg_prepared_statements would show "${remade[0]}" with the plan counts and prepare_time of the copy made again in the one backend`;
    }
  }
  for (const { sql: statement } of splitStatements(sql)) {
    const named = /^\s*(?:EXPLAIN\b[\s\S]*?\b)?(?:EXECUTE|DEALLOCATE(?:\s+PREPARE)?)\s+(\w+)/i.exec(
      statement,
    );
    const entry = named ? s.prepared.get(named[1]!.toLowerCase()) : undefined;
    if (entry?.stale) return `"${named![1]}": ${entry.stale}`;
  }
  return null;
}

/**
 * currval() and lastval(): on a server what the session's own last nextval() gave; on
 * the one backend, the last any session's gave (a DEFAULT's too, unseen in the text).
 */
export const sessionSequence = /\b(?:currval|lastval)\s*\(/i;

/**
 * A custom setting `sql` reads by name (SHOW, current_setting) that another session has
 * defined in the backend and `s` never set: a server's backend for `s` knows none (NULL,
 * or "unrecognized configuration parameter"), the one backend answers ''. Null if none.
 */
export function customNotSet(ctx: LayerContext, s: SessionRecord, sql: string): string | null {
  if (ctx.customSettings.size === 0) return null;
  const read = [
    ...[...sql.matchAll(showsCustom)].map((m) => settingName(m[1]!)),
    ...[...sql.matchAll(/\bcurrent_setting\s*\(\s*'((?:[^']|'')*)'/gi)].map((m) =>
      m[1]!.replace(/''/g, "'").toLowerCase(),
    ),
  ];
  if (read.length === 0) return null;
  // One this very string sets first counts as set.
  const own = [...s.customSettings, ...customSettingsNamed(sql)];
  return read.find((n) => ctx.customSettings.has(n) && !own.includes(n)) ?? null;
}

/** An INSERT … VALUES with its column list: the table as written, and the columns. */
const insertValues = new RegExp(
  String.raw`^\s*INSERT\s+INTO\s+(${identifier}(?:\s*\.\s*${identifier})?)` +
    String.raw`\s*\(([^)]*)\)\s*VALUES\b`,
  'i',
);

/**
 * Whether the backend's currval() answers for `s`'s `sql` as a server would: only `s` has
 * used the backend, or the statement that reads it follows, with nothing between, an
 * INSERT … VALUES of `s`'s that drew from every sequence it names, as the defaults of
 * columns the INSERT left out (the API's upload and its job in one transaction). lastval()
 * then too, when that INSERT drew from one sequence.
 */
export async function ownSequenceValues(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
): Promise<boolean> {
  if (ctx.backendUsers === 'none' || ctx.backendUsers === s.id) return true;
  const statements = splitStatements(sql).map((st) => st.sql);
  const at = statements.findIndex((st) => sessionSequence.test(st));
  // A failed INSERT may have failed before it drew (a constant folded while it was planned:
  // VALUES (1/0)), leaving a server's currval() unset: only one that succeeded counts.
  const last = ctx.lastSent;
  const before =
    at > 0 ? statements[at - 1] : last?.sessionId === s.id && last.failed === false && last.sql;
  const insert = before ? insertValues.exec(before) : null;
  const reading = statements.slice(at).join(';');
  const named = [...reading.matchAll(/\bcurrval\s*\(\s*'((?:[^']|'')*)'\s*\)/gi)].map((m) =>
    m[1]!.replace(/''/g, "'"),
  );
  if (!insert || named.length !== (reading.match(/\bcurrval\s*\(/gi) ?? []).length) return false;
  // The catalog is read in the backend as it is: not in a failed transaction, nor in one
  // whose first snapshot, still to come, a read would take early (REPEATABLE READ).
  const h = s.holding;
  if (ctx.resident !== s && ctx.resident !== null) return false;
  if (h.kind !== 'none' && h.kind !== 'resident') return false;
  if (ctx.resident === s && s.status === 'E') return true;
  if (h.kind === 'resident' && !h.snapshotTaken && h.isolation !== 'read committed') return false;
  const columns = insert[2]!.split(',').map((c) => storedIdentifier(c.trim()));
  // The sequences the defaults of the columns it left out draw from (pg_depend), and
  // whether they are the ones named.
  const [drawn] = await ctx.backend.exec(
    `WITH drawn AS (
       SELECT DISTINCT d.refobjid FROM pg_catalog.pg_attrdef ad
         JOIN pg_catalog.pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
         JOIN pg_catalog.pg_depend d ON d.objid = ad.oid
          AND d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass
          AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
         JOIN pg_catalog.pg_class c ON c.oid = d.refobjid AND c.relkind = 'S'
        WHERE ad.adrelid = pg_catalog.to_regclass($1)
          AND a.attname::pg_catalog.text NOT IN (SELECT pg_catalog.jsonb_array_elements_text($2::pg_catalog.jsonb)))
     SELECT (SELECT pg_catalog.count(*) FROM drawn),
            COALESCE(pg_catalog.bool_and(pg_catalog.to_regclass(n)::pg_catalog.oid IN (SELECT refobjid FROM drawn)), true)
       FROM pg_catalog.jsonb_array_elements_text($3::pg_catalog.jsonb) n`,
    [insert[1], JSON.stringify(columns), JSON.stringify(named)],
  );
  const [count, all] = drawn!.rows[0]!;
  const lastval = /\blastval\s*\(/i.test(reading);
  return count !== '0' && all === 't' && (!lastval || count === '1');
}
