import { protocol, type PGlite } from '@electric-sql/pglite';
import { parseCommandTag } from '../command-tag';
import {
  answerCaps,
  type Field,
  type Notice,
  type PgErrorFields,
  type Row,
  type StatementResult,
} from '../types';

type BackendMessage = { name: string };
type NoticeLike = {
  severity?: string;
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
  position?: string;
};

/** `text` cut to `answerCaps.messageChars`, saying so, as PostgreSQL's text is kept. */
function capped(text: string): string {
  const max = answerCaps.messageChars;
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (cut here: the in-browser engine keeps ${max.toLocaleString('en')} characters of a message)`;
}

function toNotice(n: NoticeLike): Notice {
  return {
    severity: n.severity ?? 'NOTICE',
    code: n.code ?? '00000',
    message: capped(n.message ?? ''),
    ...(n.detail ? { detail: capped(n.detail) } : {}),
    ...(n.hint ? { hint: capped(n.hint) } : {}),
  };
}

function toErrorFields(e: NoticeLike): PgErrorFields {
  return {
    code: e.code ?? 'XX000',
    severity: e.severity ?? 'ERROR',
    message: capped(e.message ?? 'unknown error'),
    ...(e.detail ? { detail: capped(e.detail) } : {}),
    ...(e.hint ? { hint: capped(e.hint) } : {}),
    ...(e.position ? { position: Number(e.position) } : {}),
  };
}

/** Transaction status from ReadyForQuery: idle, in a transaction block, or in a failed one. */
export type TransactionStatus = 'I' | 'T' | 'E';

/** What the backend answered to one query: results, notices, an error, and its status. */
export interface BackendReply {
  results: StatementResult[];
  notices: Notice[];
  /** Notices past the caps, counted and not kept (reader statements only). */
  noticesOmitted?: number;
  error?: PgErrorFields;
  status: TransactionStatus;
  /**
   * For each result, where each of its columns comes from as RowDescription says: the
   * table's OID and the column's number, or zeros for a computed one. The layer's own.
   */
  origins?: Origin[][];
}

/** A result column's table OID and column number (both 0 when it is computed). */
export type Origin = readonly [table: number, column: number];

/** What of an answer is kept: `answerCaps` for a reader's statement, everything for the layer's. */
export interface Caps {
  rows: number;
  bytes: number;
  notices: number;
}

const keepAll: Caps = { rows: Infinity, bytes: Infinity, notices: Infinity };

/** The caps a reader's statement runs under (see `answerCaps`). */
export const readerCaps: Caps = {
  rows: answerCaps.rows,
  bytes: answerCaps.bytes,
  notices: answerCaps.notices,
};

// Message types, the first byte of each backend message (protocol-message-formats).
const DATA_ROW = 0x44; // 'D'
const NOTICE = 0x4e; // 'N'
const ROW_DESCRIPTION = 0x54; // 'T'
const COMMAND_COMPLETE = 0x43; // 'C'

type Omitted = { count: number; cap: 'rows' | 'bytes' };

/** A RowDescription field as the protocol parser gives it. */
type DescribedField = Field & { tableID: number; columnID: number };

/**
 * Reads the backend's protocol messages as they stream out of PGlite and folds them into a
 * reply, keeping what `caps` allow: a row or notice past them is counted from its header
 * and skipped, never decoded or held, so a result of ten million rows costs the worker no
 * more memory than one of a thousand (PGlite's own `execProtocol` keeps every byte).
 * Over the extended protocol the columns come with Describe and the rows with Execute, in
 * answers of their own, so one reader serves every message of a query. `parser` is the
 * backend's one parser: it is handed whole messages, so none is left half-read for the next
 * answer, and building one per answer cost more than the rest of the reading.
 *
 * What to keep is decided from each message's header as it is met (`keep`); the messages
 * kept are decoded later, a run of them at a time (`flush`): most answers arrive as one
 * chunk, and one call of the parser per chunk costs a fraction of one per message (each
 * call copies what it is given). So `keep` counts rows, notices and omissions itself,
 * and hands each result's omission to its CommandComplete through `omissions`.
 */
function answerReader(reply: BackendReply, caps: Caps, parser: protocol.Parser) {
  let fields: Field[] = [];
  let origins: Origin[] = [];
  let rows: Row[] = [];
  /** Each finished result's rows left out, in order, for `onMessage` to attach. */
  const omissions: (Omitted | null)[] = [];

  function onMessage(m: BackendMessage): void {
    switch (m.name) {
      case 'rowDescription':
        fields = (m as unknown as { fields: DescribedField[] }).fields.map((f) => ({
          name: f.name,
          dataTypeID: f.dataTypeID,
        }));
        origins = (m as unknown as { fields: DescribedField[] }).fields.map(
          (f) => [f.tableID, f.columnID] as const,
        );
        rows = [];
        break;
      case 'dataRow':
        rows.push((m as unknown as { fields: Row }).fields);
        break;
      case 'commandComplete': {
        const { command, rowCount } = parseCommandTag((m as unknown as { text: string }).text);
        const result: StatementResult = { command, rowCount, fields, rows };
        const omitted = omissions.shift();
        if (omitted) result.rowsOmitted = omitted;
        reply.results.push(result);
        (reply.origins ??= []).push(origins);
        fields = [];
        origins = [];
        rows = [];
        break;
      }
      case 'notice':
        reply.notices.push(toNotice(m as unknown as NoticeLike));
        break;
      case 'error':
        reply.error ??= toErrorFields(m as unknown as NoticeLike);
        break;
      case 'readyForQuery':
        reply.status = (m as unknown as { status: TransactionStatus }).status;
        break;
    }
  }

  /** Rows kept of the current result, notices kept, and bytes kept of both. */
  let keptRows = 0;
  let keptNotices = 0;
  let bytes = 0;
  /** Rows of the current result left out, and the cap that did it. */
  let omitted: Omitted | null = null;
  let noticesOmitted = 0;

  /** Whether to keep a message of `type` and `size` bytes, counting what is left out. */
  function keep(type: number, size: number): boolean {
    if (type === DATA_ROW) {
      if (omitted === null) {
        if (keptRows >= caps.rows) omitted = { count: 0, cap: 'rows' };
        else if (bytes + size > caps.bytes) omitted = { count: 0, cap: 'bytes' };
      }
      // Once a cap is reached the result's later rows go too: the kept ones are its first.
      if (omitted !== null) {
        omitted.count++;
        return false;
      }
      keptRows++;
      bytes += size;
      return true;
    }
    if (type === NOTICE) {
      if (keptNotices >= caps.notices || bytes + size > caps.bytes) {
        reply.noticesOmitted = ++noticesOmitted;
        return false;
      }
      keptNotices++;
      bytes += size;
    } else if (type === ROW_DESCRIPTION || type === COMMAND_COMPLETE) {
      if (type === COMMAND_COMPLETE) omissions.push(omitted);
      keptRows = 0;
      omitted = null;
    }
    return true;
  }

  // A message read across chunks: its header so far, then its bytes (null while skipping).
  const header = new Uint8Array(5);
  let headerLength = 0;
  let message: Uint8Array | null = null;
  let size = 0;
  let filled = 0;
  let reading = false;

  /** Takes one chunk of PGlite's output (a view into its memory, valid only now). */
  return (chunk: Uint8Array): void => {
    let at = 0;
    const end = chunk.length;
    /** Where the run of kept messages lying whole in this chunk starts, if one has. */
    let run = -1;
    const flush = () => {
      if (run >= 0 && run < at) parser.parse(chunk.subarray(run, at), onMessage);
      run = -1;
    };
    while (at < end) {
      if (!reading) {
        // Most headers lie whole in the chunk: read them in place, without copying.
        let type: number;
        if (headerLength === 0 && at + 5 <= end) {
          type = chunk[at]!;
          size =
            (1 +
              ((chunk[at + 1]! << 24) |
                (chunk[at + 2]! << 16) |
                (chunk[at + 3]! << 8) |
                chunk[at + 4]!)) >>>
            0;
          const kept = keep(type, size);
          if (at + size <= end) {
            // Whole in the chunk: a kept one joins the run, one past the caps costs nothing.
            if (kept) {
              if (run < 0) run = at;
            } else flush();
            at += size;
            continue;
          }
          flush();
          message = kept ? new Uint8Array(size) : null;
          filled = 0;
          reading = true;
        } else {
          flush();
          const take = Math.min(5 - headerLength, end - at);
          header.set(chunk.subarray(at, at + take), headerLength);
          headerLength += take;
          at += take;
          if (headerLength < 5) return;
          headerLength = 0;
          type = header[0]!;
          // The length counts itself but not the type byte.
          size =
            1 + (((header[1]! << 24) | (header[2]! << 16) | (header[3]! << 8) | header[4]!) >>> 0);
          message = keep(type, size) ? new Uint8Array(size) : null;
          message?.set(header);
          filled = 5;
          reading = true;
        }
      }
      const take = Math.min(size - filled, end - at);
      message?.set(chunk.subarray(at, at + take), filled);
      filled += take;
      at += take;
      if (filled === size) {
        reading = false;
        if (message) parser.parse(message, onMessage);
        message = null;
      }
    }
    flush();
  };
}

/** Text for a bound parameter, as a driver would send it. */
function paramText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * The one PostgreSQL backend inside PGlite, spoken to over the wire protocol so that
 * every result, notice, error and transaction status comes back as PostgreSQL sent it.
 * Calls are serialised: the backend runs one query at a time.
 */
export function makeBackend(db: PGlite) {
  const s = protocol.serialize;
  const parser = new protocol.Parser();

  async function send(messages: Uint8Array[], caps: Caps): Promise<BackendReply> {
    const reply: BackendReply = { results: [], notices: [], status: 'I' };
    const onRawData = answerReader(reply, caps, parser);
    // After an error the backend skips everything up to Sync, so later answers are empty.
    // The data directory lives in memory (MemoryFS, or PreparedDataDirFS over it), whose
    // sync to storage does nothing: skipping it spares each statement a lock and its awaits.
    for (const message of messages) {
      await db.execProtocolRawStream(message, { onRawData, syncToFs: false });
    }
    return reply;
  }

  return {
    /**
     * Runs `sql` with the simple protocol, or with the extended one when `params` is given.
     * `caps` bound what is kept of the answer (a reader's statement runs under `readerCaps`).
     */
    run(sql: string, params?: unknown[], caps: Caps = keepAll): Promise<BackendReply> {
      return db.runExclusive(() =>
        send(
          params === undefined
            ? [s.query(sql)]
            : [
                s.parse({ text: sql }),
                s.bind({ values: params.map(paramText) }),
                s.describe({ type: 'P' }),
                s.execute({}),
                s.sync(),
              ],
          caps,
        ),
      );
    },

    /** Runs the layer's own statement; an error here is a bug, so it throws. */
    async exec(sql: string, params?: unknown[]): Promise<StatementResult[]> {
      const reply = await this.run(sql, params);
      if (reply.error) throw new Error(`${sql}: ${reply.error.message}`);
      return reply.results;
    },

    /**
     * Runs `run` with the clock PostgreSQL reads standing at `ms` (ms since the epoch),
     * or as it is when `ms` is undefined. PGlite reads the time of day from `Date.now()`
     * (Emscripten's clock_gettime for CLOCK_REALTIME), so the statements sent meanwhile
     * start then: a transaction opened again by the layer begins when it first began,
     * and its now() answers as before. Only for statements that do not wait on the clock
     * (pg_sleep would never end).
     */
    async atClock<T>(ms: number | undefined, run: () => Promise<T>): Promise<T> {
      if (ms === undefined) return run();
      const now = Date.now;
      Date.now = () => ms;
      try {
        return await run();
      } finally {
        Date.now = now;
      }
    },

    /**
     * The data directory as it is now, as a gzipped tar (for a checkpoint of the journal:
     * sessions/checkpoint.ts). Run CHECKPOINT first, so the files hold every commit.
     */
    dump(): Promise<Blob> {
      // dumpDataDir takes PGlite's query lock itself: not inside runExclusive.
      return db.dumpDataDir('gzip');
    },
  };
}

/** The backend as the session layer uses it. */
export type Backend = ReturnType<typeof makeBackend>;
