// A slots exercise on the page: the deployment's settings (some fixed by the exercise),
// Start asks for every seat on the reader's PostgreSQL, and the checks ask who got one.
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { exerciseDemoId } from '../../exercises';
import { checkDeployment, keepFixed, startDeployment } from '../../exercises/slots-run';
import type { SlotsExercise } from '../../exercises/types';
import {
  demand,
  slotsRanges,
  type AskOutcome,
  type SlotsConfig,
  type SlotsRun,
} from '../../sim/slots';
import type { DemoContext } from '../DemoShell';
import { ActionButton } from '../player/ActionButton';
import { plainError } from '../player/words';
import { CheckPanel } from './CheckPanel';
import { Help, settingLabel } from './Help';
import { useChecks } from './use-checks';

type Phase = 'idle' | 'asking' | 'done';

const order: (keyof SlotsConfig)[] = ['workers', 'perWorker', 'api', 'poolSize', 'maxOverflow'];

export function SlotsBody({
  exercise,
  context,
  embed,
  level,
}: {
  exercise: SlotsExercise;
  context: DemoContext;
  embed: boolean;
  /** The level of its sections' headings. */
  level: 2 | 3;
}) {
  const { engine, setRootData, announceReady } = context;
  const ids = useId();
  const [config, setConfig] = useState<SlotsConfig>(exercise.start);
  const [phase, setPhase] = useState<Phase>('idle');
  const [outcomes, setOutcomes] = useState<AskOutcome[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const runRef = useRef<SlotsRun | null>(null);
  const generationRef = useRef(0);

  const check = useMemo(
    () => () => checkDeployment(engine, exercise, { cancel: (s) => engine.cancel(s) }),
    [engine, exercise],
  );
  const { view, request, reset } = useChecks(check, exerciseDemoId(exercise.id), embed);

  // Opens no session until Start: the demo is usable as soon as it is on screen.
  useEffect(() => announceReady(), [announceReady]);
  useEffect(
    () => () => {
      generationRef.current++;
      void runRef.current?.close();
    },
    [],
  );

  useEffect(() => {
    setRootData({
      phase,
      solved: view.solved ? 'yes' : 'no',
      checking: view.checking ? 'yes' : 'no',
      checked: String(view.completed),
    });
  }, [phase, view, setRootData]);

  const giveBack = useCallback(async () => {
    generationRef.current++;
    const old = runRef.current;
    runRef.current = null;
    await old?.close();
  }, []);

  const start = async () => {
    await giveBack();
    reset();
    const generation = generationRef.current;
    setOutcomes([]);
    setFailure(null);
    setPhase('asking');
    try {
      const run = await startDeployment(engine, keepFixed(exercise, config), (o) => {
        if (generation === generationRef.current) setOutcomes((old) => [...old, o]);
      });
      if (generation !== generationRef.current) {
        await run.close();
        return;
      }
      runRef.current = run;
      setPhase('done');
      await request();
    } catch (error) {
      if (generation !== generationRef.current) return;
      setFailure(plainError(error));
      setPhase('done');
    }
  };

  const resetAll = async () => {
    await giveBack();
    setOutcomes([]);
    setFailure(null);
    setPhase('idle');
    reset();
  };

  const wanted = demand(keepFixed(exercise, config));
  const seated = outcomes.filter((o) => 'seat' in o);
  const refused = outcomes.filter(
    (o): o is Extract<AskOutcome, { refused: unknown }> => 'refused' in o,
  );
  const byProcess = (prefix: string) =>
    new Set(seated.filter((o) => o.ask.process.startsWith(prefix)).map((o) => o.ask.process)).size;

  return (
    <>
      <section className="exercise-start" aria-label="Where you start">
        <p>{exercise.situation}</p>
      </section>

      <fieldset className="slots-controls" disabled={phase === 'asking'}>
        <legend>The deployment</legend>
        {order.map((key) => {
          const { min, max } = slotsRanges[key];
          const fixed = exercise.fixed.includes(key);
          return (
            <label key={key} htmlFor={`${ids}-${key}`}>
              <span>{settingLabel(key)}</span>
              <input
                id={`${ids}-${key}`}
                type="number"
                inputMode="numeric"
                min={min}
                max={max}
                value={config[key]}
                readOnly={fixed}
                aria-describedby={`${ids}-${key}-note`}
                onChange={(e) => {
                  const value = Number(e.target.value);
                  if (!fixed && Number.isInteger(value) && value >= min && value <= max)
                    setConfig((c) => ({ ...c, [key]: value }));
                }}
              />
              <span className="hint" id={`${ids}-${key}-note`}>
                {fixed ? 'fixed by the exercise' : `${min}–${max}`}
              </span>
            </label>
          );
        })}
      </fieldset>
      <p className="slots-sum">
        {config.workers} × {config.perWorker} + {config.api} × ({config.poolSize} +{' '}
        {config.maxOverflow}) = <strong>{wanted.total} connections asked for</strong>, workers
        first.
      </p>
      <div className="exercise-actions">
        <ActionButton primary onClick={() => void start()} disabled={phase === 'asking'}>
          {phase === 'idle' ? 'Start the deployment' : 'Start it again'}
        </ActionButton>
        <ActionButton onClick={() => void resetAll()} disabled={phase === 'idle'}>
          {phase === 'asking' ? 'Stop' : 'Give every seat back'}
        </ActionButton>
      </div>
      <p className="slots-status" role="status" aria-live="polite">
        {failure ??
          (phase === 'asking'
            ? `${outcomes.length} of ${wanted.total} connections asked for so far…`
            : phase === 'done'
              ? `${seated.length} seats taken (${byProcess('worker-')} workers, ${byProcess('api-')} API processes), ${refused.length} connections refused.`
              : 'Change what you may, then start the deployment.')}
      </p>
      {refused[0] ? (
        <p className="exercise-refusal">
          First refusal, to {refused[0].ask.process} ({refused[0].ask.what}):{' '}
          <code>
            {refused[0].refused.severity}: {refused[0].refused.message} (SQLSTATE{' '}
            {refused[0].refused.code})
          </code>
        </p>
      ) : null}

      <CheckPanel
        level={level}
        exercise={exercise}
        view={view}
        context={{ pids: {}, answer: null }}
        onCheck={() => void request()}
        canCheck={phase !== 'asking'}
      />
      <p className="honesty">
        <strong>Modelled:</strong> the workers, the API processes and their pools are modelled by
        this page; every seat is a real session on PostgreSQL 18 in your browser, and every refusal
        is PostgreSQL’s own.
      </p>

      <Help exercise={exercise} level={level} />
    </>
  );
}
