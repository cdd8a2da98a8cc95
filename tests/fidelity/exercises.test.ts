// Every exercise on PGlite (through the session layer, as the page runs it) and on a real
// PostgreSQL 18: the sessions reach the starting state, the goal is not reached at the
// start, a scripted correct solution reaches it, and each wrong one does not.
import { describe, expect, it } from 'vitest';
import { runScript } from '../../src/components/run-script';
import { PgError, type Engine } from '../../src/engine/types';
import { exercises } from '../../src/exercises';
import { SessionsExerciseRun } from '../../src/exercises/sessions-run';
import { checkDeployment, keepFixed, startDeployment } from '../../src/exercises/slots-run';
import type {
  CheckReport,
  ReaderAnswer,
  SessionsExercise,
  SlotsExercise,
  SolutionStep,
} from '../../src/exercises/types';
import type { SlotsConfig } from '../../src/sim/slots';
import { bothEngines } from '../support/both-engines';

const byId = <T>(id: string) => exercises.find((e) => e.id === id) as T;

/** Runs the reader's statements as the console does; the latest answer, for the checks. */
async function act(run: SessionsExerciseRun, steps: SolutionStep[]): Promise<ReaderAnswer | null> {
  let answer: ReaderAnswer | null = null;
  for (const step of steps) {
    if (step.cancel) {
      // As the tab's Cancel does: the waiting statement fails with 57014.
      const pid = run.pids[step.session];
      await run.session(run.exercise.checkSession).query(`SELECT pg_cancel_backend(${pid})`);
      await run.leftRunning;
      continue;
    }
    try {
      answer = {
        session: step.session,
        result: await runScript(run.session(step.session), step.sql),
      };
    } catch (error) {
      if (!(error instanceof PgError)) throw error;
      answer = { session: step.session, result: error.partial, errorCode: error.code };
    }
  }
  return answer;
}

/** Which items held, as `says: held|not` lines, for messages that say what went wrong. */
const verdicts = (report: CheckReport) =>
  report.outcomes.map((o) => `${o.says}: ${o.held ? 'held' : `not (${o.seen})`}`);

/** Starts `exercise` on `engine`, does `steps`, checks, and ends the run. */
async function attempt(engine: Engine, exercise: SessionsExercise, steps: SolutionStep[]) {
  const run = await SessionsExerciseRun.start(engine, exercise);
  try {
    expect(run.problems()).toEqual([]);
    const before = await run.check(null);
    const answer = await act(run, steps);
    // A statement that ended a wait lets the waiting one answer before the check.
    if (steps.some((s) => /COMMIT|ROLLBACK/i.test(s.sql)) && run.leftRunning) await run.leftRunning;
    return { before, after: await run.check(answer) };
  } finally {
    await run.close();
  }
}

