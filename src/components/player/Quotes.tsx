// Figures quoted from elsewhere, each beside what this page measured for the same step.
import { chosenOptions, type Selection } from '../../scenario/plan';
import type { Scenario } from '../../scenario/schema';
import { formatMs, type RunView } from './words';

export function Quotes({
  scenario,
  selection,
  run,
}: {
  scenario: Scenario;
  selection: Selection;
  run: RunView;
}) {
  const quoted = chosenOptions(scenario, selection).flatMap(({ option }) =>
    option.quoted && !scenario.tally ? [option.quoted] : [],
  );
  if (quoted.length === 0) return null;
  return (
    <aside
      className="player-quotes"
      aria-label={`Figures quoted from elsewhere: ${scenario.title}`}
    >
      {quoted.map((q) => {
        const step = q.beside ? run.steps.find((s) => s.id === q.beside) : undefined;
        const r = step ? run.reports[step.index] : undefined;
        return (
          <p key={q.text}>
            <span className="quote">
              “{q.text}” (quoted: {q.source}).
            </span>{' '}
            {step ? (
              <span className="measured">
                {r?.status === 'completed'
                  ? `Measured in this page: ${scenario.sessions[step.session]!.name}’s step answered after ${formatMs(r.output.elapsedMs)}${run.recorded ? ' (recorded)' : ''}.`
                  : r?.status === 'waiting'
                    ? `In this page: ${scenario.sessions[step.session]!.name} is waiting…`
                    : `In this page: not run yet.`}
              </span>
            ) : null}
          </p>
        );
      })}
    </aside>
  );
}
