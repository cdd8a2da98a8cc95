import type { PGlite } from '@electric-sql/pglite';
import { makeBackend } from './backend';
import { makeSessionLayer } from './sessions';

/**
 * The engine's operations over one PGlite instance: the session layer over its one
 * backend. The worker serves exactly these; Node tests call them in-thread. Errors from
 * PostgreSQL come back as data, not throws, so they cross the worker boundary intact.
 */
export function makeEngineApi(db: PGlite) {
  const layer = makeSessionLayer(makeBackend(db));
  return {
    openSession: layer.openSession,
    query: layer.query,
    closeSession: layer.closeSession,
    listSessions: layer.list,
    cancel: layer.cancel,
  };
}

/** The operations the worker serves; its message types are derived from this. */
export type EngineApi = ReturnType<typeof makeEngineApi>;