describe('the exercises', () => {
  const engines = bothEngines();

  describe.each(['pglite', 'server'] as const)('on %s', (which) => {
    const engine = () => (which === 'pglite' ? engines.pglite : engines.server.engine);

    describe('free-dead-tuples', () => {
      const exercise = byId<SessionsExercise>('free-dead-tuples');

      it('is solved by ending worker-07’s transaction from its own session', async () => {
        const { before, after } = await attempt(engine(), exercise, exercise.solution.steps);
        expect(before.solved).toBe(false);
        expect(before.outcomes[0]!.seen).toContain('40 are dead but not yet removable');
        expect(after.solved, verdicts(after).join('\n')).toBe(true);
      });

      it('is solved by ROLLBACK too, which ends the transaction and keeps the session', async () => {
        const { after } = await attempt(engine(), exercise, [
          { session: 'worker-07', sql: 'ROLLBACK;' },
        ]);
        expect(after.solved, verdicts(after).join('\n')).toBe(true);
      });

      it('is not solved by terminating worker-07’s session, though VACUUM then removes the rows', async () => {
        const { after } = await attempt(engine(), exercise, [
          {
            session: 'you',
            sql: "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = 'worker-07';",
          },
        ]);
        expect(after.solved).toBe(false);
        expect(after.outcomes.map((o) => o.held)).toEqual([true, true, false]);
      });

      it('is not solved by emptying ledger', async () => {
        const { after } = await attempt(engine(), exercise, [
          { session: 'cleaner', sql: 'TRUNCATE ledger;' },
        ]);
        expect(after.outcomes.map((o) => o.held)).toEqual([true, false, true]);
      });
    });

    describe('skip-waiting', () => {
      const exercise = byId<SessionsExercise>('skip-waiting');

      it('is solved by cancelling worker-b’s claim and claiming again with SKIP LOCKED', async () => {
        const { before, after } = await attempt(engine(), exercise, exercise.solution.steps);
        expect(before.outcomes.map((o) => o.held)).toEqual([false, true, false]);
        expect(after.solved, verdicts(after).join('\n')).toBe(true);
        expect(after.outcomes[2]!.seen).toBe('worker-b holds jobs 3, 4');
      });

      it('is not solved by committing worker-a, though worker-b then stops waiting', async () => {
        const { after } = await attempt(engine(), exercise, [
          { session: 'worker-a', sql: 'COMMIT;' },
        ]);
        expect(after.outcomes.map((o) => o.held)).toEqual([true, false, true]);
      });

      it('does not give worker-b the rows while another session’s transaction has an XID too', async () => {
        const { after } = await attempt(engine(), exercise, [
          { session: 'you', sql: 'BEGIN;\nUPDATE jobs SET attempts = 9 WHERE id = 6;' },
          ...exercise.solution.steps,
        ]);
        expect(after.outcomes.map((o) => o.held)).toEqual([true, true, false]);
        expect(after.outcomes[2]!.seen).toMatch(
          /^jobs 3, 4, 6 are held by an open transaction, and you has one too/,
        );
      });

      it('is not solved by cancelling worker-b’s claim alone', async () => {
        const { after } = await attempt(engine(), exercise, [
          { session: 'worker-b', sql: '', cancel: true },
          { session: 'worker-b', sql: 'ROLLBACK;' },
        ]);
        expect(after.outcomes.map((o) => o.held)).toEqual([true, true, false]);
      });
    });

    describe('find-horizon', () => {
      const exercise = byId<SessionsExercise>('find-horizon');

      it('is solved by the article’s query, which names worker-07 and the reader’s own session', async () => {
        const { before, after } = await attempt(engine(), exercise, exercise.solution.steps);
        expect(before.solved).toBe(false);
        expect(after.solved, verdicts(after).join('\n')).toBe(true);
        expect(after.outcomes[1]!.seen).toMatch(
          /^worker-07 \(pid \d+\) holds it; your result names it$/,
        );
      });

      it('is solved by backend_xid alone', async () => {
        const { after } = await attempt(engine(), exercise, [
          {
            session: 'you',
            sql: 'SELECT pid FROM pg_stat_activity WHERE backend_xid IS NOT NULL;',
          },
        ]);
        expect(after.solved, verdicts(after).join('\n')).toBe(true);
      });

      it('is not solved by the backend_xmin filter, which misses the writer', async () => {
        const { after } = await attempt(engine(), exercise, [
          { session: 'you', sql: exercise.tabs[0]!.sql },
        ]);
        expect(after.outcomes.map((o) => o.held)).toEqual([true, false, true]);
      });

      it('is not solved by every session idle in transaction', async () => {
        const { after } = await attempt(engine(), exercise, [
          {
            session: 'you',
            sql: "SELECT application_name FROM pg_stat_activity WHERE state = 'idle in transaction';",
          },
        ]);
        expect(after.outcomes.map((o) => o.held)).toEqual([true, true, false]);
        expect(after.outcomes[2]!.seen).toBe('it also names api, reader');
      });

      it('is not solved by two queries, even right ones', async () => {
        const { after } = await attempt(engine(), exercise, [
          {
            session: 'you',
            sql: 'SELECT 1;\nSELECT pid FROM pg_stat_activity WHERE backend_xid IS NOT NULL;',
          },
        ]);
        expect(after.outcomes[0]!.held).toBe(false);
      });
    });

    describe('api-seat', () => {
      const exercise = byId<SlotsExercise>('api-seat');
      const deploy = async (config: SlotsConfig) => {
        const run = await startDeployment(engine(), config);
        try {
          return await checkDeployment(engine(), exercise);
        } finally {
          await run.close();
        }
      };

      it('is not solved as it starts: the workers take every seat', async () => {
        const report = await deploy(exercise.start);
        expect(report.outcomes.map((o) => o.held)).toEqual([true, false]);
        expect(report.outcomes[1]!.seen).toBe('no API process holds a seat');
      });

      it('is not solved by smaller pools', async () => {
        const report = await deploy({ ...exercise.start, poolSize: 1, maxOverflow: 0 });
        expect(report.solved).toBe(false);
      });

      it('is solved by two connections per worker', async () => {
        const report = await deploy({ ...exercise.start, ...exercise.solution.settings });
        expect(report.solved, verdicts(report).join('\n')).toBe(true);
        expect(report.outcomes[1]!.seen).toBe('api-1 holds 15, api-2 holds 15');
      });

      it('would not be solved by fewer workers, which the exercise does not let the reader set', async () => {
        const fewer = { ...exercise.start, workers: 30 };
        const report = await deploy(fewer);
        expect(report.outcomes.map((o) => o.held)).toEqual([false, true]);
        expect(keepFixed(exercise, fewer).workers).toBe(33);
      });
    });
  });
});
