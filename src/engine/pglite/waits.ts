// Deciding, before a statement is sent, whether it would wait on a lock held by a parked
// transaction. PGlite must never be sent such a statement: its lock_timeout and
// statement_timeout do not fire, so a lock wait hangs the engine for good
// (src/engine/ARCHITECTURE.md, "Parking"). The decision is made with PostgreSQL's help
// (pg_locks, the xmax of the target rows, a NOWAIT probe), never by guessing from the
// text alone; the text only says which relations and which lock a statement needs.

import { byText } from '../by-text';
import { topLevel } from '../split-statements';

/** Table-level lock modes, weakest first (the order of lockdefs.h). */
export const lockModes = [
  'AccessShareLock',
  'RowShareLock',
  'RowExclusiveLock',
  'ShareUpdateExclusiveLock',
  'ShareLock',
  'ShareRowExclusiveLock',
  'ExclusiveLock',
  'AccessExclusiveLock',
] as const;
export type LockMode = (typeof lockModes)[number];

// Which modes conflict with which: LockConflicts in src/backend/storage/lmgr/lock.c.
const conflictsWith: Record<LockMode, LockMode[]> = {
  AccessShareLock: ['AccessExclusiveLock'],
  RowShareLock: ['ExclusiveLock', 'AccessExclusiveLock'],
  RowExclusiveLock: ['ShareLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock'],
  ShareUpdateExclusiveLock: [
    'ShareUpdateExclusiveLock',
    'ShareLock',
    'ShareRowExclusiveLock',
    'ExclusiveLock',
    'AccessExclusiveLock',
  ],
  ShareLock: [
    'RowExclusiveLock',
    'ShareUpdateExclusiveLock',
    'ShareRowExclusiveLock',
    'ExclusiveLock',
    'AccessExclusiveLock',
  ],
  ShareRowExclusiveLock: [
    'RowExclusiveLock',
    'ShareUpdateExclusiveLock',
    'ShareLock',
    'ShareRowExclusiveLock',
    'ExclusiveLock',
    'AccessExclusiveLock',
  ],
  ExclusiveLock: [
    'RowShareLock',
    'RowExclusiveLock',
    'ShareUpdateExclusiveLock',
    'ShareLock',
    'ShareRowExclusiveLock',
    'ExclusiveLock',
    'AccessExclusiveLock',
  ],
  AccessExclusiveLock: [...lockModes],
};

/** Whether a lock in mode `a` must wait for one held in mode `b`. */
export function conflicts(a: LockMode, b: LockMode): boolean {
  return conflictsWith[a].includes(b);
}

/** What a statement does to rows, as far as waiting goes. */
export type RowAction =
  | { kind: 'none' }
  /** SELECT … FOR UPDATE/SHARE that may wait (no NOWAIT, no SKIP LOCKED). */
  | { kind: 'lock-rows' }
  /**
   * A plain UPDATE or DELETE whose target rows can be found with `SELECT … WHERE`;
   * `sets` names the columns an UPDATE assigns (null for a DELETE).
   */
  | {
      kind: 'modify';
      table: string;
      alias: string | null;
      where: string | null;
      sets: string[] | null;
    }
  /** Changes rows in a way the layer cannot check in advance (UPDATE … FROM, MERGE, …). */
  | { kind: 'unchecked' };

/** The table lock a statement takes and what it does to rows. */
export interface StatementNeeds {
  /** The table lock it takes; null when it only tries for its locks (SKIP_LOCKED). */
  mode: LockMode | null;
  rows: RowAction;
}

