// Who gets a seat, worked out before anything runs: the connections a configuration of the
// counter or the slots demo asks for, in the order those demos ask (sim/slots.ts
// `startupOrder`, sim/worker.ts `workerSeats`), against PostgreSQL 18's rule for who may
// take a seat. The embed builder uses it to say, before a teacher shares a link, when a
// configuration leaves the API without a seat; tests/unit/components/seat-plan.test.ts
// asks the engine for the same seats in the same order and compares.
import { clerkSeat } from '../sim/clerk';
import { startupOrder, type SlotsConfig } from '../sim/slots';
import { sweeperSeat } from '../sim/sweeper';
import { trafficSeat } from '../sim/traffic';
import { workerName, workerSeats } from '../sim/worker';
import type { ParamValues } from './url-params';

/**
 * PostgreSQL 18's defaults for the slot settings, which both engines start with
 * (engine/settings.ts sets none of them); tests/unit/components/seat-plan.test.ts reads
 * them from the engine.
 */
export const defaultSlots: Slots = { max: 100, superuserReserved: 3, reserved: 0 };

/** The slot settings: max_connections, superuser_reserved_connections, reserved_connections. */
export interface Slots {
  max: number;
  superuserReserved: number;
  reserved: number;
}

/**
 * Whether one more session gets a seat with `open` taken: a superuser needs any free slot
 * (InitProcess in src/backend/storage/lmgr/proc.c); any other role must leave the reserved
 * slots free (InitPostgres in src/backend/utils/init/postinit.c).
 */
export function seated(open: number, superuser: boolean, slots: Slots): boolean {
  if (open >= slots.max) return false;
  return superuser || slots.max - open - 1 >= slots.superuserReserved + slots.reserved;
}

/** One connection asked for. */
export interface SeatAsk {
  process: string;
  kind: 'worker' | 'api' | 'staff';
  role: 'ordinary' | 'superuser';
}

/** What a configuration's connections get, asked for in order. */
export interface SeatPlan {
  /** Seats an ordinary role may have: max_connections less the reserved ones. */
  ordinarySeats: number;
  workers: { asked: number; seated: number };
  api: { asked: number; seated: number };
  /** The process of the first connection refused, if one is. */
  firstRefused: string | null;
}

/** Asks for each seat of `asks` in order by PostgreSQL 18's rule. */
export function planSeats(asks: readonly SeatAsk[], slots: Slots = defaultSlots): SeatPlan {
  let open = 0;
  const plan: SeatPlan = {
    ordinarySeats: slots.max - slots.superuserReserved - slots.reserved,
    workers: { asked: 0, seated: 0 },
    api: { asked: 0, seated: 0 },
    firstRefused: null,
  };
  for (const ask of asks) {
    const count = ask.kind === 'staff' ? null : plan[ask.kind === 'worker' ? 'workers' : 'api'];
    if (count) count.asked++;
    if (!seated(open, ask.role === 'superuser', slots)) {
      plan.firstRefused ??= ask.process;
      continue;
    }
    open++;
    if (count) count.seated++;
  }
  return plan;
}

/** The API pools' connections in the order they open as requests arrive (sim/slots.ts). */
function apiAsks(api: number, poolSize: number, maxOverflow: number): SeatAsk[] {
  return startupOrder({ workers: 0, perWorker: 1, api, poolSize, maxOverflow }).map((a) => ({
    process: a.process,
    kind: 'api',
    role: 'ordinary',
  }));
}

/**
 * The counter's connections as it asks for them (sim/counter-sim.ts): the clerk, the
 * sweeper and site traffic, then each worker's connections as it starts, then the API
 * pools as requests arrive. `values` are the counter's URL parameters.
 */
export function counterAsks(values: ParamValues): SeatAsk[] {
  const workers = Number(values.workers);
  const connections = Number(values.connections);
  const staff = [clerkSeat, sweeperSeat, trafficSeat].map((s): SeatAsk => ({
    process: s.actor,
    kind: 'staff',
    role: s.role,
  }));
  const workerAsks = Array.from({ length: workers }, (_, i) =>
    workerSeats(workerName(i + 1), connections).map((s): SeatAsk => ({
      process: s.actor,
      kind: 'worker',
      role: s.role,
    })),
  ).flat();
  const api = apiAsks(Number(values.api), Number(values.pool_size), Number(values.max_overflow));
  return [...staff, ...workerAsks, ...api];
}

/** The slots demo's settings from its URL parameters (`connections` is per worker). */
export function slotsConfigOf(values: ParamValues): SlotsConfig {
  return {
    workers: Number(values.workers),
    perWorker: Number(values.connections),
    api: Number(values.api),
    poolSize: Number(values.pool_size),
    maxOverflow: Number(values.max_overflow),
  };
}

/** The slots demo's connections, in its start-up order; `values` are its URL parameters. */
export function slotsAsks(values: ParamValues): SeatAsk[] {
  return startupOrder(slotsConfigOf(values)).map((a) => ({
    process: a.process,
    kind: a.process.startsWith('api-') ? 'api' : 'worker',
    role: 'ordinary',
  }));
}

/** What the builder says about a seat plan, as data. */
export type SeatVerdict =
  | { kind: 'api-without-seat'; workerSeats: number; ordinarySeats: number }
  | { kind: 'workers-at-door'; waiting: number }
  | { kind: 'api-capped'; seats: number; asked: number }
  | { kind: 'everyone-seated' };

/** The verdicts worth telling a teacher, most important first. */
export function seatVerdicts(plan: SeatPlan): SeatVerdict[] {
  const verdicts: SeatVerdict[] = [];
  if (plan.api.asked > 0 && plan.api.seated === 0)
    verdicts.push({
      kind: 'api-without-seat',
      workerSeats: plan.workers.seated,
      ordinarySeats: plan.ordinarySeats,
    });
  if (plan.workers.seated < plan.workers.asked)
    verdicts.push({ kind: 'workers-at-door', waiting: plan.workers.asked - plan.workers.seated });
  if (plan.api.seated > 0 && plan.api.seated < plan.api.asked)
    verdicts.push({ kind: 'api-capped', seats: plan.api.seated, asked: plan.api.asked });
  if (verdicts.length === 0) verdicts.push({ kind: 'everyone-seated' });
  return verdicts;
}
