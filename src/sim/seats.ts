// Seats (open sessions) and the door (sessions refused a seat). A refused session gets
// the engine's FATAL word for word, waits at the door and tries again after a seeded
// delay; its owner is told when it finally sits down (counter-sim.ts routes that).
import { PgError, type Session } from '../engine/types';
import { now, type SimContext } from './context';
import type { DoorEntry, Seat, SeatSpec } from './state';

/**
 * Opens a session for `spec`. Refused a seat (SQLSTATE 53300), it goes to the door and
 * null is returned; any other error is thrown.
 */
export async function openSeat(
  ctx: SimContext,
  spec: SeatSpec,
  before?: DoorEntry,
): Promise<Session | null> {
  const t = now(ctx);
  try {
    const session = await ctx.engine.openSession({
      applicationName: spec.actor,
      role: spec.role,
    });
    const seat: Seat = { ...pick(spec), pid: session.pid, openedAtMs: t, xactSinceMs: null };
    ctx.sessions.set(spec.name, session);
    ctx.state.seats.push(seat);
    ctx.emit({
      type: 'session-opened',
      seat: spec.name,
      actor: spec.actor,
      role: spec.role,
      pid: session.pid,
    });
    return session;
  } catch (error) {
    if (!(error instanceof PgError) || error.code !== '53300') throw error;
    const { doorRetryMinMs, doorRetryMaxMs } = ctx.state.settings;
    const retryAtMs = t + ctx.random(`door:${spec.name}`).int(doorRetryMinMs, doorRetryMaxMs);
    ctx.state.door.push({
      ...pick(spec),
      code: error.code,
      message: error.message,
      sinceMs: before?.sinceMs ?? t,
      retryAtMs,
      tries: (before?.tries ?? 0) + 1,
    });
    ctx.emit({
      type: 'session-refused',
      seat: spec.name,
      actor: spec.actor,
      role: spec.role,
      code: error.code,
      message: error.message,
      retryAtMs,
    });
    ctx.schedule(retryAtMs, { kind: 'door-retry', seat: spec.name });
    return null;
  }
}

/** Tries the door entry `seat` again; its spec and session when it got a seat. */
export async function retryAtDoor(
  ctx: SimContext,
  seat: string,
): Promise<{ spec: SeatSpec; session: Session } | null> {
  const i = ctx.state.door.findIndex((d) => d.name === seat);
  if (i < 0) return null; // its owner stopped waiting
  const [entry] = ctx.state.door.splice(i, 1);
  const session = await openSeat(ctx, entry!, entry);
  return session ? { spec: pick(entry!), session } : null;
}

/** Closes seat `name`'s session, as a disconnect does: an open transaction rolls back. */
export async function closeSeat(
  ctx: SimContext,
  name: string,
  why: 'killed' | 'overflow' | 'stopped' | 'pre-ping',
): Promise<void> {
  const i = ctx.state.seats.findIndex((s) => s.name === name);
  const session = ctx.sessions.get(name);
  if (i < 0 || !session) return;
  const [seat] = ctx.state.seats.splice(i, 1);
  ctx.sessions.delete(name);
  await session.close();
  ctx.emit({ type: 'session-closed', seat: name, actor: seat!.actor, pid: seat!.pid, why });
}

/** Takes `actor`'s sessions away from the door (it was killed or stopped). */
export function leaveDoor(ctx: SimContext, actor: string): void {
  ctx.state.door = ctx.state.door.filter((d) => d.actor !== actor);
}

/** The session of seat `name`; throws when it is not open (a bug in the sim). */
export function sessionOf(ctx: SimContext, name: string): Session {
  const session = ctx.sessions.get(name);
  if (!session) throw new Error(`seat ${name} is not open`);
  return session;
}

/** Notes when seat `name`'s open transaction began (null: it ended). */
export function markTransaction(ctx: SimContext, name: string, sinceMs: number | null): void {
  const seat = ctx.state.seats.find((s) => s.name === name);
  if (seat) seat.xactSinceMs = sinceMs;
}

/** Whether seat `name` is open. */
export function isSeated(ctx: SimContext, name: string): boolean {
  return ctx.sessions.has(name);
}

function pick({ name, actor, purpose, role }: SeatSpec): SeatSpec {
  return { name, actor, purpose, role };
}
