// Runs a parsed `.spec` over any `Engine` the way PostgreSQL's isolation tester does
// (src/test/isolation/isolationtester.c: run_permutation, try_complete_steps,
// try_complete_step, step_has_blocker), printing the same text as its `.out` files.
// The same machinery steps through a scenario one step at a time (`openSpecRun`), for
// the demos' player and their tests, and reports each step's outcome as data.
import {
  PgError,
  refusalKinds,
  type Engine,
  type Notice,
  type QueryResult,
  type Refusal,
  type RefusalKind,
  type Session,
  type SessionOptions,
} from '../engine/types';
import {
  allPermutations,
  checkSpec,
  type PermutationStep,
  type Step,
  type TestSpec,
} from './parse';
import { formatNotice, formatResultSet, formatServerMessage } from './print';

/**
 * Client settings pg_regress gives every test through the environment (PGTZ,
 * PGDATESTYLE in pg_regress.c), as server settings so that any engine can start with them.
 */
export const regressSettings: Record<string, string> = {
  timezone: 'PST8PDT',
  datestyle: 'Postgres, MDY',
};

/**
 * The name of the error an engine throws from `Session.query` when it cannot show the
 * statement truthfully (e.g. PGlite asked to run a statement in a parked transaction).
 * The runner then prints the permutation as `not expressible: <message>`.
 */
export const notExpressibleErrorName = 'NotExpressibleError';

/** Whether `error` is an engine's signal that a permutation cannot be shown truthfully. */
export function isNotExpressible(error: unknown): error is Error {
  return error instanceof Error && error.name === notExpressibleErrorName;
}

/** The kind of an engine's refusal; undefined when the engine gave none it knows. */
function refusalKind(error: Error & { kind?: unknown }): RefusalKind | undefined {
  return refusalKinds.find((kind) => kind === error.kind);
}

/** What became of one step: its answer, and whether it was seen waiting first. */
export interface StepOutcome {
  step: Step;
  /** It was reported as waiting (a lock, or a blocker marker) before it completed. */
  waited: boolean;
  result?: QueryResult;
  /** The error its statement failed with (a PgError, or the engine's own). */
  error?: unknown;
  /** Its notices, in the order they arrived. */
  notices: Notice[];
  /** Milliseconds from sending the step to its answer, as measured by this runner. */
  elapsedMs: number;
}

/** What a run reports as it goes, besides the `.out` text. */
export type RunEvent =
  { type: 'waiting'; step: Step } | { type: 'completed'; outcome: StepOutcome };

export interface RunOptions {
  engine: Engine;
  /** Receives the `.out` text piece by piece (stdout and stderr of the tester, merged). */
  write?: (text: string) => void;
  /** Hears each step wait and complete, as data. */
  onEvent?: (event: RunEvent) => void;
  /** Used in application_name as `isolation/<testName>/<session>`, as pg_regress sets it. */
  testName?: string;
  /** Each spec session's application_name instead, by session index (scenarios name theirs). */
  applicationName?: (session: number, name: string) => string;
  /** application_name of the control connection (default `isolation/<testName>/control connection`). */
  controlName?: string;
  /** Each spec session's connection options (role, database), by session index. */
  sessionOptions?: (session: number) => Omit<SessionOptions, 'applicationName'>;
  /**
   * The role every connection logs in as: the user in the conninfo the tester is given
   * (a superuser unless said otherwise).
   */
  role?: SessionOptions['role'];
  /** PGISOLATIONTIMEOUT in ms: a step is cancelled after this, abandoned after twice it. */
  maxStepWaitMs?: number;
  /** How often a running step is checked for a lock wait (the tester: 10 ms). */
  pollMs?: number;
  /**
   * How long a step runs before its first check (default: `pollMs`). The check is a query
   * of the control connection, which a step that reads pg_stat_activity sees as active.
   */
  firstCheckMs?: number;
  /**
   * Optional up-front check: why this permutation cannot be shown truthfully on this
   * engine, or undefined when it can.
   */
  notExpressible?: (steps: Step[]) => Refusal | undefined;
  /**
   * Hears each permutation printed as `not expressible`: its step names, the refusal's
   * kind (undefined when the engine's error carried none) and its message.
   */
  onRefusal?: (steps: string[], kind: RefusalKind | undefined, message: string) => void;
}

