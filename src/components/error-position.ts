/**
 * Where in the query an error happened, as psql shows it: the line holding the error
 * position and a caret under the offending character.
 */

/** How many characters of a long line are shown on either side of the position. */
const HALF_WINDOW = 100;

/** The line of the query with the error, and the caret's column beneath it. */
export interface ErrorPointer {
  /** 1-based line number within the query. */
  lineNumber: number;
  /** The text shown: the whole line, or a window of about 200 characters around the position. */
  text: string;
  /** 0-based column of the caret within `text`, counted in characters. */
  caretColumn: number;
}

/**
 * Finds the line and column for PostgreSQL's error `position`, which counts characters
 * (not bytes, not UTF-16 units) from 1 across the whole query string (see
 * `errposition()` callers in src/backend/parser/scansup.c and parse_node.c).
 * A position one past the end (e.g. "syntax error at end of input") points after the
 * last character. Returns `null` for a position outside the query.
 */
export function locateErrorPosition(query: string, position: number): ErrorPointer | null {
  if (!Number.isInteger(position) || position < 1) return null;
  // Walk code points to turn the character position into a UTF-16 index.
  let index = 0;
  let chars = 1;
  while (chars < position && index < query.length) {
    index += codePointLength(query, index);
    chars += 1;
  }
  if (chars < position) return null;

  const lineStart = index === 0 ? 0 : query.lastIndexOf('\n', index - 1) + 1;
  const newline = query.indexOf('\n', index);
  const lineEnd = newline === -1 ? query.length : newline;
  let lineNumber = 1;
  for (let i = query.indexOf('\n'); i !== -1 && i < lineStart; i = query.indexOf('\n', i + 1)) {
    lineNumber += 1;
  }

  // Slice generously in UTF-16 units (a character is at most two), then count characters.
  const sliceStart = Math.max(lineStart, index - HALF_WINDOW * 2);
  const sliceEnd = Math.min(lineEnd, index + HALF_WINDOW * 2);
  const before = Array.from(query.slice(sliceStart, index));
  const after = Array.from(query.slice(index, sliceEnd));
  const cutBefore = sliceStart > lineStart || before.length > HALF_WINDOW;
  const cutAfter = sliceEnd < lineEnd || after.length > HALF_WINDOW;
  const shownBefore = before.slice(-HALF_WINDOW);
  const shownAfter = after.slice(0, HALF_WINDOW);

  const prefix = cutBefore ? '…' : '';
  const suffix = cutAfter ? '…' : '';
  const clean = (part: string[]) => part.join('').replace(/[\t\r]/g, ' ');
  const head = prefix + clean(shownBefore);
  return {
    lineNumber,
    text: head + clean(shownAfter) + suffix,
    caretColumn: Array.from(head).length,
  };
}

function codePointLength(text: string, index: number): number {
  const code = text.codePointAt(index);
  return code !== undefined && code > 0xffff ? 2 : 1;
}

/** The two lines psql prints under an error: `LINE n: text` and the caret line. */
export function formatErrorPointer(pointer: ErrorPointer): [string, string] {
  const label = `LINE ${pointer.lineNumber}: `;
  return [label + pointer.text, ' '.repeat(label.length + pointer.caretColumn) + '^'];
}
