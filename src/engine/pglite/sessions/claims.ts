// Claims in a parked transaction's log: statements that answer by which rows others hold
// (SKIP LOCKED, NOWAIT), and whether a replay of one takes the same rows (ARCHITECTURE.md,
// "Resuming a parked transaction").
import { splitStatements } from '../../split-statements';
import type { BackendReply } from '../backend';
import { lockedKeyChange } from '../waits';
import type { LayerContext, LoggedStatement, SessionRecord } from './context';
import { bareName, enforcedUnique, fromOneTable, uniqueColumn } from './keys';
import { quoteIdent } from './recheck';
import { loadSettings } from './session-settings';

/** Clauses whose answer depends on which rows others hold locks on. */
export const answersByLocks = /\bSKIP\s+LOCKED\b|\bNOWAIT\b/i;

/** Statements that read no rows: a transaction's own beginning, settings, savepoints. */
export const readsNoRows = /^\s*(?:BEGIN|START\s+TRANSACTION|SET|RESET|SHOW|SAVEPOINT|RELEASE)\b/i;

/**
 * ROLLBACK TO SAVEPOINT, which gives up the row locks taken since the savepoint (after
 * any comments).
 */
export const toSavepoint =
  /^(?:\s|\/\*[\s\S]*?\*\/|--[^\n]*(?:\n|$))*ROLLBACK\s+(?:WORK\s+|TRANSACTION\s+)?TO\b/i;

/** A 53-bit hash of `text` (cyrb53), with its length: what a log keeps of an answer. */
export function hashText(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `${text.length}:${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}`;
}

/** The columns and rows of a reply's last result, as a hash (see `claimHolds`). */
function rowsKey(reply: BackendReply): string | null {
  const last = reply.results.at(-1);
  if (!last || reply.error || last.rowsOmitted) return null;
  return hashText(JSON.stringify([last.fields, last.rows]));
}

/** One column's values in a reply's last result, sorted, as a hash (see `claimHolds`). */
function keysKey(reply: BackendReply, column: number): string | null {
  const last = reply.results.at(-1);
  if (!last || reply.error || last.rowsOmitted || column < 0) return null;
  return hashText(JSON.stringify(last.rows.map((row) => row[column] ?? null).sort()));
}

/**
 * What the log keeps of a claim, beside its answer: the other transactions open when it
 * ran, its rows (hashed: a SELECT's columns and rows, or the keys an UPDATE or DELETE of
 * the claim query's shape returned), and where a SELECT's columns come from.
 */
export function claimRecord(
  ctx: LayerContext,
  s: SessionRecord,
  sql: string,
  reply: BackendReply,
): Pick<LoggedStatement, 'holders' | 'rows' | 'origins'> {
  if (!answersByLocks.test(sql)) return {};
  const last = splitStatements(sql).at(-1)?.sql ?? '';
  const change = lockedKeyChange(last);
  const fields = reply.results.at(-1)?.fields ?? [];
  const rows = change
    ? keysKey(reply, fields.length > 0 ? onlyIndex(fields, bareName(change.key)) : -1)
    : rowsKey(reply);
  const origins = change ? undefined : reply.origins?.at(-1);
  const result = reply.results.at(-1);
  const key = change && fields.length > 0 ? onlyIndex(fields, bareName(change.key)) : -1;
  const claimed =
    rows && result && result.rows.length <= claimedRows
      ? change
        ? result.rows.map((row) => [row[key] ?? null])
        : result.rows.map((row) => [...row])
      : undefined;
  return {
    holders: lockHolders(ctx, s),
    ...(rows ? { rows } : {}),
    ...(origins ? { origins: [...origins] } : {}),
    ...(claimed ? { claimed } : {}),
  };
}

/** The most rows of a claim the log keeps, to lock them again by key (`claimByKeys`). */
const claimedRows = 100;

/** The index of the one field named `name`, or -1 when none or several are. */
function onlyIndex(fields: readonly { name: string }[], name: string): number {
  const at = fields.flatMap((f, i) => (f.name === name ? [i] : []));
  return at.length === 1 ? at[0]! : -1;
}

/**
 * The transactions of sessions other than `s` that may hold row locks now, those with an
 * XID of their own, as `session:xactSeq:undone`, where `undone` counts the ROLLBACK TO
 * SAVEPOINTs it ran, which give up row locks too (a replay keeps all three; `?` when its
 * log is gone and it cannot be told).
 */
