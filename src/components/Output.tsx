// PostgreSQL's answers as the site shows them: result tables with their command tags, an
// error in psql's layout with a caret under its position, and notices. The console and
// the scenario player both show output this way.
import { Fragment, useMemo } from 'react';
import type { Notice, PgErrorFields, StatementResult } from '../engine/types';
import {
  cellText,
  commandTag,
  keptRows,
  keptNotices,
  messageLines,
  noticeText,
} from './console-text';
import { formatErrorPointer, locateErrorPosition } from './error-position';

/**
 * Rows drawn per result; more would make the page slow without teaching anything (a
 * thousand rows of a table took 300 ms to draw on a busy 2-core machine). The engine keeps
 * more of a result than this (`answerCaps.rows`): the line under the table says both.
 */
const ROW_LIMIT = 500;

/**
 * Values to point at: a cell equal to one, or a number in a notice equal to one, is
 * marked (e.g. a blocker's XID, in pg_stat_activity and in VACUUM's removable cutoff).
 */
type Marks = ReadonlySet<string>;

const none: Marks = new Set();

/** Every statement's result, in order. */
export function ResultList({
  results,
  marks = none,
}: {
  results: StatementResult[];
  marks?: Marks;
}) {
  return (
    <>
      {results.map((result, index) => (
        <ResultView key={index} result={result} index={index} marks={marks} />
      ))}
    </>
  );
}

function ResultView({
  result,
  index,
  marks,
}: {
  result: StatementResult;
  index: number;
  marks: Marks;
}) {
  const tag = commandTag(result);
  const shown = result.rows.slice(0, ROW_LIMIT);
  return (
    <div className="result">
      <p className="command-tag">{tag}</p>
      {result.fields.length > 0 ? (
        <div
          className="table-scroll"
          tabIndex={0}
          role="group"
          aria-label={`Rows of statement ${index + 1}`}
        >
          <table aria-label={`Statement ${index + 1}: ${tag}`}>
            <thead>
              <tr>
                {result.fields.map((field, column) => (
                  <th key={column} scope="col">
                    {field.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((row, rowIndex) => (
                <tr key={rowIndex}>
                  {result.fields.map((_field, column) => {
                    const value = row[column];
                    return (
                      <td key={column}>
                        {value === null ? (
                          <span className="null">NULL</span>
                        ) : marks.has(value ?? '') ? (
                          <mark>{value}</mark>
                        ) : (
                          <Cell value={value ?? ''} />
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {result.rows.length > ROW_LIMIT || result.rowsOmitted ? (
        <p className="row-limit">{keptRows(result, ROW_LIMIT)}</p>
      ) : null}
    </div>
  );
}

/** A value, cut at `CELL_CHARS` characters with the words for the rest. */
function Cell({ value }: { value: string }) {
  const { shown, more } = cellText(value);
  if (more === undefined) return shown;
  return (
    <>
      {shown}
      <span className="cell-limit">{more}</span>
    </>
  );
}

/** An error as psql prints it, with SQLSTATE; the caret when `query` has the position. */
export function ErrorView({
  query,
  error,
  label = 'Error',
}: {
  query: string;
  error: PgErrorFields;
  /** The region's name; unique on the page when several errors show at once. */
  label?: string;
}) {
  const pointer = useMemo(
    () => (error.position === undefined ? null : locateErrorPosition(query, error.position)),
    [query, error.position],
  );
  const lines = [`${error.severity}:  ${error.message}`];
  if (pointer) lines.push(...formatErrorPointer(pointer));
  lines.push(...messageLines(error.severity, error).slice(1), `SQLSTATE: ${error.code}`);
  return (
    <div className="console-error" role="region" aria-label={label}>
      <pre tabIndex={0}>{lines.join('\n')}</pre>
    </div>
  );
}

/** Notices (VACUUM VERBOSE's lines, warnings) as psql prints them. */
export function NoticeList({
  notices,
  omitted = 0,
  marks = none,
  label = 'Notices',
}: {
  notices: Notice[];
  /** Notices PostgreSQL sent past the engine's caps (`QueryResult.noticesOmitted`). */
  omitted?: number;
  marks?: Marks;
  /** The region's name; unique on the page when several lists show at once. */
  label?: string;
}) {
  if (notices.length === 0 && omitted === 0) return null;
  return (
    <div className="console-notices" role="region" aria-label={label}>
      <p className="panel-title">Notices</p>
      {notices.map((notice, index) => (
        <Fragment key={index}>
          <pre className="notice">{marked(noticeText(notice), marks)}</pre>
          {notice.withheld && notice.withheld !== notices[index - 1]?.withheld ? (
            <p className="row-limit notice-withheld">{notice.withheld}</p>
          ) : null}
        </Fragment>
      ))}
      {omitted > 0 ? <p className="row-limit">{keptNotices(notices.length, omitted)}</p> : null}
    </div>
  );
}

/** `text` with every number that is in `marks` wrapped in <mark>. */
function marked(text: string, marks: Marks) {
  if (marks.size === 0) return text;
  return text
    .split(/(\d+)/)
    .map((part, i) => (i % 2 === 1 && marks.has(part) ? <mark key={i}>{part}</mark> : part));
}
