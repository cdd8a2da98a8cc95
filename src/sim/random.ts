// Seeded randomness for the simulation. A generator's whole state is one unsigned 32-bit
// integer, kept in the sim's JSON state, so a run can be saved and replayed exactly.
// Each actor draws from its own stream (named by a label), so adding an API process
// does not change how long worker-03's jobs take.

/** One step of mulberry32 (Tommy Ettinger's generator): the next state and a float in [0, 1). */
export function mulberry32(state: number): { state: number; value: number } {
  const next = (state + 0x6d2b79f5) >>> 0;
  let t = next;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return { state: next, value: ((t ^ (t >>> 14)) >>> 0) / 4294967296 };
}

/** The starting state of the stream `label` under `seed` (FNV-1a of the label, mixed with the seed). */
export function streamSeed(seed: number, label: string): number {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < label.length; i++) {
    hash ^= label.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // One round of mulberry32 spreads seeds that differ in a single bit.
  return mulberry32(hash >>> 0).state ^ Math.imul(seed >>> 0, 0x9e3779b1);
}

/** Draws from one named stream; every draw moves the state stored in `states[label]`. */
export interface Random {
  /** A float in [0, 1). */
  float(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** A whole number of ms from an exponential distribution with this mean (at least 1). */
  exponentialMs(meanMs: number): number;
}

/** The stream `label` of a sim whose generator states live in `states` (JSON-safe). */
export function randomStream(states: Record<string, number>, seed: number, label: string): Random {
  const float = (): number => {
    const { state, value } = mulberry32(states[label] ?? streamSeed(seed, label));
    states[label] = state;
    return value;
  };
  return {
    float,
    int: (min, max) => min + Math.floor(float() * (max - min + 1)),
    // Rounded to whole ms, so the last bits of Math.log never reach the event log.
    exponentialMs: (meanMs) => Math.max(1, Math.round(-Math.log(1 - float()) * meanMs)),
  };
}