function lockHolders(ctx: LayerContext, s: SessionRecord): string[] {
  return [...ctx.sessions.values()].flatMap((r) => {
    const h = r.holding;
    const xid = h.kind === 'parked' ? !h.emulatedSnapshot : h.kind === 'resident' && r.xid !== null;
    if (r === s || !xid) return [];
    const undone = r.xactLog?.filter((e) =>
      splitStatements(e.sql).some(({ sql }) => toSavepoint.test(sql)),
    );
    return [`${r.id}:${r.xactSeq}:${undone?.length ?? '?'}`];
  });
}

/**
 * Whether one of the transactions open when a claim of `s`'s log ran has since ended, by
 * COMMIT or ROLLBACK, or rolled back to a savepoint: row locks went with it, so the claim
 * run again could take rows it skipped. One that could not be told counts as changed.
 */
export function holderEnded(ctx: LayerContext, s: SessionRecord): boolean {
  if (!s.xactLog!.some((e) => e.holders)) return false;
  const open = new Set(lockHolders(ctx, s));
  return s.xactLog!.some((e) => e.holders?.some((h) => h.endsWith('?') || !open.has(h)));
}

/**
 * After `s`'s transaction ran again as a replay, its claims ran beside the transactions
 * open now: those are the ones whose rows they skipped.
 */
export function claimsRanAgain(ctx: LayerContext, s: SessionRecord): void {
  const holders = lockHolders(ctx, s);
  for (const e of s.xactLog ?? []) if (e.holders) e.holders = holders;
}

/** A locking clause that skips or refuses locked rows, as a claim's ends with. */
const lockingClause =
  /\s+FOR\s+(?:NO\s+KEY\s+UPDATE|UPDATE|KEY\s+SHARE|SHARE)(?:\s+OF\s+[^;]*?)?\s+(?:SKIP\s+LOCKED|NOWAIT)\b/gi;

/**
 * What a claim may not contain: another query, another table, rows made up of several,
 * or an OFFSET, whose rows it locks without returning them (LockRows runs below Limit).
 */
const notOneTable =
  /\b(?:JOIN|UNION|INTERSECT|EXCEPT|GROUP|HAVING|WINDOW|DISTINCT|WITH|LATERAL|TABLESAMPLE|OFFSET|TABLE|VALUES)\b|\bSELECT\b[\s\S]*\bSELECT\b/i;

/**
 * Why a replay of `entry`, a claim, might not lock the rows it locked the first time, or
 * null when it locks the same ones. The claim is one of two shapes:
 * - a SELECT of one table that locks the rows it returns, with a key in them: its
 *   columns, as RowDescription names their origins, hold every column of a unique index
 *   without NULLs, so the same answer is the same rows;
 * - the claim query: an UPDATE or DELETE of the rows whose unique key a subquery of the
 *   same table locks (`key = (SELECT key … FOR UPDATE SKIP LOCKED LIMIT 1)`, or `IN`),
 *   which returns that key, so the keys it returned are the rows it locked and changed.
 * The replay's candidates are the rows that match now and that no one else holds; its own
 * rows are free once the original is rolled back. So the query that picks the rows, the
 * SELECT or the subquery, without its locking clause and asked before anything is rolled
 * back (outside any transaction: the layer set the resident one aside), walked past the
 * rows others hold (`walkPast`), must pick exactly what the claim did, with ties in its
 * order broken either way: those rows then come first, and none that others freed or
 * changed since comes before them, whatever order the replay's plan meets tied rows in.
 */
