// A rule of thumb as four questions: the reader's answers say which column they are in.
import { useId, useState } from 'react';
import type { Decide as DecideSpec } from '../../scenario/schema';

/** Which column the answers point to: the one more answers count for, or null on a tie. */
export function decided(spec: DecideSpec, answers: (boolean | undefined)[]): string | null {
  const votes = new Map(spec.columns.map((c) => [c.id, 0]));
  spec.asks.forEach((ask, i) => {
    const answer = answers[i];
    if (answer === undefined) return;
    const column = answer ? ask.yes : ask.no;
    votes.set(column, (votes.get(column) ?? 0) + 1);
  });
  const [a, b] = spec.columns.map((c) => votes.get(c.id) ?? 0);
  if (a === b) return null;
  return a! > b! ? spec.columns[0]!.id : spec.columns[1]!.id;
}

export function Decide({ spec }: { spec: DecideSpec }) {
  const ids = useId();
  const [answers, setAnswers] = useState<(boolean | undefined)[]>(() =>
    spec.asks.map(() => undefined),
  );
  const answered = answers.filter((a) => a !== undefined).length;
  const column = decided(spec, answers);
  const chosen = spec.columns.find((c) => c.id === column);
  return (
    <section className="player-decide" aria-labelledby={`${ids}-q`}>
      <h3 id={`${ids}-q`}>{spec.question}</h3>
      <p className="hint">A rule of thumb in this site’s words, not PostgreSQL output.</p>
      <ol>
        {spec.asks.map((ask, i) => (
          <li key={ask.text}>
            <fieldset>
              <legend>{ask.text}</legend>
              {[true, false].map((value) => (
                <label key={String(value)}>
                  <input
                    type="radio"
                    name={`${ids}-${i}`}
                    checked={answers[i] === value}
                    onChange={() => setAnswers((old) => old.map((a, j) => (j === i ? value : a)))}
                  />{' '}
                  {value ? 'Yes' : 'No'}
                </label>
              ))}
            </fieldset>
          </li>
        ))}
      </ol>
      <p className="player-decided" role="status" aria-live="polite">
        {answered === 0
          ? 'Answer the questions to see which column you are in.'
          : chosen
            ? `${answered === spec.asks.length ? 'You are in' : 'So far, you are in'}: ${chosen.label}. ${chosen.says}`
            : `${answered === spec.asks.length ? 'Your answers are split' : 'So far, your answers are split'}: ${spec.tie}`}
      </p>
    </section>
  );
}
