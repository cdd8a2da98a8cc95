// The slot arithmetic of the `slots` demo: how many connections a deployment asks for
// (workers × connections each + API processes × (pool_size + max_overflow)), in the
// order they ask (workers as they start, then the API pools as requests arrive), and the
// run that asks a real engine for each seat in that order. The processes are modelled;
// the seats, and every refusal, are the engine's.
import { PgError, type Engine, type Session } from '../engine/types';

/** What the reader sets. */
export interface SlotsConfig {
  workers: number;
  /** Connections each worker opens: its claim loop, its heartbeat, its handler. */
  perWorker: number;
  /** API server processes, each with its own pool. */
  api: number;
  /** SQLAlchemy's pool_size (5 by default) and max_overflow (10 by default). */
  poolSize: number;
  maxOverflow: number;
}

/** The article's deployment: 30 workers × 3 + 2 API processes × (5 + 10) = 120. */
export const slotsDefaults: SlotsConfig = {
  workers: 30,
  perWorker: 3,
  api: 2,
  poolSize: 5,
  maxOverflow: 10,
};

/** Each setting's range, and what it is called in a URL and on screen. */
export const slotsRanges: Record<
  keyof SlotsConfig,
  { min: number; max: number; url: string; says: string }
> = {
  workers: { min: 0, max: 40, url: 'workers', says: 'workers' },
  perWorker: { min: 1, max: 3, url: 'connections', says: 'connections per worker' },
  api: { min: 0, max: 4, url: 'api', says: 'API processes' },
  poolSize: { min: 0, max: 20, url: 'pool_size', says: "each API process's pool_size" },
  maxOverflow: { min: 0, max: 20, url: 'max_overflow', says: "each API process's max_overflow" },
};

/** A worker's connections, in the order it opens them. */
const workerConnections = ['claim loop', 'heartbeat', 'handler'];

/** How many connections the deployment asks for, by kind. */
export function demand(c: SlotsConfig): { workers: number; api: number; total: number } {
  const workers = c.workers * c.perWorker;
  const api = c.api * (c.poolSize + c.maxOverflow);
  return { workers, api, total: workers + api };
}

/** One connection a process asks for. */
export interface Ask {
  /** The process: `worker-07`, `api-2`. */
  process: string;
  /** Which of its connections: `heartbeat`, `pool connection 6 (overflow)`. */
  what: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Every connection the deployment asks for, in start-up order: each worker opens its
 * connections as it starts; the API pools open theirs only as requests arrive, taking
 * turns, up to pool_size and then max_overflow more each under load.
 */
export function startupOrder(c: SlotsConfig): Ask[] {
  const asks: Ask[] = [];
  for (let w = 1; w <= c.workers; w++)
    for (const what of workerConnections.slice(0, c.perWorker))
      asks.push({ process: `worker-${pad(w)}`, what });
  const perApi = c.poolSize + c.maxOverflow;
  for (let k = 0; k < c.api * perApi; k++) {
    const n = Math.floor(k / c.api) + 1;
    asks.push({
      process: `api-${(k % c.api) + 1}`,
      what: `pool connection ${n}${n > c.poolSize ? ' (overflow)' : ''}`,
    });
  }
  return asks;
}

/** Reads a slots URL's query string; a value it cannot use is named and the default kept. */
export function readSlotsParams(
  search: string,
  ignore: readonly string[] = [],
): { config: SlotsConfig; problems: string[] } {
  const params = new URLSearchParams(search);
  const config = { ...slotsDefaults };
  const problems: string[] = [];
  const byUrl = new Map(
    Object.entries(slotsRanges).map(([key, r]) => [r.url, key as keyof SlotsConfig]),
  );
  for (const [name, text] of params) {
    const key = byUrl.get(name);
    if (!key) {
      if (!ignore.includes(name)) problems.push(`unknown parameter ${name} ignored`);
      continue;
    }
    const { min, max } = slotsRanges[key];
    const value = Number(text);
    if (text.trim() === '' || !Number.isInteger(value) || value < min || value > max) {
      problems.push(
        `${name} must be a whole number from ${min} to ${max}, not "${text}"; ${config[key]} is used`,
      );
      continue;
    }
    config[key] = value;
  }
  return { config, problems };
}

/** The server's connection settings, and how many sessions were open before the demo. */
export interface ServerSlots {
  maxConnections: number;
  superuserReserved: number;
  /** Slots reserved for roles with pg_use_reserved_connections (PostgreSQL 16 and later). */
  reserved: number;
  /** Sessions already open on this server (other demos, consoles) when the run began. */
  alreadyOpen: number;
}

/** Reads the slot settings with a session of its own, closed again before any ask. */
export async function readServerSlots(engine: Engine): Promise<ServerSlots> {
  const session = await engine.openSession({ applicationName: 'slots demo: reading settings' });
  try {
    const { results } = await session.query(
      `SELECT current_setting('max_connections')::int AS max_connections,
              current_setting('superuser_reserved_connections')::int AS superuser_reserved,
              current_setting('reserved_connections')::int AS reserved,
              (SELECT count(*) FROM pg_stat_activity
                WHERE backend_type = 'client backend' AND pid <> pg_backend_pid())::int AS open`,
    );
    const [max, su, reserved, open] = results[0]!.rows[0]!.map(Number);
    return {
      maxConnections: max!,
      superuserReserved: su!,
      reserved: reserved!,
      alreadyOpen: open!,
    };
  } finally {
    await session.close();
  }
}

/** What became of one ask. */
export type AskOutcome =
  | { ask: Ask; role: 'ordinary' | 'superuser'; seat: number; pid: number }
  | {
      ask: Ask;
      role: 'ordinary' | 'superuser';
      refused: { severity: string; code: string; message: string };
    };

/** A run's open sessions: every seat it holds, to be given back. */
export class SlotsRun {
  private readonly sessions: Session[] = [];
  readonly outcomes: AskOutcome[] = [];
  private readonly engine: Engine;
  private stopped = false;

  constructor(engine: Engine) {
    this.engine = engine;
  }

  /** How many seats this run holds. */
  get held(): number {
    return this.sessions.length;
  }

  /**
   * Asks for one seat as `role`; a refusal (FATAL 53300) is an outcome, not an error.
   * Any other failure is thrown.
   */
  async ask(ask: Ask, role: 'ordinary' | 'superuser'): Promise<AskOutcome> {
    let outcome: AskOutcome;
    try {
      const session = await this.engine.openSession({
        role,
        applicationName: `${ask.process} ${ask.what}`,
      });
      if (this.stopped) {
        await session.close();
        throw new Error('the run was reset');
      }
      this.sessions.push(session);
      outcome = { ask, role, seat: this.sessions.length, pid: session.pid };
    } catch (error) {
      if (!(error instanceof PgError) || error.code !== '53300') throw error;
      outcome = {
        ask,
        role,
        refused: { severity: error.severity, code: error.code, message: error.message },
      };
    }
    this.outcomes.push(outcome);
    return outcome;
  }

  /** Asks for every seat of `asks` in order, as the ordinary role, telling `onOutcome`. */
  async askAll(asks: Ask[], onOutcome?: (o: AskOutcome) => void): Promise<void> {
    for (const ask of asks) {
      if (this.stopped) return;
      // Asked first: `onOutcome?.(…)` would skip its argument when there is no listener.
      const outcome = await this.ask(ask, 'ordinary');
      onOutcome?.(outcome);
    }
  }

  /** Gives every seat back. */
  async close(): Promise<void> {
    this.stopped = true;
    const open = this.sessions.splice(0);
    await Promise.all(open.map((s) => s.close().catch(() => {})));
  }
}
