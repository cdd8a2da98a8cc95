// The simulation's clock. Time moves only when the sim is stepped: `nowMs` is simulated
// milliseconds since the start. Speed and pause matter only to whoever drives the clock
// in real time (the demo's animation loop); the sim itself never reads a wall clock.

/** The clock's state, part of the sim's JSON state. */
export interface ClockState {
  /** Simulated ms since the start; during a tick, the time of the action being run. */
  nowMs: number;
  /** How far one `step()` moves the clock. */
  tickMs: number;
  /** Simulated ms per real ms for a real-time driver, 0.25 to 8. */
  speed: number;
  paused: boolean;
}

export const minSpeed = 0.25;
export const maxSpeed = 8;

/**
 * The simulated moment the sim writes into the database (`run_after`, `heartbeat`,
 * `created_at`): a fixed epoch plus simulated ms, so that stored values, and with them
 * the event log, are the same on every run.
 */
export const epochMs = Date.UTC(2025, 0, 6, 9, 0, 0);

/** A clock at zero. */
export function createClock(tickMs: number, speed: number): ClockState {
  return { nowMs: 0, tickMs, speed: clampSpeed(speed), paused: false };
}

/** `speed` within 0.25× to 8× (1× when it is not a number). */
export function clampSpeed(speed: number): number {
  if (!Number.isFinite(speed)) return 1;
  return Math.min(maxSpeed, Math.max(minSpeed, speed));
}

/** Simulated time `ms` as an ISO timestamp, the text the sim sends as a timestamptz. */
export function timestampAt(ms: number): string {
  return new Date(epochMs + ms).toISOString();
}

/**
 * Ticks a real-time driver runs per frame at most (the demo and its benchmark): when the
 * engine cannot keep up with the chosen speed, simulated time slows down rather than
 * piling up work.
 */
export const maxTicksPerFrame = 4;

/**
 * For a real-time driver: how many ticks are owed after `realMs` of real time at the
 * clock's speed, and the simulated ms left over for next time (none while paused). Past
 * `maxTicks` the rest is dropped, not owed.
 */
export function ticksOwed(
  clock: ClockState,
  realMs: number,
  carryMs = 0,
  maxTicks = Infinity,
): { ticks: number; carryMs: number } {
  if (clock.paused || realMs <= 0) return { ticks: 0, carryMs };
  const owed = carryMs + realMs * clock.speed;
  const ticks = Math.floor(owed / clock.tickMs);
  if (ticks > maxTicks) return { ticks: maxTicks, carryMs: 0 };
  return { ticks, carryMs: owed - ticks * clock.tickMs };
}