export async function claimHolds(
  ctx: LayerContext,
  s: SessionRecord,
  entry: LoggedStatement,
): Promise<string | null | { replayAs: string }> {
  const why = 'it skipped or refused locked rows, and others have let rows go or written since';
  // The claim is the entry's last statement: its rows are the last result. Any before it
  // read no rows (BEGIN, SET).
  const statements = splitStatements(entry.sql);
  const { sql } = statements.at(-1)!;
  if (!statements.slice(0, -1).every((st) => readsNoRows.test(st.sql))) return why;
  if (!entry.rows || !answersByLocks.test(sql)) return why;
  // The probe runs outside the transaction: nothing before the claim may have written.
  const before = s.xactLog!.slice(0, s.xactLog!.indexOf(entry));
  const wrote = before.some(
    (e) => !e.holders && splitStatements(e.sql).some((st) => !readsNoRows.test(st.sql)),
  );
  if (wrote) return `${why}, after statements of its own the check cannot see`;
  const change = lockedKeyChange(sql);
  const picked = change ? await keyChange(ctx, change, entry) : await keyedSelect(ctx, sql, entry);
  if (typeof picked === 'string') return `${why}, and ${picked}`;
  // Asked as the session would: its settings (search_path) name the same table.
  await loadSettings(ctx, s);
  const hash = (reply: BackendReply) => (change ? keysKey(reply, 0) : rowsKey(reply));
  // Rows tied in the claim's order come in whatever order its plan meets them, which need
  // not be the probe's: the rows it picks must be the same whichever way ties are broken.
  let same = true;
  for (const tiebreak of ['ASC', 'DESC'] as const) {
    same &&= (await walkPast(ctx, s, picked, entry, hash, tiebreak)) === entry.rows;
  }
  if (same) return null;
  const instead = await claimByKeys(ctx, picked, entry, change ? null : statements, hash);
  return instead ?? `${why}, so it could take other rows now`;
}

/**
 * The claim of `entry` as its replay can run it when it would take other rows now: its own
 * rows, by their keys, locked as it locked them. On a server the transaction goes on
 * holding exactly those rows; they were locked by it all along, so no one has changed
 * them, and once the original is rolled back no one else holds them. So the query that
 * picked them, asked for those keys only (in the order the claim gave them) with its
 * locking clause but without SKIP LOCKED or NOWAIT, answers as the claim did and takes the
 * same locks. Asked first without the locking clause, it must give the claim's answer.
 * Null when the claim's keys were not kept, or the key is of several columns.
 */
async function claimByKeys(
  ctx: LayerContext,
  picked: Picked,
  entry: LoggedStatement,
  statements: readonly { sql: string }[] | null,
  hash: (reply: BackendReply) => string | null,
): Promise<{ replayAs: string } | null> {
  const [name, ...more] = picked.key.names;
  const at = statements ? picked.key.at[0]! : 0;
  if (!entry.claimed || !name || more.length > 0 || at < 0) return null;
  const keys = entry.claimed.map((row) => row[at]);
  if (keys.some((k) => k === null || k === undefined)) return null;
  const claim = statements
    ? statements.at(-1)!.sql
    : lockedKeyChange(lastStatement(entry))!.subquery;
  const locking = claim.match(lockingClause);
  const plain = keyed(picked.probe, name, keys as string[]);
  if (!plain || locking?.length !== 1) return null;
  const probe = await ctx.backend.run(plain, entry.params);
  if (hash(probe) !== entry.rows) return null;
  const lockedAs = `${plain} ${locking[0]!.replace(/\s+(?:SKIP\s+LOCKED|NOWAIT)$/i, '').trim()}`;
  if (statements) {
    return {
      replayAs: [...statements.slice(0, -1).map((st) => st.sql), lockedAs].join(';\n'),
    };
  }
  const all = splitStatements(entry.sql);
  const last = all.at(-1)!.sql;
  if (!last.includes(claim)) return null;
  return {
    replayAs: [...all.slice(0, -1).map((st) => st.sql), last.replace(claim, lockedAs)].join(';\n'),
  };
}

const lastStatement = (entry: LoggedStatement) => splitStatements(entry.sql).at(-1)!.sql;

/**
 * `probe` without its one LIMIT (a number, `literal`, or a parameter's number, `param`) and
 * a closing semicolon; null when it has more than one, or OFFSET or FETCH.
 */
function withoutLimit(
  probe: string,
): { unlimited: string; literal?: string; param?: string } | null {
  const limits = [...probe.matchAll(/\s+LIMIT\s+(?:(\d+)|\$(\d+))\b/gi)];
  if (limits.length > 1 || /\b(?:OFFSET|FETCH)\b/i.test(probe)) return null;
  const [clause, literal, param] = limits[0] ?? [];
  const unlimited = (clause ? probe.replace(clause, '') : probe).replace(/[\s;]*$/, '');
  return { unlimited, ...(literal ? { literal } : {}), ...(param ? { param } : {}) };
}

/**
 * `probe` (a claim's query without its locking clause) asked for the rows whose `key` is
 * one of `keys` only, in that order, without its LIMIT; null for a shape not handled here.
 */
