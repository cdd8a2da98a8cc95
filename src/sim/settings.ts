// The counter simulation's settings: one JSON-safe object, read from a demo's controls
// or an embed URL. Anything missing, unknown or out of range falls back to a default or
// is clamped, and each such change is reported in a sentence, never thrown.

/** How a worker holds its job. */
export type Shape = 'hold' | 'claim-close';

export interface CounterSettings {
  /** Seed of every random draw (an unsigned 32-bit integer). */
  seed: number;
  /** Worker processes, 0–40. */
  workers: number;
  /** API processes, 0–4. */
  api: number;
  /**
   * `hold`: claim and work in one open transaction (idle in transaction, with an XID, for
   * the whole job), commit, then record. `claim-close`: claim and commit, work holding
   * nothing, record.
   */
  shape: Shape;
  /** Connections per worker, 1–3: claim loop, then heartbeat, then handler. */
  connections: number;
  /** Uploads per simulated second, arriving at the API processes in turn, 0–50. */
  uploadRate: number;
  /** Each API process's pool: connections kept (SQLAlchemy `pool_size`), 1–50. */
  poolSize: number;
  /** Connections a pool may open beyond `poolSize` in a burst (`max_overflow`), 0–50. */
  maxOverflow: number;
  /** Check a pooled connection with `SELECT 1` at checkout (`pool_pre_ping`). */
  poolPrePing: boolean;
  /** Simulated ms per real ms for a real-time driver, 0.25–8. */
  speed: number;
  /** A job's work takes between these (simulated ms). */
  workMinMs: number;
  workMaxMs: number;
  /** An upload request holds its pooled connection for between these. */
  requestMinMs: number;
  requestMaxMs: number;
  /** An idle worker asks for a job this often. */
  pollMs: number;
  /** A working claim-close worker updates its job's heartbeat this often. */
  heartbeatEveryMs: number;
  /** The sweeper puts back a running job whose heartbeat is older than this. */
  heartbeatLimitMs: number;
  /** The sweeper looks this often. */
  sweepEveryMs: number;
  /** The clerk runs VACUUM (VERBOSE) this often. */
  vacuumEveryMs: number;
  /** A session refused a seat tries again after between these. */
  doorRetryMinMs: number;
  doorRetryMaxMs: number;
  /** A killed worker is restarted (by its supervisor) after this. */
  restartMs: number;
  /** Jobs already queued when the sim starts. */
  initialJobs: number;
  /** Simulated ms per `step()`. */
  tickMs: number;
}

export const defaultSettings: Readonly<CounterSettings> = {
  seed: 1,
  workers: 4,
  api: 1,
  shape: 'hold',
  connections: 1,
  uploadRate: 2,
  poolSize: 5,
  maxOverflow: 10,
  poolPrePing: false,
  speed: 1,
  workMinMs: 2000,
  workMaxMs: 6000,
  requestMinMs: 200,
  requestMaxMs: 1200,
  pollMs: 1000,
  heartbeatEveryMs: 2000,
  heartbeatLimitMs: 10_000,
  sweepEveryMs: 2000,
  vacuumEveryMs: 5000,
  doorRetryMinMs: 1000,
  doorRetryMaxMs: 3000,
  restartMs: 3000,
  initialJobs: 0,
  tickMs: 100,
};

export type NumberKey = {
  [K in keyof CounterSettings]: CounterSettings[K] extends number ? K : never;
}[keyof CounterSettings];

