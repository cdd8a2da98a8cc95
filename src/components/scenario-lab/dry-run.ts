// The check before sharing: every run of a scenario (each combination of its choices)
// played on the engine the reader has, step by step, with what became of each: played
// truthfully with every claim held, a claim that did not hold, a step the engine refuses
// to show (by the refusal's kind, with its words), a step still waiting at the end, or a
// setup that failed. Outcomes are data; the lab words them.
import { PgError, type Engine } from '../../engine/types';
import { defaultSelection, everyChoice, type Selection } from '../../scenario/plan';
import { ScenarioPlay, type StepReport } from '../../scenario/play';
import type { Scenario } from '../../scenario/schema';

/** What became of one run. */
export type RunOutcome =
  /** Every step ran, and every claim held. */
  | { kind: 'truthful' }
  /** Every step ran; these claims did not hold. */
  | { kind: 'claims'; failed: { step: number; says: string; seen: string }[] }
  /** The browser's engine cannot show step `step` truthfully (`refusal` is the kind). */
  | { kind: 'refused'; step: number; session: string; refusal: string; reason: string }
  /** Steps still waiting once every step was sent: nothing in the scenario ends their wait. */
  | { kind: 'stuck'; steps: number[] }
  /** The run could not start or go on: the setup failed, say. */
  | { kind: 'failed'; message: string }
  | { kind: 'stopped' };

export interface RunResult {
  /** The run's choices, as `lock=wait, shape=in-limit-2` (empty when it has none). */
  label: string;
  selection: Selection;
  outcome: RunOutcome;
}

export interface DryRunOptions {
  /** Hears where the check is: run `run` of `runs`, step `step` of `steps`. */
  onProgress?: (p: { run: number; runs: number; step: number; steps: number }) => void;
  /** Resolves when the reader presses Stop. */
  stopped?: Promise<void>;
  /** How long steps may still wait once every step was sent (ms). */
  stuckMs?: number;
}

/** How long a step may wait once the last step was sent before the run is called stuck. */
const STUCK_MS = 15_000;

/** Every run of the scenario's choices, with its parameters at their test values. */
export function everyRun(scenario: Scenario): { label: string; selection: Selection }[] {
  return everyChoice(scenario).map((choices) => {
    const selection = defaultSelection(scenario);
    selection.choices = choices;
    for (const p of scenario.parameters)
      if (p.test !== undefined) selection.parameters[p.id] = p.test;
    const label = Object.entries(choices)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    return { label, selection };
  });
}

/** Plays every run of `scenario` on `engine`, one after another. */
export async function dryRun(
  engine: Engine,
  scenario: Scenario,
  options: DryRunOptions = {},
): Promise<RunResult[]> {
  const runs = everyRun(scenario);
  const results: RunResult[] = [];
  let stop = false;
  void options.stopped?.then(() => (stop = true));
  for (const [i, run] of runs.entries()) {
    if (stop) {
      results.push({ ...run, outcome: { kind: 'stopped' } });
      continue;
    }
    const outcome = await playOnce(engine, scenario, run.selection, options, (step, steps) =>
      options.onProgress?.({ run: i + 1, runs: runs.length, step, steps }),
    );
    results.push({ ...run, outcome });
  }
  return results;
}

async function playOnce(
  engine: Engine,
  scenario: Scenario,
  selection: Selection,
  options: DryRunOptions,
  progress: (step: number, steps: number) => void,
): Promise<RunOutcome> {
  const reports = new Map<number, StepReport>();
  let play: ScenarioPlay;
  try {
    play = await ScenarioPlay.start(engine, scenario, selection, {
      onReport: (r) => reports.set(r.step.index, r),
    });
  } catch (error) {
    return startFailure(error);
  }
  const stopped = options.stopped?.then(() => 'stopped' as const);
  try {
    while (!play.done) {
      progress(play.position, play.steps.length);
      const last = play.position === play.steps.length - 1;
      const stuck = last ? delay(options.stuckMs ?? STUCK_MS).then(() => 'stuck' as const) : null;
      const next = play.next().then(() => 'next' as const);
      // Stopped or stuck, the step is left to the close below: its end is not awaited.
      next.catch(() => {});
      const first = await Promise.race([
        next,
        ...(stopped ? [stopped] : []),
        ...(stuck ? [stuck] : []),
      ]);
      if (first === 'stopped') return { kind: 'stopped' };
      if (first === 'stuck') {
        const waiting = [...reports.values()].filter((r) => r.status === 'waiting');
        return { kind: 'stuck', steps: waiting.map((r) => r.step.index + 1) };
      }
    }
    progress(play.steps.length, play.steps.length);
    return outcomeOf(scenario, [...reports.values()]);
  } catch (error) {
    return { kind: 'failed', message: plain(error) };
  } finally {
    await play.close().catch(() => {});
  }
}

/** The outcome of a run whose every step was sent, from its reports. */
function outcomeOf(scenario: Scenario, reports: StepReport[]): RunOutcome {
  const refused = reports.find((r) => r.status === 'refused');
  if (refused?.status === 'refused')
    return {
      kind: 'refused',
      step: refused.step.index + 1,
      session: scenario.sessions[refused.step.session]!.name,
      refusal: refused.kind,
      reason: refused.reason,
    };
  const failed = reports.flatMap((r) =>
    r.status === 'completed'
      ? r.claims
          .filter((c) => !c.held)
          .map((c) => ({ step: r.step.index + 1, says: c.says, seen: c.seen }))
      : [],
  );
  return failed.length ? { kind: 'claims', failed } : { kind: 'truthful' };
}

/** Why the run could not start: a refusal as it connected, or the setup's error. */
function startFailure(error: unknown): RunOutcome {
  const kind = (error as { kind?: unknown } | null)?.kind;
  if (error instanceof Error && typeof kind === 'string')
    return { kind: 'refused', step: 0, session: 'setup', refusal: kind, reason: error.message };
  return { kind: 'failed', message: `the setup could not run: ${plain(error)}` };
}

function plain(error: unknown): string {
  if (error instanceof PgError) return `${error.severity} ${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
