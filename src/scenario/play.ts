// Plays a scenario on any engine, one step at a time: the player's Next in the browser,
// and the whole scenario in the tests. The spec runner does the sending and tells a step
// that waits on a lock from one still working, as PostgreSQL's isolation tester does.
import { PgError, type Engine, type Session } from '../engine/types';
import {
  openSpecRun,
  PermutationNotExpressible,
  type SpecRun,
  type StepOutcome,
} from '../spec/run';
import {
  checkClaim,
  keptValues,
  stepOutput,
  type ClaimCheck,
  type Kept,
  type StepOutput,
} from './claims';
import {
  planDatabases,
  planSessions,
  planSteps,
  pressFrom,
  toSpec,
  type PlannedStep,
  type Selection,
} from './plan';
import type { Scenario } from './schema';

/** What became of one step so far. */
export type StepReport =
  | { step: PlannedStep; status: 'waiting' }
  | { step: PlannedStep; status: 'completed'; output: StepOutput; claims: ClaimCheck[] }
  /** A modelled process acted (and, with `disconnect`, the session's connection closed). */
  | { step: PlannedStep; status: 'modelled' }
  /** The engine cannot show this step truthfully; `kind` and `reason` say why. */
  | { step: PlannedStep; status: 'refused'; kind: string; reason: string };

export interface PlayOptions {
  /** Waits `ms` before step `before`, which asks for a delay; the player's can be stopped. */
  sleep?: (ms: number, before: PlannedStep) => Promise<void>;
  /** Hears each step's report as it happens (a waiting step, then its completion). */
  onReport?: (report: StepReport) => void;
}

const plainSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A run the player steps through: live on an engine, or from a recording. */
export interface Playback {
  readonly steps: PlannedStep[];
  /** How many steps have been sent. */
  readonly position: number;
  /** Every step sent and answered (or one refused). */
  readonly done: boolean;
  /** Values kept so far, for later claims. */
  readonly kept: Kept;
  /**
   * Sends the next step, after its delay, and the steps chained to it; resolves once the
   * last of them completed or waits.
   */
  next(): Promise<void>;
  /** Ends the run: its teardown, its sessions. */
  close(): Promise<void>;
}

/** A scenario's sessions on one engine, played step by step. */
export class ScenarioPlay implements Playback {
  readonly scenario: Scenario;
  readonly steps: PlannedStep[];
  /** How many steps have been sent. */
  position = 0;
  /** Every report so far, by step index: the latest one for each step. */
  readonly reports: (StepReport | undefined)[];
  /** Values kept so far, for later claims. */
  readonly kept: Kept = {};
  private run!: SpecRun;
  private engine!: Engine;
  private databases: string[] = [];
  private teardownSqls: string[] = [];
  private readonly options: PlayOptions;
  private refused: StepReport | null = null;

  private constructor(scenario: Scenario, steps: PlannedStep[], options: PlayOptions) {
    this.scenario = scenario;
    this.steps = steps;
    this.options = options;
    this.reports = steps.map(() => undefined);
  }

  /** Connects the scenario's sessions and runs its setup. */
  static async start(
    engine: Engine,
    scenario: Scenario,
    selection: Selection,
    options: PlayOptions = {},
  ): Promise<ScenarioPlay> {
    const steps = planSteps(scenario, selection);
    const sessions = planSessions(scenario, selection);
    const play = new ScenarioPlay(scenario, steps, options);
    play.engine = engine;
    play.databases = planDatabases(scenario, selection);
    await play.databaseDdl('CREATE');
    const spec = toSpec(scenario, selection, steps);
    play.teardownSqls = spec.teardownSqls ?? [];
    play.run = await openSpecRun(spec, {
      engine,
      testName: scenario.id,
      applicationName: (i) => sessions[i]!.application_name ?? sessions[i]!.name,
      // It runs the setup and asks whether a step waits: readers see it in pg_stat_activity,
      // so a step that reads it is given time to finish before the first ask.
      controlName: `${scenario.id} demo: setup and wait checks`,
      firstCheckMs: 250,
      sessionOptions: (i) => ({
        role: sessions[i]!.role,
        ...(sessions[i]!.database ? { database: sessions[i]!.database } : {}),
      }),
      onEvent: (event) => {
        if (event.type === 'waiting')
          play.report({ step: play.byName(event.step.name), status: 'waiting' });
        else play.complete(event.outcome);
      },
    });
    try {
      await play.ownSchema();
      await play.run.setup();
    } catch (error) {
      await play.run.disconnect();
      await play.dropSchema();
      await play.databaseDdl('DROP');
      throw error;
    }
    return play;
  }

  /** The schema the run's tables live in, apart from any other demo's on the same page. */
  private get schema(): string {
    return `scenario_${this.scenario.id.replace(/-/g, '_')}`;
  }

  /**
   * Puts the run's tables in a schema of their own, first in every session's search path,
   * so that two demos on one page (a console and a scenario, say) each have their own
   * `jobs`. The scenario's SQL runs as written; only where its names resolve changes.
   */
  private async ownSchema(): Promise<void> {
    const [control] = this.run.sessions;
    await control!.query(
      `DROP SCHEMA IF EXISTS ${this.schema} CASCADE; CREATE SCHEMA ${this.schema}; ` +
        `GRANT USAGE, CREATE ON SCHEMA ${this.schema} TO PUBLIC`,
    );
    for (const session of this.run.sessions) await this.useSchema(session);
  }

