/**
 * The console's words around PostgreSQL's output: command tags, message lines in psql's
 * layout, and the one-line summary read out to screen readers.
 */
import type { StopOutcome } from '../engine/page';
import {
  answerCaps,
  type Notice,
  type PgErrorFields,
  type QueryResult,
  type StatementResult,
} from '../engine/types';

/**
 * Commands whose tag carries a row count (`display_rowcount` in PostgreSQL's
 * src/include/tcop/cmdtaglist.h); every other tag is the verb alone, e.g. `VACUUM`.
 */
const COUNTED = new Set(['INSERT', 'DELETE', 'UPDATE', 'MERGE', 'SELECT', 'MOVE', 'FETCH', 'COPY']);

/**
 * The command tag as psql prints it, e.g. `DELETE 3`, `SELECT 2`, `VACUUM`. INSERT's tag
 * is `INSERT 0 n`: the 0 is the OID field, always 0 since PostgreSQL 12
 * (BuildQueryCompletionString in src/backend/tcop/cmdtag.c).
 */
export function commandTag(result: StatementResult): string {
  const command = result.command.toUpperCase();
  if (!COUNTED.has(command)) return result.command;
  const count = result.rowCount ?? (command === 'SELECT' ? result.rows.length : null);
  if (count === null) return result.command;
  return command === 'INSERT' ? `${result.command} 0 ${count}` : `${result.command} ${count}`;
}

/** A notice in psql's layout: `INFO:  message`, then `DETAIL:  …` and `HINT:  …` lines. */
export function noticeText(notice: Notice): string {
  return messageLines(notice.severity, notice).join('\n');
}

/** The lines psql prints for a message: severity line, then DETAIL and HINT when present. */
export function messageLines(
  severity: string,
  fields: Pick<PgErrorFields, 'message' | 'detail' | 'hint'>,
): string[] {
  const lines = [`${severity}:  ${fields.message}`];
  if (fields.detail) lines.push(`DETAIL:  ${fields.detail}`);
  if (fields.hint) lines.push(`HINT:  ${fields.hint}`);
  return lines;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** `3 statements ran. 1 notice.`: the status line after a query that succeeded. */
export function summarise(result: QueryResult): string {
  const ran = `${plural(result.results.length, 'statement')} ran.`;
  const notices = result.notices.length + (result.noticesOmitted ?? 0);
  return notices > 0 ? `${ran} ${plural(notices, 'notice')}.` : ran;
}

/** `ERROR 42601: syntax error at or near "SELEC"`: the status line after an error. */
export function summariseError(
  error: Pick<PgErrorFields, 'severity' | 'code' | 'message'>,
): string {
  return `${error.severity} ${error.code}: ${error.message}`;
}

/** `text` as a sentence: ending in a full stop unless it already ends in one, `?` or `!`. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.?!…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

const count = (n: number) => n.toLocaleString('en');

/**
 * The line under a result that shows fewer rows than PostgreSQL returned, naming the limit
 * that applied: `Showing 500 of 10,000,000 rows: …`. `drawn` is how many the page draws.
 */
export function keptRows(result: StatementResult, drawn: number): string {
  const kept = result.rows.length;
  const total = kept + (result.rowsOmitted?.count ?? 0);
  const shown = Math.min(kept, drawn);
  const head = `Showing ${count(shown)} of ${count(total)} ${total === 1 ? 'row' : 'rows'}`;
  const draws = kept > drawn ? ` The page draws the first ${count(drawn)}.` : '';
  if (!result.rowsOmitted) return `${head}.${draws}`;
  const cap =
    result.rowsOmitted.cap === 'rows'
      ? `the first ${count(answerCaps.rows)} rows of a result`
      : `the first ${count(answerCaps.bytes / 1_000_000)} MB of an answer`;
  return (
    `${head}: the in-browser engine keeps ${cap} (a limit of this site, not of PostgreSQL), ` +
    `and PostgreSQL counted every row.${draws}`
  );
}

/**
 * Characters of one value the page draws: a cell of 100,000 characters took the page a
 * task of 190 ms to lay out (ten of them, in the hostile-input test) and reads no better
 * than its start.
 */
export const CELL_CHARS = 2000;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * `value` as a cell draws it: its first `limit` UTF-16 units (never half a surrogate pair),
 * and the words for what is left out, if anything is.
 */
export function cellText(value: string, limit = CELL_CHARS): { shown: string; more?: string } {
  if (value.length <= limit) return { shown: value };
  const end = isHighSurrogate(value.charCodeAt(limit - 1)) ? limit - 1 : limit;
  let left = 0; // characters, so a pair counts once
  for (let i = end; i < value.length; i++) if (!isLowSurrogate(value.charCodeAt(i))) left++;
  return {
    shown: value.slice(0, end),
    more: `… ${count(left)} more ${left === 1 ? 'character' : 'characters'} not drawn (a limit of this page)`,
  };
}

/** The line under notices cut short by the caps: how many more PostgreSQL sent. */
export function keptNotices(kept: number, omitted: number): string {
  return (
    `${count(omitted)} more ${omitted === 1 ? 'notice' : 'notices'} not shown: the in-browser ` +
    `engine keeps ${count(answerCaps.notices)} notices and ` +
    `${count(answerCaps.bytes / 1_000_000)} MB of an answer (a limit of this site, not of ` +
    `PostgreSQL); these are the first ${count(kept)}.`
  );
}

/** What Stop did, in words, when it did more than a server's cancel (null otherwise). */
export function stopWords(outcome: StopOutcome): string | null {
  if (outcome.kind !== 'replaced') return null;
  const modelled =
    'the engine’s worker was replaced and every session rebuilt from its journal, as after ' +
    'the watchdog (modelled: a server would interrupt the statement itself)';
  return outcome.queued
    ? 'Stopped before it started. It was waiting its turn behind other work PostgreSQL was ' +
        `busy with (another session’s statement, say), so ${modelled}. This statement was ` +
        'cancelled (SQLSTATE 57014); a statement it waited behind started again from the beginning.'
    : 'Stopped. PostgreSQL was busy with this statement, and inside the browser it cannot be ' +
        `interrupted, so ${modelled}. The statement was cancelled as a server’s cancel ` +
        'cancels it (SQLSTATE 57014) and was not run again; the other sessions are as they were.';
}
