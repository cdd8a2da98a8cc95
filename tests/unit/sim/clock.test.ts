import { describe, expect, it } from 'vitest';
import {
  clampSpeed,
  createClock,
  maxSpeed,
  minSpeed,
  ticksOwed,
  timestampAt,
} from '../../../src/sim/clock';

describe('the sim clock', () => {
  it('starts at zero, running, at a speed within 0.25× to 8×', () => {
    expect(createClock(100, 2)).toEqual({ nowMs: 0, tickMs: 100, speed: 2, paused: false });
    expect(createClock(100, 50).speed).toBe(maxSpeed);
    expect(createClock(100, 0).speed).toBe(minSpeed);
  });

  it('clamps speeds, and reads a speed that is not a number as 1×', () => {
    expect([0.1, 0.25, 1, 3.5, 8, 9].map(clampSpeed)).toEqual([0.25, 0.25, 1, 3.5, 8, 8]);
    expect(clampSpeed(Number.NaN)).toBe(1);
  });

  it('writes simulated moments as timestamps from a fixed epoch', () => {
    expect(timestampAt(0)).toBe('2025-01-06T09:00:00.000Z');
    expect(timestampAt(61_500)).toBe('2025-01-06T09:01:01.500Z');
  });

  it('owes a real-time driver ticks by its speed, and carries the rest over', () => {
    const clock = createClock(100, 2);
    expect(ticksOwed(clock, 250)).toEqual({ ticks: 5, carryMs: 0 });
    clock.speed = 0.25;
    const first = ticksOwed(clock, 300);
    expect(first).toEqual({ ticks: 0, carryMs: 75 });
    expect(ticksOwed(clock, 100, first.carryMs)).toEqual({ ticks: 1, carryMs: 0 });
  });

  it('owes nothing while paused, keeping the carry', () => {
    const clock = createClock(100, 8);
    clock.paused = true;
    expect(ticksOwed(clock, 1000, 40)).toEqual({ ticks: 0, carryMs: 40 });
  });

  it('gives at most maxTicks and drops the rest, so a slow engine slows time instead of owing it', () => {
    const clock = createClock(100, 8);
    expect(ticksOwed(clock, 100, 0, 4)).toEqual({ ticks: 4, carryMs: 0 });
    expect(ticksOwed(clock, 40, 0, 4)).toEqual({ ticks: 3, carryMs: 20 });
  });
});