const lockClause = /\bFOR\s+(?:NO\s+KEY\s+UPDATE|UPDATE|KEY\s+SHARE|SHARE)\b/i;
/** VACUUM's or ANALYZE's SKIP_LOCKED option, unless turned off. */
const skipLocked = /\bSKIP_LOCKED\b(?!\s+(?:false|off|0)\b)/i;
const nonWaiting = /\b(?:NOWAIT|SKIP\s+LOCKED)\b/i;
/** A table's name, schema-qualified or not, quoted or not, as a regular expression. */
export const identifier = String.raw`(?:"[^"]+"|[A-Za-z_][\w$]*)(?:\.(?:"[^"]+"|[A-Za-z_][\w$]*))?`;
const simpleUpdate = new RegExp(
  String.raw`^\s*UPDATE\s+(?:ONLY\s+)?(${identifier})(?:\s+(?:AS\s+)?(?!SET\b)([A-Za-z_]\w*))?\s+SET\s+[\s\S]*?(?:\s+WHERE\s+([\s\S]*?))?\s*(?:\s+RETURNING\s+[\s\S]*)?;?\s*$`,
  'i',
);
const simpleDelete = new RegExp(
  String.raw`^\s*DELETE\s+FROM\s+(?:ONLY\s+)?(${identifier})(?:\s+(?:AS\s+)?(?!WHERE\b|RETURNING\b)([A-Za-z_]\w*))?(?:\s+WHERE\s+([\s\S]*?))?\s*(?:\s+RETURNING\s+[\s\S]*)?;?\s*$`,
  'i',
);

/**
 * `key = (SELECT … FOR UPDATE …)` or `key IN (…)` as a whole WHERE clause: the claim
 * query's shape, which changes exactly the rows its subquery locks.
 */
const lockedKey = new RegExp(
  String.raw`^\s*${identifier}\s*(?:=|IN)\s*\(\s*SELECT\b(?:(?!\bUNION\b)[\s\S])*\bFOR\s+(?:NO\s+KEY\s+UPDATE|UPDATE|KEY\s+SHARE|SHARE)\b[^()]*\)\s*$`,
  'i',
);

/**
 * An UPDATE or DELETE of the claim query's shape (`lockedKey`): its table, the key column
 * its WHERE compares, and the subquery that locks the rows it changes. Null for any other.
 */
export function lockedKeyChange(
  sql: string,
): { table: string; key: string; subquery: string } | null {
  // Comments are not clauses: a block comment before the verb hid it, and the statement
  // went unchecked, to the watchdog.
  const text = sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .trim();
  const m = (/^\s*UPDATE\b/i.test(text) ? simpleUpdate : simpleDelete).exec(text);
  if (!m || !lockedKey.test(m[3] ?? '')) return null;
  // No other table joined in (UPDATE … FROM, DELETE … USING).
  const head = text.slice(0, text.indexOf(m[3]!)).replace(/^\s*DELETE\s+FROM\b/i, '');
  if (/\b(?:FROM|USING)\b/i.test(head)) return null;
  const parts = new RegExp(
    String.raw`^\s*(${identifier})\s*(?:=|IN)\s*\(\s*(SELECT\b[\s\S]*)\)\s*$`,
    'i',
  ).exec(m[3]!);
  return parts ? { table: m[1]!, key: parts[1]!, subquery: parts[2]! } : null;
}

