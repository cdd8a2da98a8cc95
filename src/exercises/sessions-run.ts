// A sessions exercise on one engine: its scenario's sessions connect, its setup and steps
// bring them to the starting state (each step's claims checked as it runs), a statement
// may be left waiting, and then the reader's console and the checks share the sessions.
import { PgError, type Engine, type QueryResult, type Session } from '../engine/types';
import { defaultSelection } from '../scenario/plan';
import { ScenarioPlay, type StepReport } from '../scenario/play';
import { runChecks, type CheckOptions } from './checks';
import type { CheckReport, ReaderAnswer, SessionsExercise } from './types';

/** How a step of the way to the starting state went. */
export type StartStep = Extract<StepReport, { status: 'completed' | 'refused' | 'modelled' }>;

/** What became of the statement left running, once it answered. */
export type LeftRunningAnswer =
  { ok: true; result: QueryResult } | { ok: false; code: string; message: string };

/** How long the left-running statement has to be seen waiting before the run gives up. */
const WAIT_SEEN_MS = 10_000;

/** An exercise's sessions in play: the reader's to drive, the checks' to ask. */
export class SessionsExerciseRun {
  readonly exercise: SessionsExercise;
  /** Every step that brought the sessions to the starting state, with its claims. */
  readonly started: StartStep[] = [];
  /** Each session's pid at the start, by name. */
  readonly pids: Record<string, number> = {};
  /** Settles once the statement left running has answered (null when there is none). */
  leftRunning: Promise<LeftRunningAnswer> | null = null;
  private readonly play: ScenarioPlay;

  private constructor(exercise: SessionsExercise, play: ScenarioPlay) {
    this.exercise = exercise;
    this.play = play;
    exercise.scenario.sessions.forEach((s, i) => (this.pids[s.name] = play.session(i).pid));
  }

  /** Connects the sessions and plays the steps to the starting state. */
  static async start(engine: Engine, exercise: SessionsExercise): Promise<SessionsExerciseRun> {
    const scenario = exercise.scenario;
    const started: StartStep[] = [];
    const play = await ScenarioPlay.start(engine, scenario, defaultSelection(scenario), {
      onReport: (r) => {
        if (r.status !== 'waiting') started.push(r);
      },
    });
    const run = new SessionsExerciseRun(exercise, play);
    try {
      await play.playAll();
      run.started.push(...started);
      const left = exercise.leftRunning;
      if (left && run.problems().length === 0) {
        run.leftRunning = run
          .session(left.session)
          .query(left.sql)
          .then(
            (result): LeftRunningAnswer => ({ ok: true, result }),
            (error: unknown): LeftRunningAnswer => {
              if (error instanceof PgError)
                return { ok: false, code: error.code, message: error.message };
              throw error;
            },
          );
        await run.untilWaiting(left.session);
      }
    } catch (error) {
      await play.close().catch(() => {});
      throw error;
    }
    return run;
  }

  /** The session named `name` in the exercise's scenario. */
  session(name: string): Session {
    const index = this.exercise.scenario.sessions.findIndex((s) => s.name === name);
    if (index < 0) throw new Error(`exercise ${this.exercise.id}: no session ${name}`);
    return this.play.session(index);
  }

  /**
   * What kept the sessions from reaching the starting state, one line each: a step the
   * engine refused, or a claim that did not hold. Empty when the exercise is ready.
   */
  problems(): string[] {
    return this.started.flatMap((r) => {
      if (r.status === 'refused') return [`step ${r.step.index + 1}: ${r.reason}`];
      if (r.status !== 'completed') return [];
      return r.claims
        .filter((c) => !c.held)
        .map((c) => `step ${r.step.index + 1}: ${c.says} (saw ${c.seen})`);
    });
  }

  /** Runs the exercise's checks on its check session, with the reader's latest answer. */
  check(answer: ReaderAnswer | null, options: CheckOptions = {}): Promise<CheckReport> {
    return runChecks(
      this.session(this.exercise.checkSession),
      this.exercise.checks,
      { pids: this.pids, answer },
      options,
    );
  }

  /** Ends the run: its sessions, its teardown, its schema. */
  close(): Promise<void> {
    return this.play.close();
  }

  /** Waits until `name`'s statement is seen waiting for a lock, as pg_stat_activity shows. */
  private async untilWaiting(name: string): Promise<void> {
    const checker = this.session(this.exercise.checkSession);
    const pid = this.pids[name]!;
    const until = Date.now() + WAIT_SEEN_MS;
    let answered = false;
    void this.leftRunning?.then(() => (answered = true));
    while (Date.now() < until && !answered) {
      const { results } = await checker.query(
        `SELECT wait_event_type FROM pg_stat_activity WHERE pid = ${pid}`,
      );
      if (results[0]?.rows[0]?.[0] === 'Lock') return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${name}'s statement did not wait for a lock, as the exercise needs`);
  }
}