const STEP_NONBLOCK = 1;
const STEP_RETRY = 2;

type RunBlocker =
  | { kind: 'once' }
  | { kind: 'step'; step: Step }
  | { kind: 'notices'; step: Step; count: number; target: number };

interface RunStep {
  name: string;
  step: Step;
  blockers: RunBlocker[];
}

interface Active {
  pstep: RunStep;
  done: boolean;
  result?: QueryResult;
  error?: unknown;
  waited: boolean;
  notices: Notice[];
  startedAt: number;
  doneAt: number;
  settled: Promise<void>;
}

interface Conn {
  name: string;
  session: Session;
  pid: number;
  active: Active | null;
  totalNotices: number;
  /** Notices that arrived and the tester has not read yet (it reads them as it polls). */
  unread: Notice[];
}

/** The tester gave up (it calls exit(1)); the message is what it printed. */
class Fatal extends Error {}

/** The engine cannot show the permutation truthfully; the kind and message say why. */
export class PermutationNotExpressible extends Error {
  readonly kind: RefusalKind | undefined;

  constructor(kind: RefusalKind | undefined, message: string) {
    super(message);
    this.name = 'PermutationNotExpressible';
    this.kind = kind;
  }

  /** The runner's form of an engine's refusal. */
  static from(error: Error & { kind?: unknown }): PermutationNotExpressible {
    return new PermutationNotExpressible(refusalKind(error), error.message);
  }
}

