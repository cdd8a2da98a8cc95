// A modelled process over time, as a line with marks: read as a list, drawn as a scale.
import type { Timeline as TimelineSpec } from '../../scenario/schema';

export function Timeline({ spec }: { spec: TimelineSpec }) {
  const at = (t: number) => `${Math.min(100, (t / spec.until) * 100)}%`;
  return (
    <figure className="player-timeline">
      <figcaption>{spec.caption}</figcaption>
      <div className="timeline-line" aria-hidden="true">
        {spec.marks.map((m) => (
          <span key={`${m.at}-${m.says}`} className="timeline-mark" style={{ left: at(m.at) }}>
            {m.at}
          </span>
        ))}
      </div>
      <ol className="timeline-list">
        {spec.marks.map((m) => (
          <li key={`${m.at}-${m.says}`}>
            <strong>
              {m.at} {spec.unit}:
            </strong>{' '}
            {m.says}
          </li>
        ))}
      </ol>
    </figure>
  );
}
