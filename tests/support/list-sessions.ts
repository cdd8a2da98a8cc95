// Waiting, in tests, for the engine's sessions to reach a state.
import type { PageEngine } from '../../src/engine/page';
import type { SessionInfo } from '../../src/engine/session-info';

/** Polls the session list until `done` holds for it, or fails after `ms`. */
export async function listUntil(
  engine: PageEngine,
  done: (sessions: SessionInfo[]) => boolean,
  ms = 20_000,
): Promise<SessionInfo[]> {
  const deadline = performance.now() + ms;
  for (;;) {
    const sessions = await engine.listSessions();
    if (done(sessions)) return sessions;
    if (performance.now() > deadline) throw new Error(JSON.stringify(sessions));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