  /** Puts the run's schema first in `session`'s search path. */
  private async useSchema(session: Session): Promise<void> {
    await session.query(
      "SELECT set_config('search_path', $1 || ', ' || current_setting('search_path'), false)",
      [this.schema],
    );
  }

  /** Drops the run's schema and whatever is left in it. */
  private async dropSchema(): Promise<void> {
    const session = await this.engine.openSession({
      applicationName: `${this.scenario.id}/schema`,
    });
    try {
      await session.query(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`).catch(() => undefined);
    } finally {
      await session.close();
    }
  }

  /** Creates or drops the databases this run needs, from a connection of its own. */
  private async databaseDdl(verb: 'CREATE' | 'DROP'): Promise<void> {
    if (this.databases.length === 0) return;
    const session = await this.engine.openSession({
      applicationName: `${this.scenario.id}/databases`,
    });
    try {
      for (const db of this.databases)
        await session.query(
          verb === 'CREATE'
            ? `CREATE DATABASE ${db}`
            : `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`,
        );
    } finally {
      await session.close();
    }
  }

  /** Whether every step has been sent and none is still waiting, or a step was refused. */
  get done(): boolean {
    return (
      this.refused !== null ||
      (this.position === this.steps.length && this.run.pending.length === 0)
    );
  }

  /** The session a scenario session runs on, for the console's hand-off. */
  session(index: number): Session {
    return this.run.session(index);
  }

  /**
   * Sends the next step, after its delay, and the steps chained to it; resolves once the
   * last of them completed or waits.
   */
  async next(): Promise<void> {
    if (this.refused || this.position >= this.steps.length) return this.finish();
    for (const step of pressFrom(this.steps, this.position)) {
      if (this.refused) break;
      if (step.afterMs > 0) await (this.options.sleep ?? plainSleep)(step.afterMs, step);
      this.position++;
      if (step.model) {
        await this.act(step);
        continue;
      }
      await this.guard(step, () =>
        this.run.step(this.run.resolve([{ name: step.name, blockers: [] }])[0]!),
      );
    }
    if (this.position === this.steps.length) await this.finish();
  }

  /**
   * A modelled step: nothing is sent; with `disconnect` its session's connection closes,
   * as when the client's process dies (the server rolls back its open transaction); with
   * `reconnect` a new connection takes its place.
   */
  private async act(step: PlannedStep): Promise<void> {
    if (step.model?.disconnect) await this.run.session(step.session).close();
    if (step.model?.reconnect) {
      await this.run.reconnect(step.session);
      await this.useSchema(this.run.session(step.session));
    }
    this.report({ step, status: 'modelled' });
  }

  /**
   * Keeps watching the steps still waiting after the reader took the sessions over (the
   * console's hand-off): each reports when it completes, however long that takes.
   */
  watchWaiting(): void {
    void this.finish().catch(() => {});
  }

  /** Lets every step still waiting complete (the isolation tester's end of a permutation). */
  async finish(): Promise<void> {
    if (this.refused || this.run.pending.length === 0) return;
    await this.guard(this.steps[this.position - 1]!, () => this.run.finish());
  }

  /** Plays every step in order. */
  async playAll(): Promise<void> {
    while (!this.done) await this.next();
  }

  /**
   * Closes the sessions, which ends their transactions and any wait as a client's
   * disconnect does, then runs the teardown from a connection of its own: a run stopped
   * half-way may leave transactions open that the teardown would otherwise wait for.
   */
  async close(): Promise<void> {
    try {
      await this.run.disconnect();
      const session = await this.engine.openSession({
        applicationName: `${this.scenario.id}/teardown`,
      });
      try {
        await this.useSchema(session);
        for (const sql of this.teardownSqls) await session.query(sql).catch(() => undefined);
        await session.query(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`).catch(() => undefined);
      } finally {
        await session.close();
      }
    } finally {
      await this.databaseDdl('DROP');
    }
  }

  private async guard(step: PlannedStep, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (!(error instanceof PermutationNotExpressible)) throw error;
      const pending = this.run.pending.map((s) => this.byName(s.name));
      const refusedStep = pending.find((s) => s.index === step.index) ?? pending[0] ?? step;
      this.report({
        step: refusedStep,
        status: 'refused',
        kind: error.kind ?? 'unknown',
        reason: error.message,
      });
    }
  }

  private byName(name: string): PlannedStep {
    return this.steps.find((s) => s.name === name)!;
  }

  private complete(outcome: StepOutcome): void {
    const step = this.byName(outcome.step.name);
    const error = outcome.error instanceof PgError ? outcome.error : undefined;
    if (outcome.error !== undefined && !error) throw outcome.error;
    const output = stepOutput(
      outcome.waited,
      outcome.elapsedMs,
      outcome.result,
      error?.toFields(),
      error?.partial,
    );
    Object.assign(this.kept, keptValues(step.keep, output));
    const claims = step.claims.map((claim) => checkClaim(claim, output, this.kept));
    this.report({ step, status: 'completed', output, claims });
  }

  private report(report: StepReport): void {
    if (report.status === 'refused') this.refused = report;
    this.reports[report.step.index] = report;
    this.options.onReport?.(report);
  }
}
