import type { PGlite } from '@electric-sql/pglite';
import { makeBackend } from './backend';
import { makeSessionLayer, type LayerOptions } from './sessions';

/**
 * The engine's operations over one PGlite instance: the session layer over its one
 * backend. The worker serves exactly these; Node tests call them in-thread. Errors from
 * PostgreSQL come back as data, not throws, so they cross the worker boundary intact.
 */
export function makeEngineApi(db: PGlite, options: LayerOptions = {}) {
  const layer = makeSessionLayer(makeBackend(db), options);
  return {
    openSession: layer.openSession,
    query: layer.query,
    closeSession: layer.closeSession,
    listSessions: layer.list,
    cancel: layer.cancel,
    withdraw: layer.withdraw,
    /** The calls above as data, journaled with the caller's tag (the worker's way in). */
    invoke: layer.invoke,
    /** Rebuilds the sessions of an engine the watchdog replaced (see worker-engine.ts). */
    replay: layer.replay,
    /** Takes up a checkpoint before the replay, when the journal has one. */
    restore: layer.restore,
  };
}

/** The operations the worker serves; its message types are derived from this. */
export type EngineApi = ReturnType<typeof makeEngineApi>;
