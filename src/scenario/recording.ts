// PostgreSQL 18's output for every choice of a scenario, as `npm run record` wrote it to
// content/recordings/<id>.json. The player plays the runs PGlite cannot show truthfully
// (an option marked `recorded`) step by step, labelled with the server version; the
// printable handouts print every run. A test re-runs each scenario on a server and fails
// when a recording no longer matches what it prints.
import { z } from './zod';
import type { Engine } from '../engine/types';
import { noticeLines } from './claims';
import { defaultSelection, everyChoice, isRecorded, selectionKey, type Selection } from './plan';
import { ScenarioPlay, type StepReport } from './play';
import type { Scenario } from './schema';

const outputSchema = z.object({
  waited: z.boolean(),
  results: z.array(
    z.object({
      command: z.string(),
      fields: z.array(z.object({ name: z.string(), dataTypeID: z.number() })),
      rows: z.array(z.array(z.string().nullable())),
      rowCount: z.number().nullable(),
    }),
  ),
  notices: z.array(
    z.object({
      severity: z.string(),
      code: z.string(),
      message: z.string(),
      detail: z.string().optional(),
      hint: z.string().optional(),
    }),
  ),
  error: z
    .object({
      code: z.string(),
      severity: z.string(),
      message: z.string(),
      detail: z.string().optional(),
      hint: z.string().optional(),
      position: z.number().optional(),
    })
    .optional(),
  elapsedMs: z.number(),
});

/** One report of a recorded run, with how many steps had been sent when it came. */
const eventSchema = z.object({
  sent: z.number().int().nonnegative(),
  step: z.number().int().nonnegative(),
  status: z.enum(['waiting', 'completed', 'modelled']),
  output: outputSchema.optional(),
  claims: z.array(z.object({ says: z.string(), held: z.boolean(), seen: z.string() })).optional(),
});

/** A recording file: the server's version and, per selection, the reports in order. */
export const recordingSchema = z.object({
  scenario: z.string(),
  /** `SELECT version()` on the server that printed it, e.g. `PostgreSQL 18.4 on …`. */
  server: z.string().regex(/^PostgreSQL 18\./, 'recordings come from PostgreSQL 18'),
  runs: z.record(z.string(), z.object({ events: z.array(eventSchema) })),
});

export type Recording = z.output<typeof recordingSchema>;
export type RecordedEvent = z.output<typeof eventSchema>;

/**
 * Every selection `npm run record` plays: each combination of the choices, with the
 * scenario's default numbers (what a reader sees before changing anything).
 */
export function everySelection(scenario: Scenario): Selection[] {
  const base = defaultSelection(scenario);
  return everyChoice(scenario).map((choices) => ({ ...base, choices }));
}

/**
 * `recording` with only the runs the player plays (options marked `recorded`): what a
 * demo's page carries, the handout reading the rest.
 */
export function playedRuns(recording: Recording, scenario: Scenario): Recording {
  const runs = Object.fromEntries(
    everySelection(scenario)
      .filter((selection) => isRecorded(scenario, selection))
      .map((selection) => selectionKey(scenario, selection))
      .flatMap((key) => (recording.runs[key] ? [[key, recording.runs[key]] as const] : [])),
  );
  return { ...recording, runs };
}

/** Plays `selection` on `engine` (a real server) and returns its reports, in order. */
export async function recordRun(
  engine: Engine,
  scenario: Scenario,
  selection: Selection,
): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  // A report counts the steps sent when it came (none before the play started).
  const started: { play?: ScenarioPlay } = {};
  const play = await ScenarioPlay.start(engine, scenario, selection, {
    onReport: (report: StepReport) => {
      if (report.status === 'refused')
        throw new Error(`the server refused step ${report.step.index + 1}: ${report.reason}`);
      events.push({
        sent: started.play?.position ?? 0,
        step: report.step.index,
        status: report.status,
        ...(report.status === 'completed' ? { output: report.output, claims: report.claims } : {}),
      });
    },
  });
  started.play = play;
  try {
    while (!play.done) await play.next();
  } finally {
    await play.close();
  }
  return events;
}

/** The server's version string, as `SELECT version()` gives it. */
export async function serverVersion(engine: Engine): Promise<string> {
  const session = await engine.openSession({ applicationName: 'record' });
  try {
    const { results } = await session.query('SELECT version()');
    return results[0]!.rows[0]![0]!;
  } finally {
    await session.close();
  }
}

/** `PostgreSQL 18.4`: the version as the player labels a recording. */
export function shortVersion(server: string): string {
  return /^PostgreSQL [\d.]+/.exec(server)?.[0] ?? server;
}

/** The recorded run for `selection`, if the file has one. */
export function recordedRun(
  recording: Recording | undefined,
  scenario: Scenario,
  selection: Selection,
): RecordedEvent[] | undefined {
  return recording?.runs[selectionKey(scenario, selection)]?.events;
}

/**
 * A recorded run reduced to what must stay the same from one recording to the next: XIDs
 * become placeholders in order of appearance, times (elapsed, and how long a step lasted)
 * and the machine's VACUUM figures go.
 */
export function normaliseRun(events: RecordedEvent[]): unknown[] {
  const xids = new Map<string, string>();
  const xid = (n: string) => {
    if (!xids.has(n)) xids.set(n, `<xid${xids.size + 1}>`);
    return xids.get(n)!;
  };
  const known = (text: string) => text.replace(/\d+/g, (n) => xids.get(n) ?? n);
  // Values that are XIDs: cells of xid and xid8 columns (pg_type), and the cutoffs VACUUM
  // names; claims that quote them are read after them.
  const xidTypes = new Set([28, 5069]);
  return events.map(({ output, claims, ...event }) => {
    if (!output) return event;
    const { elapsedMs: _elapsed, ...rest } = output;
    void _elapsed;
    const results = rest.results.map((r) => ({
      ...r,
      rows: r.rows.map((row) =>
        row.map((v, i) => (v !== null && xidTypes.has(r.fields[i]!.dataTypeID) ? xid(v) : v)),
      ),
    }));
    const notices = noticeLines(rest.notices)
      .filter((line) => !/^(avg read rate|buffer usage|WAL usage|system usage)/.test(line))
      .map((line) =>
        line
          .replace(
            /\b(cutoff|relfrozenxid|relminmxid): (\d+)/g,
            (_m, l: string, n: string) => `${l}: ${xid(n)}`,
          )
          .replace(/which (was|is) (?:\d+|…) (M?XIDs)/g, 'which $1 <n> $2')
          .replace(/pg_toast_\d+/g, 'pg_toast_<oid>'),
      );
    return {
      ...event,
      output: { ...rest, results, notices },
      // A `lasts` claim says how long its step took: the time goes, the verdict stays.
      claims: claims?.map((c) => ({
        ...c,
        says: known(c.says),
        seen: known(c.seen.replace(/^it answered after [\d.]+ s$/, 'it answered after <time>')),
      })),
    };
  });
}
