// Text the isolation tester prints, built the way libpq builds it: result tables by
// PQprint (src/interfaces/libpq/fe-print.c, with header, align and fieldSep "|" as
// isolationtester.c's printResultSet asks), and error text by pqBuildErrorMessage3 and
// reportErrorPosition (src/interfaces/libpq/fe-protocol3.c) at default verbosity.
import type { Field, Notice, PgErrorFields, Row } from '../engine/types';

// PQprint measures and pads in bytes (PQgetlength, strlen, printf "%-*s").
const byteLength = (s: string) => new TextEncoder().encode(s).length;
const padRight = (s: string, width: number) => s + ' '.repeat(Math.max(0, width - byteLength(s)));
const padLeft = (s: string, width: number) => ' '.repeat(Math.max(0, width - byteLength(s))) + s;

/**
 * do_field's test for a numeric column: every character is a digit, `.`, `E`, `e`,
 * space or `-`, the last one is a digit and the first is not `E`/`e`. One non-numeric
 * value makes the whole column left-aligned.
 */
function looksNumeric(value: string): boolean {
  let last = '0';
  for (const ch of value) {
    last = ch;
    if (!/[0-9.Ee -]/.test(ch)) return false;
  }
  return !(value[0] === 'E' || value[0] === 'e') && /[0-9]/.test(last);
}

/**
 * A result set as the tester prints it: `id|data`, a `--+----` rule, aligned rows,
 * `(N rows)` and a blank line. A result with no columns prints nothing, as PQprint does.
 */
export function formatResultSet(fields: Field[], rows: Row[]): string {
  if (fields.length === 0) return '';
  const widths = fields.map((f) => byteLength(f.name));
  const numeric = fields.map(() => true);
  for (const row of rows) {
    row.forEach((value, j) => {
      // NULL and '' are skipped: they neither widen the column nor decide its alignment.
      if (value === null || value === '') return;
      if (numeric[j] && !looksNumeric(value)) numeric[j] = false;
      widths[j] = Math.max(widths[j]!, byteLength(value));
    });
  }
  const cell = (value: string, j: number) =>
    numeric[j] ? padLeft(value, widths[j]!) : padRight(value, widths[j]!);
  const lines = [
    fields.map((f, j) => cell(f.name, j)).join('|'),
    widths.map((w) => '-'.repeat(w)).join('+'),
    ...rows.map((row) => fields.map((_, j) => cell(row[j] ?? '', j)).join('|')),
  ];
  return `${lines.join('\n')}\n(${rows.length} row${rows.length === 1 ? '' : 's'})\n\n`;
}

/**
 * The `LINE n: ...` and caret lines libpq adds under an error with a position
 * (reportErrorPosition); every character counts as one screen column here.
 */
export function formatErrorPosition(query: string, position: number): string {
  const displaySize = 60;
  const minRightCut = 10;
  const loc = position - 1;
  if (loc < 0) return '';
  const chars = [...query].map((c) => (c === '\t' ? ' ' : c));
  let line = 1;
  let begin = 0;
  let end = -1;
  let cno = 0;
  for (; cno < chars.length; cno++) {
    const ch = chars[cno];
    if (ch === '\r' || ch === '\n') {
      if (cno < loc) {
        if (ch === '\r' || cno === 0 || chars[cno - 1] !== '\r') line++;
        begin = cno + 1;
      } else {
        end = cno;
        break;
      }
    }
  }
  if (end < 0) end = cno;
  if (loc > cno) return '';
  let beginCut = false;
  let endCut = false;
  if (end - begin > displaySize) {
    if (begin + displaySize >= loc + minRightCut) {
      while (end - begin > displaySize) end--;
      endCut = true;
    } else {
      while (loc + minRightCut < end) {
        end--;
        endCut = true;
      }
      while (end - begin > displaySize) {
        begin++;
        beginCut = true;
      }
    }
  }
  const prefix = `LINE ${line}: ${beginCut ? '...' : ''}`;
  const text = chars.slice(begin, end).join('');
  return `${prefix}${text}${endCut ? '...' : ''}\n${' '.repeat(prefix.length + loc - begin)}^\n`;
}

/**
 * An error or notice as libpq's PQerrorMessage shows it: `ERROR:  message`, the position
 * lines when the query is known, then `DETAIL:` and `HINT:` lines; ends with a newline.
 */
export function formatServerMessage(
  fields: Pick<PgErrorFields, 'severity' | 'message' | 'detail' | 'hint' | 'position'>,
  query?: string,
): string {
  let text = `${fields.severity}:  ${fields.message}`;
  if (fields.position !== undefined && query === undefined)
    text += ` at character ${fields.position}`;
  text += '\n';
  if (fields.position !== undefined && query !== undefined)
    text += formatErrorPosition(query, fields.position);
  if (fields.detail) text += `DETAIL:  ${fields.detail}\n`;
  if (fields.hint) text += `HINT:  ${fields.hint}\n`;
  return text;
}

/** A notice as the tester's notice processor prints it: `s1: NOTICE:  message`. */
export function formatNotice(sessionName: string, notice: Notice): string {
  return `${sessionName}: ${formatServerMessage(notice)}`;
}
