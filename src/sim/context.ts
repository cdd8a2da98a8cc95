// What an actor may touch while it acts: the JSON-safe state, the live sessions beside
// it, and the ways to record an event, schedule an action and draw a random number.
import type { Engine, Session } from '../engine/types';
import type { SimEventBody } from './events';
import type { Random } from './random';
import type { Action, SimState } from './state';

export interface SimContext {
  readonly engine: Engine;
  readonly state: SimState;
  /** Open sessions by seat name; kept out of `state`, which stays plain data. */
  readonly sessions: Map<string, Session>;
  /** Records an event at the clock's current moment. */
  emit(event: SimEventBody): void;
  /** Schedules `action` at simulated `atMs`. */
  schedule(atMs: number, action: Action): void;
  /** The seeded stream `label` (one per actor). */
  random(label: string): Random;
}

/** The clock's current moment in simulated ms. */
export function now(ctx: SimContext): number {
  return ctx.state.clock.nowMs;
}