/** The names of the functions `sql` calls, as written, folded to lower case. */
export function calledNames(sql: string): string[] {
  return [...sql.matchAll(/\b([a-z_][a-z0-9_$]*)\s*\(/gi)].map((m) => m[1]!.toLowerCase());
}

/** Reads, from one statement's text, the table lock it takes and what it does to rows. */
export const statementNeeds: (sql: string) => Readonly<StatementNeeds> = byText(needsOf);

function needsOf(sql: string): StatementNeeds {
  // Comments are not clauses: a block comment before the verb hid it, and the statement
  // went unchecked, to the watchdog.
  const text = sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .trim();
  const verb = /^\s*(\w+)(?:\s+(\w+))?/.exec(text);
  const first = verb?.[1]?.toUpperCase() ?? '';
  const second = verb?.[2]?.toUpperCase() ?? '';
  switch (first) {
    case 'SELECT':
    case 'WITH':
    case 'TABLE':
    case 'VALUES': {
      if (/^\s*WITH\b/i.test(text) && /\b(UPDATE|DELETE|INSERT|MERGE)\b/i.test(text)) {
        return { mode: 'RowExclusiveLock', rows: { kind: 'unchecked' } };
      }
      if (!lockClause.test(text)) return { mode: 'AccessShareLock', rows: { kind: 'none' } };
      return {
        mode: 'RowShareLock',
        rows: nonWaiting.test(text) ? { kind: 'none' } : { kind: 'lock-rows' },
      };
    }
    case 'UPDATE':
    case 'DELETE': {
      const m = (first === 'UPDATE' ? simpleUpdate : simpleDelete).exec(text);
      const plain = m && !/\b(FROM|USING)\b/i.test(text.slice(m[1]!.length + first.length + 8));
      // The article's claim: the statement changes exactly the rows its subquery locks,
      // already its own by then, so only the subquery's locking can make it wait: never
      // with SKIP LOCKED or NOWAIT, and otherwise as a NOWAIT probe of the whole statement
      // finds out. (A key matched by several rows could wait; the watchdog covers that.)
      if (m && lockedKey.test(m[3] ?? '')) {
        return {
          mode: 'RowExclusiveLock',
          rows: nonWaiting.test(m[3]!) ? { kind: 'none' } : { kind: 'lock-rows' },
        };
      }
      const sets = first === 'UPDATE' ? assignedColumns(text) : null;
      return {
        mode: 'RowExclusiveLock',
        rows:
          m && plain && !/\bSELECT\b/i.test(m[3] ?? '') && (first === 'DELETE' || sets)
            ? { kind: 'modify', table: m[1]!, alias: m[2] ?? null, where: m[3] ?? null, sets }
            : { kind: 'unchecked' },
      };
    }
    case 'INSERT':
      // An INSERT waits only on a unique-key conflict with an uncommitted row; see
      // `wouldWait`, which lets it through unless it has ON CONFLICT.
      return {
        mode: 'RowExclusiveLock',
        rows: /\bON\s+CONFLICT\b/i.test(text) ? { kind: 'unchecked' } : { kind: 'none' },
      };
    case 'MERGE':
      return { mode: 'RowExclusiveLock', rows: { kind: 'unchecked' } };
    case 'VACUUM':
      // With SKIP_LOCKED PostgreSQL only tries the lock, and skips what it cannot have
      // with a warning (vacuum_open_relation): the backend shows that truthfully.
      if (skipLocked.test(text)) return { mode: null, rows: { kind: 'none' } };
      return {
        mode: /\bFULL\b/i.test(text) ? 'AccessExclusiveLock' : 'ShareUpdateExclusiveLock',
        rows: { kind: 'none' },
      };
    case 'ANALYZE':
      if (skipLocked.test(text)) return { mode: null, rows: { kind: 'none' } };
      return { mode: 'ShareUpdateExclusiveLock', rows: { kind: 'none' } };
    case 'CREATE':
      if (/\bINDEX\b/i.test(text)) {
        return {
          mode: /\bCONCURRENTLY\b/i.test(text) ? 'ShareUpdateExclusiveLock' : 'ShareLock',
          rows: { kind: 'none' },
        };
      }
      if (second === 'TRIGGER') return { mode: 'ShareRowExclusiveLock', rows: { kind: 'none' } };
      return { mode: 'AccessShareLock', rows: { kind: 'none' } };
    case 'LOCK': {
      const mode = /\bIN\s+([A-Z ]+?)\s+MODE\b/i.exec(text)?.[1]?.toUpperCase();
      const named: Record<string, LockMode> = {
        'ACCESS SHARE': 'AccessShareLock',
        'ROW SHARE': 'RowShareLock',
        'ROW EXCLUSIVE': 'RowExclusiveLock',
        'SHARE UPDATE EXCLUSIVE': 'ShareUpdateExclusiveLock',
        SHARE: 'ShareLock',
        'SHARE ROW EXCLUSIVE': 'ShareRowExclusiveLock',
        EXCLUSIVE: 'ExclusiveLock',
        'ACCESS EXCLUSIVE': 'AccessExclusiveLock',
      };
      return { mode: (mode && named[mode]) || 'AccessExclusiveLock', rows: { kind: 'none' } };
    }
    case 'ALTER':
      return {
        mode: second === 'TABLE' ? alterTableMode(text) : 'AccessExclusiveLock',
        rows: { kind: 'none' },
      };
    case 'DROP':
    case 'TRUNCATE':
    case 'CLUSTER':
    case 'REINDEX':
      return { mode: 'AccessExclusiveLock', rows: { kind: 'none' } };
    case 'REFRESH':
      // CONCURRENTLY lets readers go on: EXCLUSIVE (the manual's table-level lock modes).
      return {
        mode: /\bCONCURRENTLY\b/i.test(text) ? 'ExclusiveLock' : 'AccessExclusiveLock',
        rows: { kind: 'none' },
      };
    default:
      return { mode: 'AccessShareLock', rows: { kind: 'none' } };
  }
}

/**
 * What an ALTER TABLE's subcommands lock on the relations it names, as PostgreSQL decides
 * it (AlterTableGetLockLevel in src/backend/commands/tablecmds.c): the strongest of them,
 * each ACCESS EXCLUSIVE but for those it lets readers, or readers and writers, go on by.
 * (ATTACH PARTITION is left at ACCESS EXCLUSIVE: it locks the partition so.)
 */
function alterTableMode(text: string): LockMode {
  const body =
    /^\s*ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?(?:"(?:[^"]|"")+"|[\w$.]+)\s*\*?\s*([\s\S]*)$/i.exec(
      text,
    )?.[1];
  if (!body) return 'AccessExclusiveLock';
  const modes = topLevelParts(body).map((part): LockMode => {
    const sub = part.trim();
    // Storage parameters (fillfactor, autovacuum_*, toast.*, parallel_workers, …) but
    // user_catalog_table, and per-column statistics targets and options (n_distinct).
    if (/^(?:SET|RESET)\s*\(/i.test(sub)) {
      return /\buser_catalog_table\b/i.test(sub)
        ? 'AccessExclusiveLock'
        : 'ShareUpdateExclusiveLock';
    }
    if (
      /^ALTER\s+(?:COLUMN\s+)?(?:"(?:[^"]|"")+"|[\w$]+)\s+(?:SET\s+STATISTICS\b|(?:SET|RESET)\s*\()/i.test(
        sub,
      )
    ) {
      return 'ShareUpdateExclusiveLock';
    }
    if (/^(?:CLUSTER\s+ON\b|SET\s+WITHOUT\s+CLUSTER\b|VALIDATE\s+CONSTRAINT\b)/i.test(sub)) {
      return 'ShareUpdateExclusiveLock';
    }
    if (/^(?:ENABLE|DISABLE)\s+(?:ALWAYS\s+|REPLICA\s+)?TRIGGER\b/i.test(sub)) {
      return 'ShareRowExclusiveLock';
    }
    if (/^ADD\s+(?:CONSTRAINT\s+(?:"(?:[^"]|"")+"|[\w$]+)\s+)?FOREIGN\s+KEY\b/i.test(sub)) {
      return 'ShareRowExclusiveLock';
    }
    return 'AccessExclusiveLock';
  });
  return modes.reduce((a, b) => (lockModes.indexOf(b) > lockModes.indexOf(a) ? b : a));
}

