// Checking a step's claims on its output: the same code judges the reader's PGlite in the
// player, PostgreSQL 18 in the tests, and a recording of PostgreSQL 18 in both.
import type { Notice, PgErrorFields, QueryResult, StatementResult } from '../engine/types';
import type { Claim } from './schema';

/** What a step gave, as plain data (it crosses a worker boundary and goes in recordings). */
export interface StepOutput {
  /** It was seen waiting before it completed. */
  waited: boolean;
  /** Statements that completed, in order (those before the error, when it failed). */
  results: StatementResult[];
  notices: Notice[];
  /** The PostgreSQL error it ended with, if any. */
  error?: PgErrorFields;
  /** Milliseconds from sending it to its answer. */
  elapsedMs: number;
}

/** A claim judged on a step's output: whether it held, and what was seen. */
export interface ClaimCheck {
  says: string;
  held: boolean;
  /** What the output showed, in a few words, e.g. `rows: (3), (4)` or `waited`. */
  seen: string;
}

/** Values kept by earlier steps for later claims, by name. */
export type Kept = Record<string, string | null>;

/** The last result that has columns: the one a reader looks at. */
export function lastRows(output: Pick<StepOutput, 'results'>): StatementResult | undefined {
  return output.results.findLast((r) => r.fields.length > 0);
}

/** Every line of every notice, trimmed (VACUUM VERBOSE sends one notice of many lines). */
export function noticeLines(notices: Notice[]): string[] {
  return notices.flatMap((n) => n.message.split('\n')).map((line) => line.trim());
}

/** `{name}` in `text` replaced by kept values; an unknown name stays as it is. */
export function fillKept(text: string, kept: Kept): string {
  return text.replace(/\{([\w-]+)\}/g, (whole, key: string) =>
    key in kept ? (kept[key] ?? 'NULL') : whole,
  );
}

/** The first group (or the whole match) of the first notice line matching `pattern`. */
function noticeMatch(notices: Notice[], pattern: string): string | undefined {
  const re = new RegExp(pattern);
  for (const line of noticeLines(notices)) {
    const m = re.exec(line);
    if (m) return m[1] ?? m[0];
  }
  return undefined;
}

/** The values `keep` asks for, read from a step's output. */
export function keptValues(
  keep: Record<string, string | { column: string } | { notice: string }>,
  output: StepOutput,
): Kept {
  const kept: Kept = {};
  for (const [name, spec] of Object.entries(keep)) {
    if (typeof spec === 'object' && 'notice' in spec) {
      kept[name] = noticeMatch(output.notices, spec.notice) ?? null;
      continue;
    }
    const column = typeof spec === 'string' ? spec : spec.column;
    const result = lastRows(output);
    const at = result?.fields.findIndex((f) => f.name === column) ?? -1;
    kept[name] = at < 0 ? null : (result!.rows[0]?.[at] ?? null);
  }
  return kept;
}

const rowText = (row: (string | null)[]) =>
  `(${row.map((v) => (v === null ? 'NULL' : v)).join(', ')})`;

/** Judges one claim on a step's output, with the values kept so far. */
export function checkClaim(claim: Claim, output: StepOutput, kept: Kept): ClaimCheck {
  const says = fillKept(claim.says, kept);
  const verdict = (held: boolean, seen: string): ClaimCheck => ({ says, held, seen });
  const errorSeen = output.error
    ? `error ${output.error.code}: ${output.error.message}`
    : 'no error';
  if (claim.waits !== undefined)
    return verdict(output.waited === claim.waits, output.waited ? 'it waited' : 'it did not wait');
  if (claim.ok) return verdict(output.error === undefined, errorSeen);
  if (claim.lasts) {
    const seconds = Number(claim.lasts.at_least);
    return verdict(
      output.elapsedMs >= seconds * 1000,
      `it answered after ${(output.elapsedMs / 1000).toFixed(2)} s`,
    );
  }
  if (claim.error) {
    const held =
      output.error?.code === claim.error.code &&
      (claim.error.message === undefined || output.error.message === claim.error.message);
    return verdict(held, errorSeen);
  }
  if (claim.tag !== undefined) {
    const last = output.results.at(-1);
    const tag = last ? [last.command, last.rowCount].filter((x) => x !== null).join(' ') : '';
    return verdict(tag === claim.tag, tag ? `tag ${tag}` : 'no command tag');
  }
  if (claim.differs) {
    const { column } = claim.differs;
    const result = lastRows(output);
    const at = result?.fields.findIndex((f) => f.name === claim.differs!.column) ?? -1;
    if (!result || at < 0) return verdict(false, `no column ${claim.differs.column}`);
    const value = result.rows[0]?.[at] ?? null;
    const before = fillKept(claim.differs.from, kept);
    // The values themselves are in the row shown; the verdict says only how they compare.
    const seen =
      value === null ? 'NULL' : value === before ? `the same ${column}` : 'another value';
    return verdict(value !== null && value !== before, seen);
  }
  if (claim.rows) {
    const result = lastRows(output);
    if (!result) return verdict(false, `no rows came back (${errorSeen})`);
    const columns = claim.rows.columns ?? result.fields.map((f) => f.name);
    const at = columns.map((c) => result.fields.findIndex((f) => f.name === c));
    if (at.some((i) => i < 0))
      return verdict(false, `no column ${columns[at.findIndex((i) => i < 0)]}`);
    const wantedRows = claim.rows.equals ?? claim.rows.starts_with!;
    const all = result.rows.map((row) => at.map((i) => row[i] ?? null));
    const actual = claim.rows.equals ? all : all.slice(0, wantedRows.length);
    const wanted = wantedRows.map((row) =>
      row.map((v) => (v === null ? null : fillKept(String(v), kept))),
    );
    const text = (rows: (string | null)[][]) => {
      const lines = rows.map((row) => JSON.stringify(row));
      return JSON.stringify(claim.rows!.any_order ? lines.sort() : lines);
    };
    const held = text(actual) === text(wanted);
    return verdict(held, all.length ? `rows ${all.map(rowText).join(', ')}` : 'no rows');
  }
  const notice = claim.notice!;
  const found = noticeMatch(output.notices, notice.matches);
  if (found === undefined) return verdict(false, 'no such notice line');
  let held = true;
  if (notice.equals !== undefined) held &&= found === fillKept(String(notice.equals), kept);
  if (notice.atLeast !== undefined) held &&= Number(found) >= notice.atLeast;
  if (notice.atMost !== undefined) held &&= Number(found) <= notice.atMost;
  return verdict(held, found);
}

/** A step's output from what the engine answered. */
export function stepOutput(
  waited: boolean,
  elapsedMs: number,
  result: QueryResult | undefined,
  error: PgErrorFields | undefined,
  partial: QueryResult | undefined,
): StepOutput {
  const reply = result ?? partial ?? { results: [], notices: [] };
  return {
    waited,
    elapsedMs,
    results: reply.results,
    notices: reply.notices,
    ...(error ? { error } : {}),
  };
}