/** Allowed range of each number, and whether it must be whole. */
export const settingLimits: Record<NumberKey, { min: number; max: number; whole: boolean }> = {
  seed: { min: 0, max: 4294967295, whole: true },
  workers: { min: 0, max: 40, whole: true },
  api: { min: 0, max: 4, whole: true },
  connections: { min: 1, max: 3, whole: true },
  uploadRate: { min: 0, max: 50, whole: false },
  poolSize: { min: 1, max: 50, whole: true },
  maxOverflow: { min: 0, max: 50, whole: true },
  speed: { min: 0.25, max: 8, whole: false },
  workMinMs: { min: 100, max: 600_000, whole: true },
  workMaxMs: { min: 100, max: 600_000, whole: true },
  requestMinMs: { min: 10, max: 60_000, whole: true },
  requestMaxMs: { min: 10, max: 60_000, whole: true },
  pollMs: { min: 100, max: 60_000, whole: true },
  heartbeatEveryMs: { min: 100, max: 600_000, whole: true },
  heartbeatLimitMs: { min: 500, max: 3_600_000, whole: true },
  sweepEveryMs: { min: 100, max: 600_000, whole: true },
  vacuumEveryMs: { min: 500, max: 600_000, whole: true },
  doorRetryMinMs: { min: 100, max: 600_000, whole: true },
  doorRetryMaxMs: { min: 100, max: 600_000, whole: true },
  restartMs: { min: 0, max: 600_000, whole: true },
  initialJobs: { min: 0, max: 1000, whole: true },
  tickMs: { min: 10, max: 1000, whole: true },
};

const shapes: readonly Shape[] = ['hold', 'claim-close'];

/**
 * Reads settings from `input` (an object of values, or of strings as a URL gives them).
 * Returns whole settings and one sentence per value that was ignored or changed.
 */
export function normaliseSettings(input: unknown): {
  settings: CounterSettings;
  problems: string[];
} {
  const settings: CounterSettings = { ...defaultSettings };
  const problems: string[] = [];
  if (input === undefined || input === null) return { settings, problems };
  if (typeof input !== 'object' || Array.isArray(input)) {
    return { settings, problems: ['settings must be an object; using the defaults'] };
  }
  for (const [key, raw] of Object.entries(input as Record<string, unknown>)) {
    if (raw === undefined) continue;
    if (key === 'shape') {
      if (shapes.includes(raw as Shape)) settings.shape = raw as Shape;
      else problems.push(`shape must be hold or claim-close, not ${show(raw)}; using hold`);
    } else if (key === 'poolPrePing') {
      const value = raw === true || raw === 'true' || raw === '1' || raw === 1;
      if (value || raw === false || raw === 'false' || raw === '0' || raw === 0) {
        settings.poolPrePing = value;
      } else problems.push(`poolPrePing must be true or false, not ${show(raw)}; using false`);
    } else if (key in settingLimits) {
      const name = key as NumberKey;
      const { min, max } = settingLimits[name];
      const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        problems.push(`${name} must be a number, not ${show(raw)}; using ${defaultSettings[name]}`);
        continue;
      }
      const fixed = clampSetting(name, value);
      if (value < min || value > max) {
        problems.push(`${name} ${value} is outside ${min}–${max}; using ${fixed}`);
      } else if (fixed !== value) {
        problems.push(`${name} must be a whole number, not ${value}; using ${fixed}`);
      }
      settings[name] = fixed;
    } else {
      problems.push(`unknown setting ${key} ignored`);
    }
  }
  for (const [low, high] of [
    ['workMinMs', 'workMaxMs'],
    ['requestMinMs', 'requestMaxMs'],
    ['doorRetryMinMs', 'doorRetryMaxMs'],
  ] as const) {
    if (settings[low] > settings[high]) {
      problems.push(`${low} is above ${high}; using ${settings[high]} for both`);
      settings[low] = settings[high];
    }
  }
  return { settings, problems };
}

function show(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : String(JSON.stringify(value));
}

/** `value` within setting `name`'s limits, rounded if it must be whole; its minimum if no number. */
export function clampSetting(name: NumberKey, value: unknown): number {
  const { min, max, whole } = settingLimits[name];
  const v = typeof value === 'number' && Number.isFinite(value) ? value : min;
  return Math.min(max, Math.max(min, whole ? Math.round(v) : v));
}
