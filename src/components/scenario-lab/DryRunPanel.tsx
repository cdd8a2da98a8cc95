// The check before sharing, on the page: every run of the scenario played on the
// reader's PostgreSQL, with Stop, and what became of each run in words.
import { useEffect, useRef, useState } from 'react';
import type { Scenario } from '../../scenario/schema';
import { DemoShell } from '../DemoShell';
import { ActionButton } from '../player/ActionButton';
import { dryRun, type RunOutcome, type RunResult } from './dry-run';

export function DryRunPanel({
  scenario,
  onDone,
}: {
  scenario: Scenario;
  /** Hears the results once every run has been played (not when stopped). */
  onDone: (results: RunResult[]) => void;
}) {
  return (
    <DemoShell demo="scenario-check">
      {({ engine, setRootData }) => (
        <DryRunBody
          scenario={scenario}
          onDone={onDone}
          run={(options) => dryRun(engine, scenario, options)}
          setRootData={setRootData}
        />
      )}
    </DemoShell>
  );
}

function DryRunBody({
  scenario,
  onDone,
  run,
  setRootData,
}: {
  scenario: Scenario;
  onDone: (results: RunResult[]) => void;
  run: (options: Parameters<typeof dryRun>[2]) => Promise<RunResult[]>;
  setRootData: (data: Record<string, string>) => void;
}) {
  const [progress, setProgress] = useState<string>('Starting the check…');
  const [results, setResults] = useState<RunResult[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const stopRef = useRef<() => void>(() => {});
  const runRef = useRef(run);
  const doneRef = useRef(onDone);

  useEffect(() => {
    let alive = true;
    const stopped = new Promise<void>((resolve) => (stopRef.current = resolve));
    runRef
      .current({
        stopped,
        onProgress: (p) =>
          alive &&
          setProgress(
            `Playing run ${p.run} of ${p.runs}: step ${Math.min(p.step + 1, p.steps)} of ${p.steps}…`,
          ),
      })
      .then(
        (found) => {
          if (!alive) return;
          setResults(found);
          if (!found.some((r) => r.outcome.kind === 'stopped')) doneRef.current(found);
        },
        (error: unknown) =>
          alive &&
          setFailure(`The check stopped: ${error instanceof Error ? error.message : error}`),
      );
    return () => {
      alive = false;
      stopRef.current();
    };
  }, []);

  const finished = results !== null || failure !== null;
  useEffect(() => {
    setRootData({ checked: finished ? 'yes' : 'no' });
  }, [finished, setRootData]);

  const problems = results?.filter((r) => r.outcome.kind !== 'truthful') ?? [];
  return (
    <section className="lab-check" aria-label="What the check found">
      <p role="status" aria-live="polite" className="lab-check-status">
        {failure ??
          (results
            ? problems.length === 0
              ? `Every run (${results.length}) plays truthfully in the browser: every step ran, and every claim held.`
              : `${problems.length} of ${results.length} runs need a look before you share:`
            : progress)}
      </p>
      {!finished ? <ActionButton onClick={() => stopRef.current()}>Stop</ActionButton> : null}
      {results ? (
        <ul className="lab-check-results">
          {results.map((r) => (
            <li key={r.label} data-outcome={r.outcome.kind}>
              <strong>{r.label || scenario.title}</strong>: {outcomeWords(r.outcome)}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** A run's outcome in plain words. */
export function outcomeWords(outcome: RunOutcome): string {
  switch (outcome.kind) {
    case 'truthful':
      return 'plays truthfully: every step ran, and every claim held.';
    case 'claims':
      return `every step ran, but ${outcome.failed
        .map((f) => `step ${f.step}’s claim “${f.says}” did not hold (PostgreSQL showed ${f.seen})`)
        .join('; ')}.`;
    case 'refused':
      return `${outcome.step ? `step ${outcome.step} (${outcome.session})` : 'the start'} cannot be shown truthfully in the browser: ${outcome.reason} (${outcome.refusal}). A reader would see the player stop there with these words.`;
    case 'stuck':
      return `step${outcome.steps.length === 1 ? '' : 's'} ${outcome.steps.join(', ')} still ${outcome.steps.length === 1 ? 'waits' : 'wait'} once every step was sent: nothing in the scenario ends the wait.`;
    case 'failed':
      return `it could not be played: ${outcome.message}.`;
    case 'stopped':
      return 'not checked (stopped).';
  }
}
