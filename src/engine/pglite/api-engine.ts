import {
  EngineGoneError,
  NotExpressibleError,
  PgError,
  type QueryOptions,
  type QueryResult,
  type Refusal,
  type Session,
} from '../types';
import type { EngineApi } from './core';
import type { OpenReply } from './sessions';
import { statementTooLarge } from './sessions/guards';
import type { Method } from './messages';

/** Calls one engine API method, in this thread or across a worker boundary. */
export type CallApi = <M extends Method>(
  method: M,
  ...args: Parameters<EngineApi[M]>
) => Promise<Awaited<ReturnType<EngineApi[M]>>>;

/** The error a caller gets for a refusal that crossed the worker boundary as data. */
const refused = ({ kind, reason }: Refusal) => new NotExpressibleError(kind, reason);

/**
 * A `Session` over the engine API. `alive` says whether the engine that opened it is
 * still the running one: after a restart the session's backend is gone, so its calls
 * fail with a plain EngineGoneError instead of reaching a stranger's session.
 */
export function apiSession(call: CallApi, opened: OpenReply, alive: () => boolean): Session {
  if ('notExpressible' in opened) throw refused(opened.notExpressible);
  if (!opened.ok) throw new PgError(opened.error);
  const { id, pid } = opened;
  const gone = () =>
    new EngineGoneError(
      'This session ended when the engine restarted. Open a new one.',
      'stale-session',
    );
  return {
    id,
    pid,
    async query(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult> {
      if (!alive()) throw gone();
      // Refused here as the layer would refuse it, so that it is not sent or journaled.
      const large = statementTooLarge(sql);
      if (large) throw refused(large.notExpressible);
      const reply = await call('query', id, sql, params);
      if ('notExpressible' in reply) throw refused(reply.notExpressible);
      // The worker answers once the statement ends, with every notice it sent.
      for (const notice of reply.ok ? reply.result.notices : reply.partial.notices)
        options?.onNotice?.(notice);
      if (!reply.ok) throw new PgError(reply.error, reply.partial);
      return reply.result;
    },
    async close(): Promise<void> {
      if (alive()) await call('closeSession', id);
    },
  };
}