function keyed(probe: string, key: string, keys: string[]): string | null {
  const text = withoutLimit(probe)?.unlimited;
  if (text === undefined) return null;
  const clauses = topLevel(text);
  const end = clauses.orderBy ?? text.length;
  const where = clauses.where;
  const head = text.slice(0, where?.at ?? end);
  const condition = where ? text.slice(where.at + where.length, end) : null;
  const element = (k: string) => `"${k.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  const list = `'{${keys.map(element).join(',').replace(/'/g, "''")}}'::pg_catalog.text[]`;
  const value = `${key}::pg_catalog.text`;
  return (
    `${head.trimEnd()} WHERE ${condition ? `(${condition.trim()}) AND ` : ''}` +
    `${value} = ANY (${list}) ORDER BY pg_catalog.array_position(${list}, ${value})`
  );
}

/** The query that picks a claim's rows without locking them, and the key those rows have. */
interface Picked {
  probe: string;
  table: string;
  /** The key's columns, quoted, and where each is in the probe's answer. */
  key: { names: string[]; at: number[] };
}

/**
 * What the replay's claim would pick: the probe without its LIMIT, in its order with ties
 * broken by where rows lie (`tiebreak`), past the rows whose key another open transaction
 * holds (their xmax is its XID: locked, or changed and not committed), cut to the LIMIT.
 * SKIP LOCKED steps over those rows; NOWAIT fails on the first it meets, so a NOWAIT claim
 * that would meet one picks nothing here. Null when that cannot be told: OFFSET or FETCH,
 * a LIMIT that is not a number, more rows than are kept.
 */
async function walkPast(
  ctx: LayerContext,
  s: SessionRecord,
  picked: Picked,
  entry: LoggedStatement,
  hash: (reply: BackendReply) => string | null,
  tiebreak: 'ASC' | 'DESC',
): Promise<string | null> {
  const cut = withoutLimit(picked.probe);
  if (!cut) return null;
  const { unlimited, literal, param } = cut;
  const limit = literal ?? (param ? String(entry.params?.[Number(param) - 1]) : 'ALL');
  const n = limit === 'ALL' ? Infinity : Number(limit);
  if (!Number.isSafeInteger(n) && n !== Infinity) return null;
  // tableoid with ctid: a partitioned table's partitions each number their own rows.
  const broken = `tableoid ${tiebreak}, ctid ${tiebreak}`;
  const ordered =
    topLevel(unlimited).orderBy !== undefined
      ? `${unlimited}, ${broken}`
      : `${unlimited} ORDER BY ${broken}`;
  const others = [...ctx.sessions.values()].flatMap((r) =>
    r !== s && r.holding.kind === 'parked' && !r.holding.emulatedSnapshot ? [r.holding.xid] : [],
  );
  const held = await ctx.backend.run(
    `SELECT ${picked.key.names.map((c) => `${c}::pg_catalog.text`).join(', ')}
       FROM ${picked.table} WHERE xmax::pg_catalog.text = ANY ($1::pg_catalog.text[])`,
    [`{${others.join(',')}}`],
  );
  const all = await ctx.backend.run(ordered, entry.params, walkCaps);
  const last = all.results.at(-1);
  if (held.error || !held.results[0] || !last || last.rowsOmitted) return null;
  const taken = new Set(held.results[0].rows.map((row) => JSON.stringify(row)));
  const keyOf = (row: (string | null)[]) =>
    JSON.stringify(picked.key.at.map((i) => row[i] ?? null));
  const skips = /\bSKIP\s+LOCKED\b/i.test(entry.sql);
  const rows: (string | null)[][] = [];
  for (const row of last.rows) {
    if (rows.length >= n) break;
    if (!taken.has(keyOf(row))) rows.push(row);
    else if (!skips) return null;
  }
  return hash({ ...all, results: [{ ...last, rows }] });
}

/**
 * Where `sql`'s own WHERE and ORDER BY are, outside parentheses and quotes (those of a
 * subquery are its own): the offset and length of each keyword.
 */
