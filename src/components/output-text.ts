// PostgreSQL's answer to a step as psql prints it, line by line: aligned result tables
// with their row counts, command tags, notices and the error, each in psql's layout. The
// demos' thumbnails draw these lines.
import type { Notice, PgErrorFields, StatementResult } from '../engine/types';
import { commandTag, messageLines } from './console-text';

/** What a step printed, as its output is recorded. */
export interface PrintedOutput {
  results: StatementResult[];
  notices: Notice[];
  error?: Pick<PgErrorFields, 'severity' | 'message' | 'detail' | 'hint'> & { code?: string };
}

/** psql's aligned table for a result with columns; a command tag for one without. */
export function resultLines(result: StatementResult): string[] {
  if (result.fields.length === 0) return [commandTag(result)];
  const cells = result.rows.map((row) => row.map((v) => v ?? ''));
  const widths = result.fields.map((f, i) =>
    Math.max(f.name.length, ...cells.map((row) => (row[i] ?? '').length)),
  );
  const line = (values: string[], centre: boolean) =>
    values
      .map((v, i) => {
        const w = widths[i]!;
        if (!centre) return ` ${v.padEnd(w)} `;
        const left = Math.floor((w - v.length) / 2);
        return ` ${' '.repeat(left)}${v}${' '.repeat(w - v.length - left)} `;
      })
      .join('|')
      .trimEnd();
  const count = result.rows.length;
  return [
    line(
      result.fields.map((f) => f.name),
      true,
    ),
    widths.map((w) => '-'.repeat(w + 2)).join('+'),
    ...cells.map((row) => line(row, false)),
    `(${count} ${count === 1 ? 'row' : 'rows'})`,
  ];
}

/** Every line psql would print for `output`: notices first, as they arrive, then results. */
export function outputLines(output: PrintedOutput): string[] {
  return [
    ...output.notices.flatMap((n) => messageLines(n.severity, n).flatMap((l) => l.split('\n'))),
    ...output.results.flatMap(resultLines),
    ...(output.error
      ? [
          ...messageLines(output.error.severity, output.error),
          ...(output.error.code ? [`SQLSTATE: ${output.error.code}`] : []),
        ]
      : []),
  ];
}
