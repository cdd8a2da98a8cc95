// What a configuration of the counter or the slots demo does to the seats, in words, from
// the seat arithmetic the demos follow (seat-plan.ts).
import { seatVerdicts, type SeatPlan, type SeatVerdict } from '../seat-plan';

/** What the configuration does to the seats, from the arithmetic the demos follow. */
export function SeatNote({ plan, demo }: { plan: SeatPlan; demo: string }) {
  const verdicts = seatVerdicts(plan);
  const warn = verdicts.some((v) => v.kind === 'api-without-seat');
  return (
    <div
      className={warn ? 'builder-seats builder-seats-warn' : 'builder-seats'}
      role="status"
      data-seat-verdicts={verdicts.map((v) => v.kind).join(' ')}
    >
      <p>
        <strong>Seats:</strong> {plan.workers.seated} of the workers’ {plan.workers.asked}{' '}
        connections and {plan.api.seated} of the API’s {plan.api.asked} get one of the{' '}
        {plan.ordinarySeats} seats an ordinary role may have
        {demo === 'counter'
          ? ' (the counter’s site traffic takes one, its clerk and sweeper two more)'
          : ''}
        .
      </p>
      <ul>
        {verdicts.map((v) => (
          <li key={v.kind}>{seatSentence(v, demo)}</li>
        ))}
      </ul>
      {plan.firstRefused ? (
        <p>
          The first connection refused is {plan.firstRefused}&apos;s; the demo shows the FATAL
          PostgreSQL sends it.
        </p>
      ) : null}
    </div>
  );
}

function seatSentence(verdict: SeatVerdict, demo: string): string {
  switch (verdict.kind) {
    case 'api-without-seat':
      return (
        `The API gets no seat at all: the workers start first and take ${verdict.workerSeats} ` +
        `seats, the rest of the ${verdict.ordinarySeats}. ` +
        (demo === 'counter'
          ? 'No upload is accepted, so no job is queued, no worker opens a page, and VACUUM has ' +
            'nothing held back to show. Fewer workers or connections per worker let jobs flow.'
          : 'Every request fails; this is the point to make, or lower the workers.')
      );
    case 'workers-at-door':
      return `${verdict.waiting} of the workers’ connections wait at the door, refused.`;
    case 'api-capped':
      return (
        `The API may open at most ${verdict.seats} of the ${verdict.asked} connections its ` +
        'pools allow; when it needs more, they are refused at the door.'
      );
    case 'everyone-seated':
      return 'Every connection gets a seat.';
  }
}