function delay(ms: number): { promise: Promise<void>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

const timedOut: unique symbol = Symbol('timed out');

/** What `promise` settles to, or `timedOut` when it has not after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof timedOut> {
  const limit = delay(ms);
  try {
    return await Promise.race([promise, limit.promise.then((): typeof timedOut => timedOut)]);
  } finally {
    limit.cancel(); // a pending timer would keep the process alive
  }
}

function errorText(error: unknown, query?: string): string {
  if (error instanceof PgError) return formatServerMessage(error, query);
  return `${error instanceof Error ? error.message : String(error)}\n`;
}

/**
 * One spec's sessions on one engine, driven a permutation step at a time. `runSpec`
 * drives it through every permutation; a scenario player drives it one step per click.
 */
export class SpecRun {
  private conns: Conn[] = [];
  private buffer: string[] = [];
  private anyNewNotice = false;
  private waitQuery = '';
  private waiting: RunStep[] = [];
  readonly spec: TestSpec;
  private readonly options: RunOptions;
  private readonly maxWait: number;
  private readonly poll: number;
  private readonly firstCheck: number;

  constructor(spec: TestSpec, options: RunOptions) {
    this.spec = spec;
    this.options = options;
    this.maxWait = options.maxStepWaitMs ?? 300_000;
    this.poll = options.pollMs ?? 10;
    this.firstCheck = Math.max(this.poll, options.firstCheckMs ?? 0);
  }

  private out(text: string): void {
    this.buffer.push(text);
  }

  /** Hands the text so far to `write`. */
  flush(): void {
    if (this.buffer.length) this.options.write?.(this.buffer.join(''));
    this.buffer = [];
  }

  /** Drops text not yet flushed (a permutation cut short prints only its verdict). */
  discard(): void {
    this.buffer = [];
  }

  /** The session of spec session `index` (0-based), once connected. */
  session(index: number): Session {
    return this.conns[index + 1]!.session;
  }

  /** Every connection: the control connection first, then one per spec session. */
  get sessions(): Session[] {
    return this.conns.map((c) => c.session);
  }

  /** Steps sent and not yet completed, in the order they were sent. */
  get pending(): Step[] {
    return this.conns.flatMap((c) => (c.active ? [c.active.pstep.step] : []));
  }

  /** Opens the control connection and one per spec session, as the tester does. */
  async connect(): Promise<void> {
    const names = ['control connection', ...this.spec.sessions.map((s) => s.name)];
    for (const [i, name] of names.entries()) {
      try {
        const session = await this.open(i, name);
        this.conns.push({
          name,
          session,
          pid: session.pid,
          active: null,
          totalNotices: 0,
          unread: [],
        });
      } catch (error) {
        throw new Fatal(`Connection ${i} failed: ${errorText(error)}`);
      }
    }
    this.spellPids();
  }

  /** Opens connection `i` (0: the control connection) as `connect` names it. */
  private open(i: number, name: string): Promise<Session> {
    const own = i === 0 ? {} : (this.options.sessionOptions?.(i - 1) ?? {});
    const applicationName =
      i > 0 && this.options.applicationName
        ? this.options.applicationName(i - 1, name)
        : i === 0 && this.options.controlName
          ? this.options.controlName
          : `isolation/${this.options.testName ?? 'spec'}/${name}`;
    return this.options.engine.openSession({ role: this.options.role, ...own, applicationName });
  }

  /** The tester's lock-wait probe, with the pids of every spec session spelled into it. */
  private spellPids(): void {
    const pids = this.conns.slice(1).map((c) => c.pid);
    // Unqualified, unlike the tester's, so an engine may answer for its own sessions
    // (PGlite's sim schema does); on a server it resolves to pg_catalog's function.
    this.waitQuery = `SELECT pg_isolation_test_session_is_blocked($1, '{${pids.join(',')}}')`;
  }

  /**
   * Replaces spec session `index`'s connection with a new one, as a pool replaces a dead
   * connection: the old one is closed (if the server has not already ended it).
   */
  async reconnect(index: number): Promise<void> {
    const conn = this.conns[index + 1]!;
    if (conn.active) throw new Error(`${conn.name} cannot reconnect while its step runs`);
    await conn.session.close().catch(() => {});
    const session = await this.open(index + 1, conn.name);
    Object.assign(conn, { session, pid: session.pid, totalNotices: 0, unread: [] });
    this.spellPids();
  }

  /** Closes every connection; one still waiting on a lock is not waited for long. */
  async disconnect(): Promise<void> {
    await Promise.all(
      this.conns.map((c) => Promise.race([c.session.close().catch(() => {}), delay(1000).promise])),
    );
    this.conns = [];
  }

  /** The steps of `permutation`, resolved to the spec's steps and blockers. */
  resolve(permutation: PermutationStep[]): RunStep[] {
    const byName = new Map(this.spec.sessions.flatMap((s) => s.steps).map((s) => [s.name, s]));
    return permutation.map((p) => ({
      name: p.name,
      step: byName.get(p.name)!,
      blockers: p.blockers.map((b): RunBlocker => {
        if (b.kind === 'once') return b;
        const step = byName.get(b.step)!;
        return b.kind === 'step'
          ? { kind: 'step', step }
          : { kind: 'notices', step, count: b.count, target: -1 };
      }),
    }));
  }

  /**
   * PQexec of a setup or teardown block (`what` names it): prints the last result if it
   * has rows. The tester waits for it without limit; here a block that waits on a session
   * left in its transaction would hang the run, so it gives up as a step does.
   */
  private async utility(conn: Conn, sql: string, what: string, fatal: boolean): Promise<void> {
    let reply: QueryResult | typeof timedOut;
    try {
      reply = await within(conn.session.query(sql), 2 * this.maxWait);
    } catch (error) {
      if (isNotExpressible(error)) throw PermutationNotExpressible.from(error);
      if (error instanceof PgError) this.notices(conn, error.partial.notices);
      const text = `${what} failed: ${errorText(error, sql)}`;
      if (fatal) throw new Fatal(text);
      this.out(text);
      return;
    }
    if (reply === timedOut) {
      throw new Fatal(`${what} timed out after ${Math.floor((2 * this.maxWait) / 1000)} seconds\n`);
    }
    this.notices(conn, reply.notices);
    const last = reply.results.at(-1);
    if (last && last.fields.length > 0) this.out(formatResultSet(last.fields, last.rows));
  }

  /** The tester's notice processor: the control connection's notices are dropped. */
  private notices(conn: Conn, notices: Notice[]): void {
    if (conn === this.conns[0]) return;
    for (const notice of notices) {
      this.out(formatNotice(conn.name, notice));
      conn.totalNotices++;
      this.anyNewNotice = true;
    }
  }

  /** The spec's setup blocks, then each session's. */
  async setup(): Promise<void> {
    const [control, ...sessionConns] = this.conns;
    for (const sql of this.spec.setupSqls) await this.utility(control!, sql, 'setup', true);
    for (const [i, s] of this.spec.sessions.entries())
      if (s.setupSql)
        await this.utility(sessionConns[i]!, s.setupSql, `setup of session ${s.name}`, true);
    this.waiting = [];
  }

  /**
   * Sends one permutation step, as run_permutation does: first lets its session's earlier
   * step finish, then reports it done or waiting, and retries the steps already waiting.
   */
  async step(pstep: RunStep): Promise<void> {
    const conn = this.conns[1 + pstep.step.session]!;
    // The session is still busy with an earlier step: wait for it to finish first.
    if (conn.active) {
      const start = Date.now();
      while (conn.active) {
        const old = conn.active.pstep;
        if (!(await this.tryCompleteStep(old, STEP_RETRY)))
          this.waiting = this.waiting.filter((w) => w !== old);
        this.waiting = await this.tryCompleteSteps(this.waiting, STEP_NONBLOCK | STEP_RETRY);
        if (conn.active && Date.now() - start > 2 * this.maxWait) {
          const names = this.conns.flatMap((c) => (c.active ? [` ${c.active.pstep.name}`] : []));
          throw new Fatal(
            `step ${conn.active.pstep.name} timed out after ${Math.floor((Date.now() - start) / 1000)} seconds\n` +
              `active steps are:${names.join('')}\n`,
          );
        }
      }
    }

    this.launch(conn, pstep);
    for (const b of pstep.blockers)
      if (b.kind === 'notices') b.target = b.count + this.conns[1 + b.step.session]!.totalNotices;

    const mustWait = await this.tryCompleteStep(pstep, STEP_NONBLOCK);
    this.waiting = await this.tryCompleteSteps(this.waiting, STEP_NONBLOCK | STEP_RETRY);
    if (mustWait) this.waiting.push(pstep);
  }

  /** Waits for every step still waiting; fails as the tester does if they block each other. */
  async finish(): Promise<void> {
    this.waiting = await this.tryCompleteSteps(this.waiting, STEP_RETRY);
    if (this.waiting.length)
      throw new Fatal('failed to complete permutation due to mutually-blocking steps\n');
  }

  /** Each session's teardown block, then the spec's. */
  async teardown(): Promise<void> {
    const [control, ...sessionConns] = this.conns;
    for (const [i, s] of this.spec.sessions.entries())
      if (s.teardownSql)
        await this.utility(sessionConns[i]!, s.teardownSql, `teardown of session ${s.name}`, false);
    for (const sql of [this.spec.teardownSql ?? [], this.spec.teardownSqls ?? []].flat())
      await this.utility(control!, sql, 'teardown', false);
  }

  /** After a permutation cut short: let running steps end, roll back, tear down quietly. */
  async abandon(): Promise<void> {
    const quiet = (c: Conn, sql: string) =>
      within(
        c.session.query(sql).catch(() => undefined),
        this.maxWait,
      );
    // Idle sessions first: a step still running may be waiting for one of them. Then each
    // session whose step ends meanwhile, at once: another step may be waiting for it.
    const running = this.conns.filter((c) => c.active && !c.active.done);
    for (const c of this.conns.slice(1)) if (!running.includes(c)) await quiet(c, 'ROLLBACK');
    const deadline = Date.now() + this.maxWait;
    let still = running;
    while (still.length > 0 && Date.now() < deadline) {
      const settled = await within(
        Promise.race(still.map((c) => c.active!.settled)),
        deadline - Date.now(),
      );
      if (settled === timedOut) break;
      for (const c of still) if (c.active!.done && c !== this.conns[0]) await quiet(c, 'ROLLBACK');
      still = still.filter((c) => !c.active!.done);
    }
    for (const c of this.conns) {
      c.active = null;
      c.unread = [];
    }
    this.waiting = [];
    for (const c of running) if (c !== this.conns[0]) await quiet(c, 'ROLLBACK');
    // What a session keeps beyond its transaction, a permutation that ran to its end
    // gave back in its own steps (a spec that leaves a prepared statement or a cursor
    // behind fails its next permutation on a server too): the steps not run here would
    // have, so the next permutation starts as it would after them.
    for (const c of this.conns.slice(1)) await quiet(c, 'DEALLOCATE ALL; CLOSE ALL');
    for (const [i, s] of this.spec.sessions.entries())
      if (s.teardownSql) await quiet(this.conns[i + 1]!, s.teardownSql);
    for (const sql of [this.spec.teardownSql ?? [], this.spec.teardownSqls ?? []].flat())
      await quiet(this.conns[0]!, sql);
    this.buffer = [];
  }

  /** Runs one whole permutation, printing it; a refusal prints only its verdict. */
  async permutation(steps: RunStep[]): Promise<void> {
    const header = `\nstarting permutation:${steps.map((s) => ` ${s.name}`).join('')}\n`;
    this.flush();
    this.out(header);
    try {
      const refusal = this.options.notExpressible?.(steps.map((s) => s.step));
      if (refusal !== undefined) throw new PermutationNotExpressible(refusal.kind, refusal.reason);
      await this.setup();
      for (const pstep of steps) await this.step(pstep);
      await this.finish();
      await this.teardown();
    } catch (error) {
      if (!(error instanceof PermutationNotExpressible)) throw error;
      this.options.onRefusal?.(
        steps.map((s) => s.name),
        error.kind,
        error.message,
      );
      this.buffer = [header, `not expressible: ${error.message}\n`];
      this.flush();
      await this.abandon();
    }
    this.flush();
  }

  /** PQsendQuery: the step's text, not awaited; notices are read as they arrive. */
  private launch(conn: Conn, pstep: RunStep): void {
    const active: Active = {
      pstep,
      done: false,
      waited: false,
      notices: [],
      startedAt: performance.now(),
      doneAt: 0,
      settled: Promise.resolve(),
    };
    const onNotice = (notice: Notice) => {
      if (conn.active !== active) return;
      active.notices.push(notice);
      conn.unread.push(notice);
    };
    const { sql, params } = pstep.step;
    active.settled = conn.session.query(sql, params, { onNotice }).then(
      (result) => {
        active.result = result;
        active.doneAt = performance.now();
        active.done = true;
      },
      (error: unknown) => {
        active.error = error;
        active.doneAt = performance.now();
        active.done = true;
      },
    );
    conn.active = active;
  }

  /** Prints what `conn` sent that the tester has not read yet, as PQconsumeInput would. */
  private readNotices(conn: Conn): void {
    const unread = conn.unread;
    conn.unread = [];
    this.notices(conn, unread);
  }

  private async isBlocked(conn: Conn): Promise<boolean> {
    try {
      const { results } = await this.conns[0]!.session.query(this.waitQuery, [String(conn.pid)]);
      const rows = results[0]?.rows ?? [];
      if (rows.length !== 1) throw new Error(`returned ${rows.length} rows`);
      return rows[0]![0]?.startsWith('t') ?? false;
    } catch (error) {
      if (isNotExpressible(error)) throw PermutationNotExpressible.from(error);
      throw new Fatal(`lock wait query failed: ${errorText(error)}`);
    }
  }

  private async tryCompleteSteps(waiting: RunStep[], flags: number): Promise<RunStep[]> {
    let haveBlocker: boolean;
    let oldCount: number;
    do {
      this.anyNewNotice = false;
      oldCount = waiting.length;
      haveBlocker = false;
      let w = 0;
      while (w < waiting.length) {
        if (await this.tryCompleteStep(waiting[w]!, flags)) {
          if (waiting[w]!.blockers.length > 0) haveBlocker = true;
          w++;
        } else waiting.splice(w, 1);
      }
      // A step that completed or sent a notice may have released another one's blocker.
    } while (haveBlocker && (waiting.length < oldCount || this.anyNewNotice));
    return waiting;
  }

  /** Reports `pstep` as waiting: the `.out` line, and the event. */
  private reportWaiting(pstep: RunStep, active: Active): void {
    const { step } = pstep;
    this.out(`step ${step.name}: ${step.sql} <waiting ...>\n`);
    active.waited = true;
    this.options.onEvent?.({ type: 'waiting', step });
  }

  /**
   * Waits for a sent step to complete or to wait on a lock. Returns true when it has not
   * completed (it waits on a lock under STEP_NONBLOCK, or a blocker holds it back).
   */
  private async tryCompleteStep(pstep: RunStep, flags: number): Promise<boolean> {
    const { step } = pstep;
    const conn = this.conns[1 + step.session]!;
    const active = conn.active!;

    // `(*)`: report the step as waiting once, whatever it is doing.
    if (!(flags & STEP_RETRY) && pstep.blockers.some((b) => b.kind === 'once')) {
      this.reportWaiting(pstep, active);
      return true;
    }

    const start = Date.now();
    let canceled = false;
    let first = !(flags & STEP_RETRY);
    while (!active.done) {
      const tick = delay(first ? this.firstCheck : this.poll);
      first = false;
      await Promise.race([active.settled, tick.promise]);
      tick.cancel();
      if (active.done) break;
      this.readNotices(conn);
      if (flags & STEP_NONBLOCK && (await this.isBlocked(conn))) {
        // The probe took time: the step may have finished meanwhile.
        if (active.done) break;
        this.readNotices(conn);
        if (!(flags & STEP_RETRY)) this.reportWaiting(pstep, active);
        return true;
      }
      const waited = Date.now() - start;
      if (waited > this.maxWait && !canceled) {
        await this.conns[0]!.session.query(
          `SELECT pg_catalog.pg_cancel_backend(${conn.pid})`,
        ).catch(() => undefined);
        this.out(
          `isolationtester: canceling step ${step.name} after ${Math.floor(waited / 1000)} seconds\n`,
        );
        canceled = true;
      }
      if (waited > 2 * this.maxWait)
        throw new Fatal(`step ${step.name} timed out after ${Math.floor(waited / 1000)} seconds\n`);
    }

    if (isNotExpressible(active.error)) throw PermutationNotExpressible.from(active.error);
    // libpq hands notices to the processor as it reads them, before the step's results.
    this.readNotices(conn);

    if (this.stepHasBlocker(pstep)) {
      if (!(flags & STEP_RETRY)) this.reportWaiting(pstep, active);
      return true;
    }

    this.out(
      flags & STEP_RETRY
        ? `step ${step.name}: <... completed>\n`
        : `step ${step.name}: ${step.sql}\n`,
    );
    const reply = active.result ?? (active.error instanceof PgError ? active.error.partial : null);
    for (const result of reply?.results ?? [])
      if (result.fields.length > 0) this.out(formatResultSet(result.fields, result.rows));
    if (active.error !== undefined) {
      // Only the primary message: details may hold XIDs that differ from run to run.
      this.out(
        active.error instanceof PgError
          ? `${active.error.severity}:  ${active.error.message}\n`
          : errorText(active.error),
      );
    }
    conn.active = null;
    this.options.onEvent?.({
      type: 'completed',
      outcome: {
        step,
        waited: active.waited,
        result: active.result,
        error: active.error,
        notices: active.notices,
        elapsedMs: active.doneAt - active.startedAt,
      },
    });
    return false;
  }

  private stepHasBlocker(pstep: RunStep): boolean {
    return pstep.blockers.some((b) => {
      if (b.kind === 'once') return false;
      const other = this.conns[1 + b.step.session]!;
      if (b.kind === 'step') return other.active?.pstep.step === b.step;
      return other.totalNotices < b.target;
    });
  }
}

/**
 * Opens `spec`'s sessions on `options.engine` and returns the run, ready for `setup` and
 * `step`; the caller ends it with `disconnect`. Throws the tester's text when a
 * connection fails.
 */
export async function openSpecRun(spec: TestSpec, options: RunOptions): Promise<SpecRun> {
  const run = new SpecRun(spec, options);
  try {
    await run.connect();
  } catch (error) {
    await run.disconnect();
    throw error instanceof Fatal ? new Error(error.message.trimEnd()) : error;
  }
  return run;
}

/**
 * Runs every permutation of `spec` on `options.engine`, writing the tester's output;
 * resolves to the tester's exit status (1 when it would have given up).
 */
export async function runSpec(spec: TestSpec, options: RunOptions): Promise<number> {
  const run = new SpecRun(spec, options);
  const out = (text: string) => options.write?.(text);
  try {
    try {
      for (const warning of checkSpec(spec)) out(`${warning}\n`);
    } catch (error) {
      throw new Fatal(`${(error as Error).message}\n`);
    }
    out(`Parsed test spec with ${spec.sessions.length} sessions\n`);
    await run.connect();
    const permutations = spec.permutations.length ? spec.permutations : allPermutations(spec);
    for (const permutation of permutations) await run.permutation(run.resolve(permutation));
    return 0;
  } catch (error) {
    if (!(error instanceof Fatal)) throw error;
    run.flush();
    out(error.message);
    return 1;
  } finally {
    run.flush();
    await run.disconnect();
  }
}
