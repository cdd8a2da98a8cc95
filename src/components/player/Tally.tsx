// The reader's own results, one row per option, beside the article's answer.
import type { Scenario } from '../../scenario/schema';

export function Tally({
  scenario,
  tally,
  current,
}: {
  scenario: Scenario;
  tally: Record<string, number>;
  current: string;
}) {
  const t = scenario.tally!;
  const choice = scenario.choices.find((c) => c.id === t.choice)!;
  // The article's answers stand beside the reader's where the options quote one.
  const quoted = choice.options.some((o) => o.quoted);
  return (
    <section className="player-tally" aria-label={t.question}>
      <h3>{t.question}</h3>
      <p>
        Your results fill in as you run each option
        {quoted ? '; the article’s answer stands beside yours' : ''}.
      </p>
      <div className="table-scroll" tabIndex={0} role="group" aria-label="Results so far">
        <table>
          <thead>
            <tr>
              <th scope="col">{choice.label}</th>
              <th scope="col">Your run</th>
              {quoted ? <th scope="col">The article</th> : null}
            </tr>
          </thead>
          <tbody>
            {choice.options.map((o) => {
              const value = tally[o.value];
              return (
                <tr key={o.value} className={o.value === current ? 'current' : undefined}>
                  <th scope="row">
                    {o.label}
                    {o.aside ? ' (not in the article)' : ''}
                    {o.recorded ? ' (recorded)' : ''}
                  </th>
                  <td>
                    {value === undefined
                      ? 'not run yet'
                      : value > 0
                        ? t.yes.replace('{value}', String(value))
                        : t.no}
                  </td>
                  {quoted ? <td>{o.quoted ? o.quoted.text : 'not covered'}</td> : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The tally the reader filled in on an earlier visit, if the browser kept it. */
export function readTally(key: string): Record<string, number> {
  try {
    const saved = JSON.parse(localStorage.getItem(key) ?? '{}') as unknown;
    return saved && typeof saved === 'object' ? (saved as Record<string, number>) : {};
  } catch {
    return {};
  }
}
