// Checks over a run's event log, shared by the unit tests (PGlite) and the fidelity
// test (PGlite and PostgreSQL 18).
import type { SimEvent } from '../../../src/sim/events';
import type { Shape } from '../../../src/sim/settings';

/**
 * Claims of a job made while an earlier claim of it still stood in the database. A claim
 * stands until it is recorded or swept; a killed worker's claim also ends then in the
 * hold shape (its transaction rolls back), but stays `running` in claim-close until swept.
 */
export function doubleClaims(events: readonly SimEvent[], shape: Shape): string[] {
  const holder = new Map<number, string>();
  const found: string[] = [];
  for (const e of events) {
    if (e.type === 'job-claimed') {
      const other = holder.get(e.jobId);
      if (other)
        found.push(`job ${e.jobId} claimed by ${e.worker} at ${e.t} while ${other} held it`);
      holder.set(e.jobId, e.worker);
    } else if (e.type === 'job-recorded') holder.delete(e.jobId);
    else if (e.type === 'jobs-swept') e.jobIds.forEach((id) => holder.delete(id));
    else if (e.type === 'worker-killed' && e.jobId !== null && shape === 'hold')
      holder.delete(e.jobId);
  }
  return found;
}

/**
 * The `attempts` each job should have by its committed claims. In claim-close a claim
 * commits at once; in the hold shape only when its job is recorded (a killed worker's
 * claim rolls back, and one still open is not seen by other sessions).
 */
export function expectedAttempts(events: readonly SimEvent[], shape: Shape): Map<number, number> {
  const committed = shape === 'hold' ? 'job-recorded' : 'job-claimed';
  const attempts = new Map<number, number>();
  for (const e of events) {
    if (e.type === committed) attempts.set(e.jobId, (attempts.get(e.jobId) ?? 0) + 1);
  }
  return new Map([...attempts].sort(([a], [b]) => a - b));
}

/** Events that say something went wrong: a Postgres error, a refusal to show, a halt. */
export function troubles(events: readonly SimEvent[]): SimEvent[] {
  return events.filter(
    (e) => e.type === 'error' || e.type === 'not-expressible' || e.type === 'halted',
  );
}

/** Events with what differs between engines (pids, XIDs) replaced, for comparison. */
export function normaliseEvents(events: readonly SimEvent[]): unknown[] {
  return events.map((e) => {
    if (e.type === 'session-opened' || e.type === 'session-closed') return { ...e, pid: '<pid>' };
    if (e.type === 'vacuum') return { ...e, cutoff: '<xid>' };
    return e;
  });
}

/** 30 workers × 3 connections and 2 API pools of 5 + 10, busy: more than the seats. */
export const crowdedCounter = {
  workers: 30,
  connections: 3,
  api: 2,
  poolSize: 5,
  maxOverflow: 10,
  uploadRate: 20,
  requestMinMs: 1000,
  requestMaxMs: 2000,
} as const;
