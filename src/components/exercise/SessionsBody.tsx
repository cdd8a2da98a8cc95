// A sessions exercise on the page: its sessions brought to the starting state on the
// reader's PostgreSQL, one console tab each, and the checks after every run.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { exerciseDemoId } from '../../exercises';
import { SessionsExerciseRun, type LeftRunningAnswer } from '../../exercises/sessions-run';
import type { ReaderAnswer, SessionsExercise } from '../../exercises/types';
import { ConsoleBody, type AdoptedSession, type FinishedRun } from '../Console';
import type { DemoContext } from '../DemoShell';
import { ActionButton } from '../player/ActionButton';
import { firstLine, plainError } from '../player/words';
import { CheckPanel } from './CheckPanel';
import { Help } from './Help';
import { useChecks } from './use-checks';

type Phase = 'starting' | 'ready' | 'failed';

export function SessionsBody({
  exercise,
  context,
  embed,
  level,
}: {
  exercise: SessionsExercise;
  context: DemoContext;
  embed: boolean;
  /** The level of its sections' headings. */
  level: 2 | 3;
}) {
  const { engine, setRootData } = context;
  const [run, setRun] = useState<SessionsExerciseRun | null>(null);
  const [phase, setPhase] = useState<Phase>('starting');
  const [failure, setFailure] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [left, setLeft] = useState<LeftRunningAnswer | 'waiting' | null>(null);
  const runRef = useRef<SessionsExerciseRun | null>(null);
  // The console sets data of its own on the root (its runs); the exercise's goes beside it.
  const [consoleData, setConsoleData] = useState<Record<string, string>>({});
  const consoleContext = useMemo(() => ({ ...context, setRootData: setConsoleData }), [context]);

  const check = useMemo(
    () =>
      run
        ? (answer: ReaderAnswer | null) =>
            run.check(answer, { cancel: (session) => engine.cancel(session) })
        : null,
    [run, engine],
  );
  const { view, request, reset } = useChecks(check, exerciseDemoId(exercise.id), embed);

  // Each generation is a fresh run: the old one's sessions close first.
  useEffect(() => {
    let alive = true;
    const old = runRef.current;
    runRef.current = null;
    void (async () => {
      await old?.close().catch(() => {});
      let next: SessionsExerciseRun;
      try {
        next = await SessionsExerciseRun.start(engine, exercise);
      } catch (error) {
        if (!alive) return;
        setFailure(plainError(error));
        setPhase('failed');
        return;
      }
      if (!alive) {
        await next.close().catch(() => {});
        return;
      }
      runRef.current = next;
      setRun(next);
      const problems = next.problems();
      if (problems.length) {
        setFailure(
          `The exercise could not reach its starting state in this browser: ${problems.join('; ')}.`,
        );
        setPhase('failed');
        return;
      }
      setPhase('ready');
      if (next.leftRunning) {
        setLeft('waiting');
        void next.leftRunning.then(
          (answer) => {
            if (!alive) return;
            setLeft(answer);
            void request();
          },
          () => {},
        );
      }
    })();
    return () => {
      alive = false;
    };
  }, [engine, exercise, generation, request]);

  // The first check, once the run is on screen: the reader sees what is asked.
  useEffect(() => {
    if (phase === 'ready' && run) void request(null);
  }, [phase, run, request]);

  // Closing the page's exercise ends its sessions.
  useEffect(
    () => () => {
      void runRef.current?.close().catch(() => {});
    },
    [],
  );

  useEffect(() => {
    setRootData({
      ...consoleData,
      phase,
      solved: view.solved ? 'yes' : 'no',
      checking: view.checking ? 'yes' : 'no',
      checked: String(view.completed),
      checks: String(view.report ? view.report.outcomes.filter((o) => o.held).length : 0),
    });
  }, [consoleData, phase, view, setRootData]);

  // A restart forgets the old run's state at once; the effect above starts the new one.
  const restart = useCallback(async () => {
    setRun(null);
    setPhase('starting');
    setFailure(null);
    setLeft(null);
    reset();
    setGeneration((g) => g + 1);
  }, [reset]);

  const adopt = useMemo<AdoptedSession[] | null>(() => {
    if (!run) return null;
    return exercise.tabs.map((tab) => {
      const s = exercise.scenario.sessions.find((x) => x.name === tab.session)!;
      const waits = exercise.leftRunning?.session === tab.session && run.leftRunning;
      return {
        label: tab.session,
        applicationName: s.application_name ?? s.name,
        session: run.session(tab.session),
        sql: tab.sql,
        ...(waits
          ? {
              pending: {
                what: `${tab.session}'s statement, sent by the exercise,`,
                shownIn: 'above the console',
                done: run.leftRunning!.then(
                  () => {},
                  () => {},
                ),
              },
            }
          : {}),
      };
    });
  }, [run, exercise]);

  const onRan = useCallback(
    (finished: FinishedRun) => {
      const tab = run && exercise.tabs.find((t) => run.session(t.session) === finished.session);
      if (!tab) return;
      void request(
        finished.result
          ? {
              session: tab.session,
              result: finished.result,
              ...(finished.errorCode ? { errorCode: finished.errorCode } : {}),
            }
          : null,
      );
    },
    [run, exercise, request],
  );

  return (
    <>
      <section className="exercise-start" aria-label="Where you start">
        <p>{exercise.situation}</p>
        {run && phase !== 'starting' ? (
          <details>
            <summary>What the exercise ran to get here</summary>
            <ol className="exercise-started">
              {run.started.map((r) => (
                <li key={r.step.index}>
                  <strong>{exercise.scenario.sessions[r.step.session]!.name}</strong>: {r.step.say}{' '}
                  <code>{firstLine(r.step.sql)}</code>
                </li>
              ))}
              {exercise.leftRunning ? (
                <li>
                  <strong>{exercise.leftRunning.session}</strong>: sent{' '}
                  <code>{firstLine(exercise.leftRunning.sql)}</code>, {leftWords(left)}
                </li>
              ) : null}
            </ol>
          </details>
        ) : null}
        {exercise.leftRunning && left !== null ? (
          <p className="exercise-left" role="status">
            {exercise.leftRunning.session}’s statement, sent by the exercise, {leftWords(left)}
          </p>
        ) : null}
      </section>

      {phase === 'starting' ? (
        <p className="exercise-status" role="status">
          Setting up: opening the sessions and bringing them to the starting state…
        </p>
      ) : null}
      {phase === 'failed' ? (
        <div className="demo-error exercise-failure" role="alert">
          <p>{failure}</p>
          <p>
            <ActionButton onClick={() => void restart()}>Restart the exercise</ActionButton>
          </p>
        </div>
      ) : null}

      {phase === 'ready' && adopt ? (
        <section className="exercise-console" aria-label="Your sessions">
          <p className="honesty">
            One tab per session of the exercise, each its own connection to PostgreSQL 18 in your
            browser.
            {exercise.leftRunning
              ? ` ${exercise.leftRunning.session}'s tab stays busy while its statement waits: Cancel is there.`
              : ''}
          </p>
          <ConsoleBody
            key={generation}
            {...consoleContext}
            adopt={adopt}
            onReset={restart}
            onRan={onRan}
          />
        </section>
      ) : null}

      <CheckPanel
        level={level}
        exercise={exercise}
        view={view}
        context={run ? { pids: run.pids, answer: null } : null}
        onCheck={() => void request()}
        canCheck={phase === 'ready'}
      />

      <Help exercise={exercise} level={level} />
    </>
  );
}

/** What became of the statement the exercise left running. */
function leftWords(left: LeftRunningAnswer | 'waiting' | null): string {
  if (left === null || left === 'waiting') return 'which is still waiting for a lock.';
  if (left.ok) {
    const last = left.result.results.at(-1);
    const rows = last?.rows.map((r) => r[0]).join(', ');
    return `which has answered: ${last?.command ?? 'done'}${rows ? ` (${rows})` : ''}.`;
  }
  return `which has answered: ERROR ${left.code}: ${left.message}.`;
}
