import { protocol, type PGlite } from '@electric-sql/pglite';
import { parseCommandTag } from '../command-tag';
import type { Field, Notice, PgErrorFields, Row, StatementResult } from '../types';

type BackendMessage = { name: string };
type NoticeLike = {
  severity?: string;
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
  position?: string;
};

function toNotice(n: NoticeLike): Notice {
  return {
    severity: n.severity ?? 'NOTICE',
    code: n.code ?? '00000',
    message: n.message ?? '',
    ...(n.detail ? { detail: n.detail } : {}),
    ...(n.hint ? { hint: n.hint } : {}),
  };
}

function toErrorFields(e: NoticeLike): PgErrorFields {
  return {
    code: e.code ?? 'XX000',
    severity: e.severity ?? 'ERROR',
    message: e.message ?? 'unknown error',
    ...(e.detail ? { detail: e.detail } : {}),
    ...(e.hint ? { hint: e.hint } : {}),
    ...(e.position ? { position: Number(e.position) } : {}),
  };
}

/** Transaction status from ReadyForQuery: idle, in a transaction block, or in a failed one. */
export type TransactionStatus = 'I' | 'T' | 'E';

/** What the backend answered to one query: results, notices, an error, and its status. */
export interface BackendReply {
  results: StatementResult[];
  notices: Notice[];
  error?: PgErrorFields;
  status: TransactionStatus;
}

/** The result being read: its columns and rows so far, until its CommandComplete. */
interface Reading {
  fields: Field[];
  rows: Row[];
}

/**
 * Folds the backend's protocol messages into `reply`, in the order they came. `reading`
 * carries over from one call to the next: over the extended protocol the columns come
 * with Describe and the rows with Execute, in answers of their own.
 */
function collect(messages: BackendMessage[], reply: BackendReply, reading: Reading): void {
  let { fields, rows } = reading;
  for (const m of messages) {
    switch (m.name) {
      case 'rowDescription':
        fields = (m as unknown as { fields: Field[] }).fields.map((f) => ({
          name: f.name,
          dataTypeID: f.dataTypeID,
        }));
        rows = [];
        break;
      case 'dataRow':
        rows.push((m as unknown as { fields: Row }).fields);
        break;
      case 'commandComplete': {
        const { command, rowCount } = parseCommandTag((m as unknown as { text: string }).text);
        reply.results.push({ command, rowCount, fields, rows });
        fields = [];
        rows = [];
        break;
      }
      case 'error':
        reply.error ??= toErrorFields(m as unknown as NoticeLike);
        break;
      case 'readyForQuery':
        reply.status = (m as unknown as { status: TransactionStatus }).status;
        break;
    }
  }
  Object.assign(reading, { fields, rows });
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

  async function send(messages: Uint8Array[]): Promise<BackendReply> {
    const reply: BackendReply = { results: [], notices: [], status: 'I' };
    const onNotice = (n: NoticeLike) => reply.notices.push(toNotice(n));
    const reading: Reading = { fields: [], rows: [] };
    for (const message of messages) {
      const answer = await db.execProtocol(message, { throwOnError: false, onNotice });
      // After an error the backend skips everything up to Sync, so later answers are empty.
      collect(answer.messages as BackendMessage[], reply, reading);
    }
    return reply;
  }

  return {
    /** Runs `sql` with the simple protocol, or with the extended one when `params` is given. */
    run(sql: string, params?: unknown[]): Promise<BackendReply> {
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
        ),
      );
    },

    /** Runs the layer's own statement; an error here is a bug, so it throws. */
    async exec(sql: string, params?: unknown[]): Promise<StatementResult[]> {
      const reply = await this.run(sql, params);
      if (reply.error) throw new Error(`${sql}: ${reply.error.message}`);
      return reply.results;
    },
  };
}

/** The backend as the session layer uses it. */
export type Backend = ReturnType<typeof makeBackend>;
