// What an exercise is: a state the reader starts in, a goal in plain words, and checks
// that ask the reader's own PostgreSQL whether the goal is reached. Pages, embeds, the
// teacher's docs and the tests all read the definitions in this folder.
import type { QueryResult } from '../engine/types';
import type { Scenario } from '../scenario/schema';
import type { SlotsConfig } from '../sim/slots';

/** The reader's latest run in the exercise's console: PostgreSQL's answer to it. */
export interface ReaderAnswer {
  /** The session (console tab) it ran on, by its name in the exercise. */
  session: string;
  /** Every statement's result, in order; when it failed, those before the error. */
  result: QueryResult;
  /** The SQLSTATE it failed with, when it did. */
  errorCode?: string;
}

/** What a check may read besides its own query's answer. */
export interface CheckContext {
  /** Each of the exercise's sessions' pid, by name, as it connected at the start. */
  pids: Record<string, number>;
  /** The reader's latest run, if there has been one. */
  answer: ReaderAnswer | null;
}

/** What one check found. */
export interface Verdict {
  held: boolean;
  /** What PostgreSQL showed, in a few plain words. */
  seen: string;
}

/** One condition of the goal, checked with SQL on the reader's own PostgreSQL. */
export interface CheckItem {
  /** The condition, in plain words: `worker-07's session is still connected`. */
  says: string;
  /**
   * The SQL the check sends, shown to the reader as it is sent; null for a condition on
   * the reader's own answer alone (it was one statement).
   */
  sql: (context: CheckContext) => string | null;
  /** Judges PostgreSQL's answer to `sql` (null when there is no SQL). */
  judge: (answer: QueryResult | null, context: CheckContext) => Verdict;
}

/** Why a check item did not give a verdict of its own, as data; the UI words it. */
export type CheckFailure =
  /** Its query failed with a PostgreSQL error (the reader dropped a table, say). */
  | { kind: 'query-error'; code: string; message: string }
  /** Its query had to wait for a lock a session holds, and was cancelled. */
  | { kind: 'lock-wait' }
  /** The browser's engine cannot run it truthfully now (a refusal, by its kind). */
  | { kind: 'refused'; refusal: string; reason: string };

/** One check item's outcome. */
export interface CheckOutcome {
  says: string;
  /** The SQL it sent, if any. */
  sql: string | null;
  held: boolean;
  seen: string;
  failure?: CheckFailure;
}

/** Every item's outcome: the goal is reached when all held. */
export interface CheckReport {
  outcomes: CheckOutcome[];
  solved: boolean;
}

/** A statement of the solution, or a step the reader takes in the demo's controls. */
export interface SolutionStep {
  /** The session (console tab) it is typed in. */
  session: string;
  sql: string;
  /** A statement cancelled rather than typed: the tab's Cancel, or pg_cancel_backend. */
  cancel?: boolean;
}

interface ExerciseBase {
  /** Stable: part of `/exercises/<id>/` and `/embed/exercise/<id>/`. */
  id: string;
  title: string;
  /** The goal, in one or two plain sentences. */
  goal: string;
  /** What the reader finds when the exercise starts. */
  situation: string;
  /** Shown once the goal is reached. */
  lesson: string;
  /** The demo whose lesson it practises (an id of demo-list.ts). */
  practises: string;
  /** Shown one at a time, on request. */
  hints: string[];
  checks: CheckItem[];
}

/** An exercise on sessions the reader drives from a console, one tab each. */
export interface SessionsExercise extends ExerciseBase {
  kind: 'sessions';
  /**
   * Its sessions, setup and the steps that bring them to the starting state, in the
   * scenario format (src/scenario/schema.ts); each step's claims are checked as it runs.
   */
  scenario: Scenario;
  /** A statement sent last and left running (it waits for a lock), on this session. */
  leftRunning?: { session: string; sql: string };
  /** The sessions the reader gets as console tabs, in order, and what each editor holds. */
  tabs: { session: string; sql: string }[];
  /** The scenario session the checks run on (no tab). */
  checkSession: string;
  solution: { says: string; steps: SolutionStep[] };
}

/** An exercise on the slots demo's deployment: the reader changes settings and starts it. */
export interface SlotsExercise extends ExerciseBase {
  kind: 'slots';
  /** The deployment it starts with. */
  start: SlotsConfig;
  /** Settings the reader may not change (the same number of workers). */
  fixed: (keyof SlotsConfig)[];
  solution: { says: string; settings: Partial<SlotsConfig> };
}

export type Exercise = SessionsExercise | SlotsExercise;
