// Plays a scenario the way `npm run record` does, and reduces runs to what two engines
// must agree on.
import type { Engine } from '../../src/engine/types';
import type { Selection } from '../../src/scenario/plan';
import { normaliseRun, recordRun, type RecordedEvent } from '../../src/scenario/recording';
import type { Scenario } from '../../src/scenario/schema';

/** Plays every step of `selection` on `engine`; the reports in the order they came. */
export function playRun(engine: Engine, scenario: Scenario, selection: Selection) {
  return recordRun(engine, scenario, selection);
}

/**
 * Columns whose values depend on the server's history or the clock rather than on the
 * scenario: backend pids and times. XIDs themselves are matched by `normaliseRun`; their
 * ages must agree (sim.age leaves out the XIDs the layer spent).
 */
const volatileColumn = /^(pid|\w*_start|state_change|open_for)$/;

/** A run as both engines must show it: `normaliseRun`, with volatile columns masked. */
export function comparable(events: RecordedEvent[]): unknown[] {
  const masked = events.map((event) =>
    event.output
      ? {
          ...event,
          output: {
            ...event.output,
            results: event.output.results.map((r) => ({
              ...r,
              rows: r.rows.map((row) =>
                row.map((v, i) => (volatileColumn.test(r.fields[i]!.name) ? '<volatile>' : v)),
              ),
            })),
          },
        }
      : event,
  );
  return normaliseRun(masked);
}

/** Every claim of a run that did not hold, as `step N: says (seen)`. */
export function failedClaims(events: RecordedEvent[]): string[] {
  return events.flatMap((e) =>
    (e.claims ?? [])
      .filter((c) => !c.held)
      .map((c) => `step ${e.step + 1}: ${c.says} (saw ${c.seen})`),
  );
}
