// Runs a parsed `.spec` over any `Engine` the way PostgreSQL's isolation tester does
// (src/test/isolation/isolationtester.c: run_permutation, try_complete_steps,
// try_complete_step, step_has_blocker), printing the same text as its `.out` files.
import {
  PgError,
  type Engine,
  type QueryResult,
  type Session,
  type SessionOptions,
} from '../engine/types';
import { allPermutations, checkSpec, type Step, type TestSpec } from './parse';
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

export interface RunOptions {
  engine: Engine;
  /** Receives the `.out` text piece by piece (stdout and stderr of the tester, merged). */
  write: (text: string) => void;
  /** Used in application_name as `isolation/<testName>/<session>`, as pg_regress sets it. */
  testName?: string;
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
   * Optional up-front check: a reason why this permutation cannot be shown truthfully on
   * this engine, or undefined when it can.
   */
  notExpressible?: (steps: Step[]) => string | undefined;
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
  noticesSeen: boolean;
  settled: Promise<void>;
}

interface Conn {
  name: string;
  session: Session;
  pid: number;
  active: Active | null;
  totalNotices: number;
}

/** The tester gave up (it calls exit(1)); the message is what it printed. */
class Fatal extends Error {}

class NotExpressible extends Error {}

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

class Runner {
  private conns: Conn[] = [];
  private buffer: string[] = [];
  private anyNewNotice = false;
  private waitQuery = '';
  private readonly spec: TestSpec;
  private readonly options: RunOptions;
  private readonly maxWait: number;
  private readonly poll: number;

  constructor(spec: TestSpec, options: RunOptions) {
    this.spec = spec;
    this.options = options;
    this.maxWait = options.maxStepWaitMs ?? 300_000;
    this.poll = options.pollMs ?? 10;
  }

  private out(text: string): void {
    this.buffer.push(text);
  }

  private flush(): void {
    if (this.buffer.length) this.options.write(this.buffer.join(''));
    this.buffer = [];
  }

  async run(): Promise<number> {
    try {
      try {
        for (const warning of checkSpec(this.spec)) this.out(`${warning}\n`);
      } catch (error) {
        throw new Fatal(`${(error as Error).message}\n`);
      }
      this.out(`Parsed test spec with ${this.spec.sessions.length} sessions\n`);
      await this.connect();
      const permutations = this.spec.permutations.length
        ? this.spec.permutations
        : allPermutations(this.spec);
      for (const permutation of permutations) await this.permutation(this.resolve(permutation));
      return 0;
    } catch (error) {
      if (!(error instanceof Fatal)) throw error;
      this.out(error.message);
      return 1;
    } finally {
      this.flush();
      await this.disconnect();
    }
  }

  private async connect(): Promise<void> {
    const names = ['control connection', ...this.spec.sessions.map((s) => s.name)];
    const prefix = `isolation/${this.options.testName ?? 'spec'}/`;
    for (const [i, name] of names.entries()) {
      try {
        const session = await this.options.engine.openSession({
          applicationName: prefix + name,
          role: this.options.role,
        });
        this.conns.push({ name, session, pid: session.pid, active: null, totalNotices: 0 });
      } catch (error) {
        throw new Fatal(`Connection ${i} failed: ${errorText(error)}`);
      }
    }
    // The tester's lock-wait probe, with the pids of every spec session spelled into it.
    const pids = this.conns.slice(1).map((c) => c.pid);
    // Unqualified, unlike the tester's, so an engine may answer for its own sessions
    // (PGlite's sim schema does); on a server it resolves to pg_catalog's function.
    this.waitQuery = `SELECT pg_isolation_test_session_is_blocked($1, '{${pids.join(',')}}')`;
  }

  private async disconnect(): Promise<void> {
    // A session still waiting on a lock may not answer a polite close; do not hang on it.
    await Promise.all(
      this.conns.map((c) => Promise.race([c.session.close().catch(() => {}), delay(1000).promise])),
    );
    this.conns = [];
  }