/** `text` split at its commas outside parentheses, quotes and comments. */
function topLevelParts(text: string): string[] {
  const flat = topLevel(text);
  const parts: string[] = [];
  let start = 0;
  for (let at = flat.indexOf(','); at !== -1; at = flat.indexOf(',', at + 1)) {
    parts.push(text.slice(start, at));
    start = at + 1;
  }
  parts.push(text.slice(start));
  return parts;
}

/**
 * The columns an UPDATE's SET list assigns (`SET a = 1, (b, c) = (2, 3)`), read at the
 * top level of the text; null when the list cannot be read.
 */
export function assignedColumns(update: string): string[] | null {
  return assignments(update)?.flatMap((a) => a.columns) ?? null;
}

/**
 * An UPDATE's SET list as its parts: the columns each assigns and the expression text
 * after its `=`; null when the list cannot be read.
 */
export function assignments(update: string): { columns: string[]; expr: string }[] | null {
  const set = /\bSET\b/i.exec(update);
  if (!set) return null;
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  let quote: string | null = null;
  const rest = update.slice(set.index + 3);
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    if (quote) {
      if (c === quote) quote = null;
      current += c;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && /^\s(?:WHERE|RETURNING|FROM)\b/i.test(rest.slice(i))) break;
    if (depth === 0 && c === ',') {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  const found: { columns: string[]; expr: string }[] = [];
  for (const part of parts) {
    const target = /^\s*(\([^()]*\)|"[^"]+"|[A-Za-z_][\w$]*)\s*=/.exec(part);
    if (!target) return null;
    const names = target[1]!.startsWith('(') ? target[1]!.slice(1, -1).split(',') : [target[1]!];
    // A quoted name is as written; an unquoted one is folded to lower case.
    found.push({
      columns: names.map((n) => {
        const name = n.trim();
        return name.startsWith('"') ? name.slice(1, -1) : name.toLowerCase();
      }),
      expr: part.slice(target[0].length).replace(/;\s*$/, '').trim(),
    });
  }
  return found;
}

/** `sql` with its single-quoted string literals blanked: a name in one is data, not a table. */
export function blankStrings(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'/g, "''");
}

/** Whether `sql` names relation `relname` as a word (quoted or not). */
export function mentions(sql: string, relname: string): boolean {
  const escaped = relname.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w$"])"?${escaped}"?($|[^\\w$])`, 'i').test(sql);
}

/** `sql` with NOWAIT after each waiting locking clause, for a probe that cannot hang. */
export function withNowait(sql: string): string {
  return sql.replace(
    /\bFOR\s+(?:NO\s+KEY\s+UPDATE|UPDATE|KEY\s+SHARE|SHARE)(?:\s+OF\s+[\w\s,."$]+?)?(?=\s*(?:;|$|\bLIMIT\b|\bOFFSET\b|\bFOR\b|\)))/gi,
    (clause) => `${clause} NOWAIT`,
  );
}

/** The parts of a MERGE that say which target rows it matches. */
export interface MergeParts {
  /** The target table as written, and the name its columns go by in `on`. */
  target: string;
  alias: string | null;
  /** The data source as written: a table or a parenthesized query, with its alias. */
  source: string;
  /** The join condition. */
  on: string;
}

/**
 * The target, data source and join condition of `MERGE INTO target [AS alias] USING
 * source ON condition WHEN …`, found at the statement's top level (not inside
 * parentheses, quotes or comments); null for any other statement, or a MERGE with a
 * WITH clause or ONLY.
 */
export function mergeParts(sql: string): MergeParts | null {
  const flat = topLevel(sql);
  const m =
    /^\s*MERGE\s+INTO\s+(?!ONLY\b)([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)?)(?:\s+(?:AS\s+)?(?!USING\b)([A-Za-z_][\w$]*))?\s+USING\s/i.exec(
      flat,
    );
  if (!m) return null;
  const on = /\sON\s/i.exec(flat.slice(m[0].length));
  if (!on) return null;
  const onAt = m[0].length + on.index;
  const when = /\sWHEN\s/i.exec(flat.slice(onAt + on[0].length));
  if (!when) return null;
  const whenAt = onAt + on[0].length + when.index;
  return {
    target: m[1]!,
    alias: m[2] ?? null,
    source: sql.slice(m[0].length, onAt).trim(),
    on: sql.slice(onAt + on[0].length, whenAt).trim(),
  };
}
