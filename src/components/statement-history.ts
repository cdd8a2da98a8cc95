/**
 * The console's statement history, psql style: ↑ recalls older statements, ↓ newer ones,
 * and stepping past the newest brings back what was being typed.
 */

/** How many statements the history keeps. */
export const HISTORY_LIMIT = 100;

export interface StatementHistory {
  /** Oldest first, at most `HISTORY_LIMIT`. */
  entries: string[];
  /** Index into `entries` being shown; `entries.length` means the draft. */
  cursor: number;
  /** What was in the editor before the first ↑, restored by ↓ past the newest entry. */
  draft: string;
}

export function emptyHistory(): StatementHistory {
  return { entries: [], cursor: 0, draft: '' };
}

/** Records a statement that was run; a repeat of the newest entry is not stored twice. */
export function remember(history: StatementHistory, statement: string): StatementHistory {
  const entries =
    statement.trim() === '' || history.entries.at(-1) === statement
      ? history.entries
      : [...history.entries, statement].slice(-HISTORY_LIMIT);
  return { entries, cursor: entries.length, draft: '' };
}

/** Steps one entry back (-1) or forward (+1); `null` when there is nowhere to go. */
export function step(
  history: StatementHistory,
  direction: -1 | 1,
  current: string,
): { history: StatementHistory; text: string } | null {
  const cursor = history.cursor + direction;
  if (cursor < 0 || cursor > history.entries.length) return null;
  const draft = history.cursor === history.entries.length ? current : history.draft;
  const text = cursor === history.entries.length ? draft : history.entries[cursor];
  return { history: { entries: history.entries, cursor, draft }, text };
}
