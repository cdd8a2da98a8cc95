// The application code beside a scenario's steps, with the line the latest step is marked.
import type { PlannedStep, Selection } from '../../scenario/plan';
import type { Scenario } from '../../scenario/schema';

export function Code({
  scenario,
  selection,
  shown,
}: {
  scenario: Scenario;
  selection: Selection;
  /** The steps sent so far: the last one with a line marks it. */
  shown: PlannedStep[];
}) {
  const code = scenario.code!;
  const option = selection.choices[code.choice] ?? '';
  const source = code.sources[option];
  if (!source) return null;
  const lines = source.replace(/\n$/, '').split('\n');
  const marked = shown.findLast((s) => s.line !== undefined)?.line;
  return (
    <figure className="player-code">
      <figcaption>
        {code.label}
        {marked ? ` (line ${marked} is the step just run)` : ''}
      </figcaption>
      <div className="table-scroll" tabIndex={0} role="group" aria-label={code.label}>
        <pre>
          <code data-language={code.language}>
            {lines.map((text, i) => (
              <span key={i} className={i + 1 === marked ? 'code-line marked' : 'code-line'}>
                <span className="code-number" aria-hidden="true">
                  {String(i + 1).padStart(2, ' ')}
                </span>
                {i + 1 === marked ? <mark>{text || ' '}</mark> : text || ' '}
                {'\n'}
              </span>
            ))}
          </code>
        </pre>
      </div>
    </figure>
  );
}
