import { protocol, type PGlite } from '@electric-sql/pglite';
import { parseCommandTag } from '../command-tag';
import type { Field, Notice, PgErrorFields, QueryResult, Row, StatementResult } from '../types';

/** The answer to one query as plain data: results, or an error with what came before it. */
export type QueryReply =
  { ok: true; result: QueryResult } | { ok: false; error: PgErrorFields; partial: QueryResult };

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

/** Folds the backend's protocol messages into statement results, in the order they came. */
function collect(messages: BackendMessage[], into: StatementResult[]): PgErrorFields | undefined {
  let fields: Field[] = [];
  let rows: Row[] = [];
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
        into.push({ command, rowCount, fields, rows });
        fields = [];
        rows = [];
        break;
      }
      case 'error':
        return toErrorFields(m as unknown as NoticeLike);
    }
  }
  return undefined;
}

/** Text for a bound parameter, as a driver would send it. */
function paramText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * The engine's operations over one PGlite instance. The worker exposes exactly these;
 * Node tests call them in-thread. Errors from PostgreSQL come back as data, not throws,
 * so they cross the worker boundary intact.
 *
 * One backend serves one session: until the session layer exists, a second open session
 * is refused rather than silently sharing the first one's transaction.
 */
export function makeEngineApi(db: PGlite) {
  let openSessionId: number | null = null;
  let nextSessionId = 1;

  async function send(
    messages: Uint8Array[],
    notices: Notice[],
    results: StatementResult[],
  ): Promise<PgErrorFields | undefined> {
    const onNotice = (n: NoticeLike) => notices.push(toNotice(n));
    let error: PgErrorFields | undefined;
    for (const message of messages) {
      const reply = await db.execProtocol(message, { throwOnError: false, onNotice });
      // After an error the backend skips everything up to Sync, so later replies are empty.
      error ??= collect(reply.messages as BackendMessage[], results);
    }
    return error;
  }

  function requireOpen(sessionId: number): void {
    if (sessionId !== openSessionId) throw new Error(`session ${sessionId} is not open`);
  }

  return {
    async openSession(applicationName = 'seat-ledger'): Promise<number> {
      if (openSessionId !== null) {
        throw new Error('This engine serves one session at a time; close the open session first.');
      }
      openSessionId = nextSessionId++;
      await db.query('SELECT set_config($1, $2, false)', ['application_name', applicationName]);
      return openSessionId;
    },

    /** Runs `sql` with the simple protocol, or with the extended one when `params` is given. */
    async query(sessionId: number, sql: string, params?: unknown[]): Promise<QueryReply> {
      requireOpen(sessionId);
      return db.runExclusive(async () => {
        const notices: Notice[] = [];
        const results: StatementResult[] = [];
        const s = protocol.serialize;
        const messages =
          params === undefined
            ? [s.query(sql)]
            : [
                s.parse({ text: sql }),
                s.bind({ values: params.map(paramText) }),
                s.describe({ type: 'P' }),
                s.execute({}),
                s.sync(),
              ];
        const error = await send(messages, notices, results);
        return error
          ? { ok: false as const, error, partial: { results, notices } }
          : { ok: true as const, result: { results, notices } };
      });
    },

    /** Ends the session as a disconnect would: its transaction rolls back, its state goes. */
    async closeSession(sessionId: number): Promise<void> {
      requireOpen(sessionId);
      openSessionId = null;
      await db.runExclusive(async () => {
        // ROLLBACK outside a transaction only warns; DISCARD ALL drops temp tables,
        // settings, prepared statements and session advisory locks, as a new backend has.
        const s = protocol.serialize;
        await send([s.query('ROLLBACK'), s.query('DISCARD ALL')], [], []);
      });
    },
  };
}

/** The operations the worker serves; its message types are derived from this. */
export type EngineApi = ReturnType<typeof makeEngineApi>;
