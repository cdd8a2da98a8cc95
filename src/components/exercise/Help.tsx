// Hints, one at a time on request, and the solution on request.
import { useId, useState } from 'react';
import type { Exercise } from '../../exercises/types';

export function Help({ exercise, level }: { exercise: Exercise; level: 2 | 3 }) {
  const Heading = level === 2 ? 'h2' : 'h3';
  const ids = useId();
  const [shown, setShown] = useState(0);
  const [solution, setSolution] = useState(false);
  const total = exercise.hints.length;
  return (
    <section className="exercise-help" aria-labelledby={`${ids}-help`}>
      <Heading id={`${ids}-help`}>Stuck?</Heading>
      <ol className="exercise-hints" aria-live="polite">
        {exercise.hints.slice(0, shown).map((hint, i) => (
          <li key={i}>{hint}</li>
        ))}
      </ol>
      <div className="exercise-actions">
        <button
          type="button"
          aria-disabled={shown >= total || undefined}
          onClick={() => setShown((n) => Math.min(total, n + 1))}
        >
          {shown >= total ? `All ${total} hints shown` : `Show a hint (${shown + 1} of ${total})`}
        </button>
        <button
          type="button"
          aria-expanded={solution}
          aria-controls={`${ids}-solution`}
          onClick={() => setSolution((on) => !on)}
        >
          {solution ? 'Hide the solution' : 'Show the solution'}
        </button>
      </div>
      <div id={`${ids}-solution`} className="exercise-solution" hidden={!solution}>
        <p>{exercise.solution.says}</p>
        {exercise.kind === 'sessions' ? (
          <ol>
            {exercise.solution.steps.map((step, i) => (
              <li key={i}>
                In <strong>{step.session}</strong>’s tab:{' '}
                {step.cancel ? (
                  'press Cancel while its statement waits.'
                ) : (
                  <pre>
                    <code>{step.sql}</code>
                  </pre>
                )}
              </li>
            ))}
          </ol>
        ) : (
          <ul>
            {Object.entries(exercise.solution.settings).map(([key, value]) => (
              <li key={key}>
                {settingLabel(key)}: <strong>{value}</strong>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

/** The words for a slots setting, as its control is labelled. */
export function settingLabel(key: string): string {
  const labels: Record<string, string> = {
    workers: 'Workers',
    perWorker: 'Connections per worker',
    api: 'API processes',
    poolSize: 'pool_size',
    maxOverflow: 'max_overflow',
  };
  return labels[key] ?? key;
}