function topLevel(sql: string): {
  where?: { at: number; length: number };
  orderBy?: number;
} {
  let depth = 0;
  const found: ReturnType<typeof topLevel> = {};
  const tokens =
    /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|[()]|\bWHERE\b|\bORDER\s+BY\b/gi;
  for (const { 0: token, index } of sql.matchAll(tokens)) {
    if (token === '(') depth++;
    else if (token === ')') depth--;
    else if (depth !== 0) continue;
    else if (/^WHERE$/i.test(token)) found.where ??= { at: index, length: token.length };
    else if (/^ORDER/i.test(token)) found.orderBy ??= index;
  }
  return found;
}

/** What a walk past held rows keeps of the claim's query without its LIMIT. */
const walkCaps = { rows: 5000, bytes: 4_000_000, notices: 0 };

/** The table a claim locks rows of, by the name it gives, if it is of a shape known here. */
export function claimTable(sql: string): string | null {
  return lockedKeyChange(sql)?.table ?? fromOneTable.exec(sql)?.[1] ?? null;
}

/** What picks a query's rows without locking them: it, without its one locking clause. */
function unlocked(sql: string): string | null {
  const table = fromOneTable.exec(sql)?.[1];
  if (!table || notOneTable.test(sql) || (sql.match(lockingClause) ?? []).length !== 1) return null;
  return sql.replace(lockingClause, '');
}

/** The claim SELECT `sql` without its locking clause (the probe), or why its rows cannot be told. */
async function keyedSelect(
  ctx: LayerContext,
  sql: string,
  entry: LoggedStatement,
): Promise<string | Picked> {
  const plain = unlocked(sql);
  const table = fromOneTable.exec(sql)?.[1];
  if (!plain || !table || !entry.origins) return 'it is not a SELECT of one table';
  // Computed columns come from no table (0); the rest must come from its table.
  const columns = entry.origins.filter(([t]) => t !== 0);
  const [keyed] = await ctx.backend.exec(
    `SELECT $2::pg_catalog.oid[] <@ ARRAY[r.oid], (
       SELECT pg_catalog.json_agg(pg_catalog.json_build_array(a.attnum, pg_catalog.quote_ident(a.attname)) ORDER BY k.n)::pg_catalog.text
         FROM (SELECT i.indrelid, i.indkey FROM pg_catalog.pg_index i
                WHERE ${enforcedUnique} AND i.indkey::pg_catalog.int2[] <@ $3::pg_catalog.int2[]
                LIMIT 1) i
        CROSS JOIN LATERAL pg_catalog.unnest(i.indkey::pg_catalog.int2[]) WITH ORDINALITY k(attnum, n)
         JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum)
       FROM pg_catalog.pg_class r WHERE r.oid = pg_catalog.to_regclass($1)`,
    [
      table,
      `{${[...new Set(columns.map(([t]) => t))].join(',')}}`,
      `{${columns.map(([, c]) => c).join(',')}}`,
    ],
  );
  const [oneTable, key] = keyed!.rows[0] ?? [];
  if (oneTable !== 't' || !key) return 'its answer does not show which rows it locked';
  const parts = JSON.parse(key) as [number, string][];
  const at = parts.map(([attnum]) => entry.origins!.findIndex(([t, c]) => t !== 0 && c === attnum));
  return { probe: plain, table, key: { names: parts.map(([, name]) => name), at } };
}

/**
 * The subquery of a claim UPDATE or DELETE without its locking clause (the probe), or why the rows
 * it changed cannot be told: the subquery reads the table changed, and the key it
 * compares is a unique column without NULLs that the statement returns (checked as it
 * was logged: `claimRecord` kept those keys only then).
 */
async function keyChange(
  ctx: LayerContext,
  change: { table: string; key: string; subquery: string },
  entry: LoggedStatement,
): Promise<string | Picked> {
  const plain = unlocked(change.subquery);
  const inner = fromOneTable.exec(change.subquery)?.[1];
  if (!plain || !inner) return 'its subquery is not a SELECT of one table';
  // Each of the statement's parameters must be the subquery's, which runs on its own.
  const params = entry.params ?? [];
  if (params.some((_p, i) => !new RegExp(String.raw`\$${i + 1}(?!\d)`).test(change.subquery))) {
    return 'its subquery does not take all of its parameters';
  }
  if (!(await uniqueColumn(ctx, change.table, [bareName(change.key)], inner))) {
    return 'the key it changes rows by is not unique';
  }
  // The subquery's one column is the key (its answer is compared with the keys returned).
  return {
    probe: plain,
    table: inner,
    key: { names: [quoteIdent(bareName(change.key))], at: [0] },
  };
}