  private resolve(permutation: TestSpec['permutations'][number]): RunStep[] {
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

  private async permutation(steps: RunStep[]): Promise<void> {
    const header = `\nstarting permutation:${steps.map((s) => ` ${s.name}`).join('')}\n`;
    this.flush();
    this.out(header);
    try {
      const reason = this.options.notExpressible?.(steps.map((s) => s.step));
      if (reason !== undefined) throw new NotExpressible(reason);
      await this.runSteps(steps);
    } catch (error) {
      if (!(error instanceof NotExpressible)) throw error;
      this.buffer = [header, `not expressible: ${error.message}\n`];
      this.flush();
      await this.abandon();
    }
    this.flush();
  }

  /** After a permutation cut short: let running steps end, roll back, tear down quietly. */
  private async abandon(): Promise<void> {
    const quiet = (c: Conn, sql: string) =>
      within(
        c.session.query(sql).catch(() => undefined),
        this.maxWait,
      );
    // Idle sessions first: a step still running may be waiting for one of them.
    const running = this.conns.filter((c) => c.active && !c.active.done);
    for (const c of this.conns.slice(1)) if (!running.includes(c)) await quiet(c, 'ROLLBACK');
    await Promise.all(running.map((c) => within(c.active!.settled, this.maxWait)));
    for (const c of this.conns) c.active = null;
    for (const c of running) if (c !== this.conns[0]) await quiet(c, 'ROLLBACK');
    for (const [i, s] of this.spec.sessions.entries())
      if (s.teardownSql) await quiet(this.conns[i + 1]!, s.teardownSql);
    if (this.spec.teardownSql) await quiet(this.conns[0]!, this.spec.teardownSql);
    this.buffer = [];
  }

  /**
   * PQexec of a setup or teardown block (`what` names it): prints the last result if it
   * has rows. The tester waits for it without limit; here a block that waits on a session
   * left in its transaction would hang the run, so it gives up as it does on a step.
   */
  private async utility(conn: Conn, sql: string, what: string, fatal: boolean): Promise<void> {
    let reply: QueryResult | typeof timedOut;
    try {
      reply = await within(conn.session.query(sql), 2 * this.maxWait);
    } catch (error) {
      if (isNotExpressible(error)) throw new NotExpressible(error.message);
      if (error instanceof PgError) this.notices(conn, error.partial);
      const text = `${what} failed: ${errorText(error, sql)}`;
      if (fatal) throw new Fatal(text);
      this.out(text);
      return;
    }
    if (reply === timedOut) {
      throw new Fatal(`${what} timed out after ${Math.floor((2 * this.maxWait) / 1000)} seconds\n`);
    }
    this.notices(conn, reply);
    const last = reply.results.at(-1);
    if (last && last.fields.length > 0) this.out(formatResultSet(last.fields, last.rows));
  }

  /** The tester's notice processor: the control connection's notices are dropped. */
  private notices(conn: Conn, reply: QueryResult): void {
    if (conn === this.conns[0]) return;
    for (const notice of reply.notices) {
      this.out(formatNotice(conn.name, notice));
      conn.totalNotices++;
      this.anyNewNotice = true;
    }
  }

  private async runSteps(steps: RunStep[]): Promise<void> {
    const [control, ...sessionConns] = this.conns;
    for (const sql of this.spec.setupSqls) await this.utility(control!, sql, 'setup', true);
    for (const [i, s] of this.spec.sessions.entries())
      if (s.setupSql)
        await this.utility(sessionConns[i]!, s.setupSql, `setup of session ${s.name}`, true);

    let waiting: RunStep[] = [];
    for (const pstep of steps) {
      const conn = this.conns[1 + pstep.step.session]!;
      // The session is still busy with an earlier step: wait for it to finish first.
      if (conn.active) {
        const start = Date.now();
        while (conn.active) {
          const old = conn.active.pstep;
          if (!(await this.tryCompleteStep(old, STEP_RETRY)))
            waiting = waiting.filter((w) => w !== old);
          waiting = await this.tryCompleteSteps(waiting, STEP_NONBLOCK | STEP_RETRY);
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
      waiting = await this.tryCompleteSteps(waiting, STEP_NONBLOCK | STEP_RETRY);
      if (mustWait) waiting.push(pstep);
    }

    waiting = await this.tryCompleteSteps(waiting, STEP_RETRY);
    if (waiting.length)
      throw new Fatal('failed to complete permutation due to mutually-blocking steps\n');

    for (const [i, s] of this.spec.sessions.entries())
      if (s.teardownSql)
        await this.utility(sessionConns[i]!, s.teardownSql, `teardown of session ${s.name}`, false);
    if (this.spec.teardownSql)
      await this.utility(control!, this.spec.teardownSql, 'teardown', false);
  }

  /** PQsendQuery: the step's text over the simple protocol, not awaited. */
  private launch(conn: Conn, pstep: RunStep): void {
    const active: Active = { pstep, done: false, noticesSeen: false, settled: Promise.resolve() };
    active.settled = conn.session.query(pstep.step.sql).then(
      (result) => {
        active.result = result;
        active.done = true;
      },
      (error: unknown) => {
        active.error = error;
        active.done = true;
      },
    );
    conn.active = active;
  }

  private async isBlocked(conn: Conn): Promise<boolean> {
    try {
      const { results } = await this.conns[0]!.session.query(this.waitQuery, [String(conn.pid)]);
      const rows = results[0]?.rows ?? [];
      if (rows.length !== 1) throw new Error(`returned ${rows.length} rows`);
      return rows[0]![0]?.startsWith('t') ?? false;
    } catch (error) {
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

  /**
   * Waits for a sent step to complete or to wait on a lock. Returns true when it has not
   * completed (it waits on a lock under STEP_NONBLOCK, or a blocker holds it back).
   */
  private async tryCompleteStep(pstep: RunStep, flags: number): Promise<boolean> {
    const { step } = pstep;
    const conn = this.conns[1 + step.session]!;
    const active = conn.active!;
    const waitingLine = `step ${step.name}: ${step.sql} <waiting ...>\n`;

    // `(*)`: report the step as waiting once, whatever it is doing.
    if (!(flags & STEP_RETRY) && pstep.blockers.some((b) => b.kind === 'once')) {
      this.out(waitingLine);
      return true;
    }

    const start = Date.now();
    let canceled = false;
    while (!active.done) {
      const tick = delay(this.poll);
      await Promise.race([active.settled, tick.promise]);
      tick.cancel();
      if (active.done) break;
      if (flags & STEP_NONBLOCK && (await this.isBlocked(conn))) {
        // The probe took time: the step may have finished meanwhile.
        if (active.done) break;
        if (!(flags & STEP_RETRY)) this.out(waitingLine);
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

    if (isNotExpressible(active.error)) throw new NotExpressible(active.error.message);
    // libpq hands notices to the processor as it reads them, before the step's results.
    if (!active.noticesSeen) {
      active.noticesSeen = true;
      const reply =
        active.result ?? (active.error instanceof PgError ? active.error.partial : null);
      if (reply) this.notices(conn, reply);
    }

    if (this.stepHasBlocker(pstep)) {
      if (!(flags & STEP_RETRY)) this.out(waitingLine);
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
 * Runs every permutation of `spec` on `options.engine`, writing the tester's output;
 * resolves to the tester's exit status (1 when it would have given up).
 */
export function runSpec(spec: TestSpec, options: RunOptions): Promise<number> {
  return new Runner(spec, options).run();
}
