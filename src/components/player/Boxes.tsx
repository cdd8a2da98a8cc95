// The story's processes as boxes in a row, each with the connections it opened: which box
// the latest step happened in, and which connections are gone.
import type { SessionInfo } from '../../engine/session-info';
import type { PlannedStep } from '../../scenario/plan';
import type { Scenario } from '../../scenario/schema';

/** A connection as its chip says it: its session's state, or that it is gone. */
export interface Chip {
  name: string;
  info: SessionInfo | undefined;
  ended: boolean;
}

export function Boxes({
  scenario,
  latest,
  chips,
}: {
  scenario: Scenario;
  /** The step just sent, if any. */
  latest: PlannedStep | undefined;
  chips: Chip[];
}) {
  const picture = scenario.picture!;
  // A model step happens in the box of its actor, else in its session's box.
  const sessionName = latest ? scenario.sessions[latest.session]!.name : '';
  const here = latest
    ? (picture.boxes.find((b) => latest.model && b.actors.includes(latest.model.by)) ??
      picture.boxes.find((b) => b.sessions.includes(sessionName)))
    : undefined;
  return (
    <figure className="player-boxes">
      <figcaption>{picture.caption}</figcaption>
      <ol>
        {picture.boxes.map((box) => {
          const current = box === here;
          return (
            <li key={box.id} className="box-cell">
              <section
                className={`box${current ? ' current' : ''}`}
                aria-label={`${box.label}${current ? ' (the step just run happened here)' : ''}`}
              >
                <h3>{box.label}</h3>
                {box.note ? <p className="box-note">{box.note}</p> : null}
                {current && latest?.model ? (
                  <p className="box-event">
                    <span className="badge-modelled state-badge" data-state="modelled">
                      modelled:
                    </span>{' '}
                    {latest.model.by}
                    {latest.model.disconnect ? ', the process ends' : ''}
                    {latest.model.reconnect ? ', a new connection' : ''}
                  </p>
                ) : null}
                {box.sessions.length > 0 ? (
                  <ul className="box-chips" aria-label="Its connections">
                    {box.sessions.map((name) => {
                      const chip = chips.find((c) => c.name === name);
                      return (
                        <li key={name} className={chip?.ended ? 'chip ended' : 'chip'}>
                          {name}: {chip?.ended ? 'closed' : (chip?.info?.state ?? '…')}
                        </li>
                      );
                    })}
                  </ul>
                ) : null}
              </section>
              {box.to_next ? (
                <span className="box-arrow" aria-hidden="true">
                  {box.to_next}
                </span>
              ) : null}
            </li>
          );
        })}
      </ol>
    </figure>
  );
}
