// The goal, what the checks found, and how they check it: the SQL they send.
import { useId } from 'react';
import type { CheckContext, Exercise } from '../../exercises/types';
import { ActionButton } from '../player/ActionButton';
import type { ChecksView } from './use-checks';

export function CheckPanel({
  exercise,
  view,
  context,
  onCheck,
  canCheck,
  level,
}: {
  exercise: Exercise;
  view: ChecksView;
  /** What the checks' SQL is written for (the sessions' pids), once the run has started. */
  context: CheckContext | null;
  onCheck: () => void;
  canCheck: boolean;
  /** The level of its heading: under the page's h1, or under an embed's h2. */
  level: 2 | 3;
}) {
  const Heading = level === 2 ? 'h2' : 'h3';
  const ids = useId();
  const { report, checking, solved, failure } = view;
  const held = report?.outcomes.filter((o) => o.held).length ?? 0;
  const status = solved
    ? 'Solved: every check held.'
    : checking
      ? 'Checking…'
      : report
        ? `Not yet: ${held} of ${report.outcomes.length} checks hold.`
        : 'Not checked yet.';
  const sqls = exercise.checks
    .map((item, i) => report?.outcomes[i]?.sql ?? (context ? item.sql(context) : null))
    .filter((sql): sql is string => sql !== null);
  return (
    <section className="exercise-check" aria-labelledby={`${ids}-goal`}>
      <Heading id={`${ids}-goal`}>Checks</Heading>
      <p
        className={solved ? 'exercise-status exercise-solved' : 'exercise-status'}
        role="status"
        aria-live="polite"
      >
        {status}
      </p>
      {failure ? <p className="exercise-failure">{failure}</p> : null}
      <ul className="exercise-checklist" aria-label="Checks">
        {exercise.checks.map((item, i) => {
          const outcome = report?.outcomes[i];
          const mark = outcome === undefined ? 'not checked' : outcome.held ? 'holds' : 'not yet';
          return (
            <li key={item.says} data-held={outcome ? String(outcome.held) : undefined}>
              <span className="exercise-mark" aria-hidden="true">
                {outcome === undefined ? '·' : outcome.held ? '✓' : '✗'}
              </span>
              <span>
                <span className="visually-hidden">{mark}: </span>
                {item.says}.
                {outcome ? (
                  <span className="exercise-seen"> PostgreSQL shows: {outcome.seen}.</span>
                ) : null}
              </span>
            </li>
          );
        })}
      </ul>
      <div className="exercise-actions">
        <ActionButton onClick={onCheck} disabled={!canCheck || checking}>
          Check now
        </ActionButton>
      </div>
      <details className="exercise-how">
        <summary>How it is checked</summary>
        <p>
          After each statement you run, the page sends these queries to your PostgreSQL from a
          session of its own (application_name <code>exercise check</code>) and reads its answers.
          Nothing on screen is read.
        </p>
        {sqls.map((sql) => (
          <pre key={sql}>
            <code>{sql}</code>
          </pre>
        ))}
      </details>
      {solved ? (
        <div className="exercise-lesson" role="note">
          <p>
            <strong>Solved.</strong> {exercise.lesson}
          </p>
        </div>
      ) : null}
    </section>
  );
}
