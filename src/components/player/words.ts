// What the player says in its status line and labels, and the run view it reads them from.
import { PlanError, pressFrom, type PlannedStep } from '../../scenario/plan';
import type { StepReport } from '../../scenario/play';
import type { Scenario } from '../../scenario/schema';

/** What the player is doing that the reader must wait for. */
export type Busy =
  | { kind: 'starting' }
  | { kind: 'step' }
  | { kind: 'delay'; until: number; ms: number; before: PlannedStep }
  | { kind: 'replay'; to: number; seconds: number };

/** The run on screen: its steps and what each has shown. */
export interface RunView {
  generation: number;
  steps: PlannedStep[];
  reports: (StepReport | undefined)[];
  /** How many steps have been sent. */
  position: number;
  /** The first step the latest Next sent: it and the steps chained to it are narrated. */
  from: number;
  /** When the scenario's countdown ends (ms since the epoch), once its step has run. */
  deadline: number | null;
  recorded: boolean;
  done: boolean;
  /** Values kept by the run's steps (XIDs, cutoffs), to point at in the output. */
  kept: Record<string, string | null>;
}

export const emptyRun: RunView = {
  generation: 0,
  steps: [],
  reports: [],
  position: 0,
  from: 0,
  deadline: null,
  recorded: false,
  done: false,
  kept: {},
};

/** Thrown into a step's delay when the reader presses Stop. */
export class Stopped extends Error {}

/** An error that ended a run, in plain words. */
export function plainError(error: unknown): string {
  if (error instanceof PlanError) return error.message;
  const text = error instanceof Error ? error.message : String(error);
  return `The demo could not go on: ${text}. Restart tries again from the beginning.`;
}

/** The first line of `sql`, cut to fit a sentence; `…` says there is more. */
export function firstLine(sql: string): string {
  const lines = sql.trim().split('\n');
  const line = lines[0]!.trimEnd();
  if (line.length > 70) return `${line.slice(0, 69)}…`;
  return lines.length > 1 ? `${line} …` : line;
}

/** `worker-a sends`, or `you send` for the session the scenario calls you. */
export function sends(name: string): string {
  return name === 'you' ? 'you send' : `${name} sends`;
}

/** The status line: what the player is doing, in plain words. */
export function describeBusy(
  busy: Busy | null,
  now: number,
  run: RunView,
  scenario: Scenario,
): string {
  const name = (step: PlannedStep) => scenario.sessions[step.session]!.name;
  switch (busy?.kind) {
    case 'starting':
      return 'Setting up: opening the sessions and creating the tables…';
    case 'step':
      return 'Running the step…';
    case 'delay': {
      const left = Math.max(0, (busy.until - now) / 1000);
      return `Step ${busy.before.index + 1}, by ${name(busy.before)}, goes in ${left.toFixed(1)} s. Stop holds it here.`;
    }
    case 'replay':
      return `Replaying from the start to step ${busy.to}${busy.seconds >= 1 ? `, about ${Math.ceil(busy.seconds)} s with its waits` : ''}…`;
    default: {
      if (run.done) return `All ${run.steps.length} steps have run.`;
      if (run.position === 0) return 'Ready.';
      const waiting = run.steps.filter((s) => run.reports[s.index]?.status === 'waiting');
      const sent = `Step ${run.position} of ${run.steps.length} sent`;
      if (waiting.length === 0) return `${sent} and answered.`;
      const who = waiting.map((s) => `${name(s)} (step ${s.index + 1})`).join(' and ');
      return `${sent}; ${who} ${waiting.length === 1 ? 'is' : 'are'} waiting.`;
    }
  }
}

/** `1.12 ms`, `3.04 s`. */
export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}

/** Whether the run sends anything to session `index`. */
export function hasSteps(run: RunView, index: number): boolean {
  return run.steps.some((s) => s.session === index);
}

/** `, then worker-a's COMMIT 3 s later`: the steps the same Next sends after `step`. */
export function chainedAfter(steps: PlannedStep[], step: PlannedStep): string {
  const chained = pressFrom(steps, step.index).slice(1);
  if (chained.length === 0) return '';
  return `, and ${chained.length === 1 ? 'the step' : `the ${chained.length} steps`} chained to it (${chained.map((s) => `step ${s.index + 1}`).join(', ')})`;
}
