// One session's lane: its latest step with the output and claims, the earlier ones folded.
import type { SessionInfo } from '../../engine/session-info';
import type { ClaimCheck } from '../../scenario/claims';
import type { PlannedStep } from '../../scenario/plan';
import type { StepReport } from '../../scenario/play';
import type { Scenario } from '../../scenario/schema';
import { sentence } from '../console-text';
import { ErrorView, NoticeList, ResultList } from '../Output';
import { describeSession, sessionStateKind } from '../SessionTabs';
import { formatMs, type RunView } from './words';

export function Lane({
  scenario,
  index,
  run,
  info,
  ended,
  recordedOn,
  marks,
}: {
  scenario: Scenario;
  index: number;
  run: RunView;
  info: SessionInfo | undefined;
  /** The session was open and is no longer (the server ended it, or the reader closed it). */
  ended: boolean;
  recordedOn: string | null;
  marks: ReadonlySet<string>;
}) {
  const session = scenario.sessions[index]!;
  const sent = run.steps.filter((s) => s.session === index && s.index < run.position);
  const latest = sent.at(-1);
  const earlier = sent.slice(0, -1);
  const appName = session.application_name ?? session.name;
  return (
    <section className="lane" aria-label={`Session ${session.name}, ${scenario.title}`}>
      <header className="lane-head">
        <h3>{session.name}</h3>
        {session.role_in_story ? <p className="lane-role">{session.role_in_story}</p> : null}
        <p
          className="lane-badge state-badge"
          data-state={recordedOn ? 'recorded' : ended ? undefined : sessionStateKind(info)}
        >
          {recordedOn
            ? `recorded on ${recordedOn}`
            : ended
              ? 'no longer connected'
              : describeSession(info)}
          {appName !== session.name ? ` · connected as application_name ${appName}` : ''}
        </p>
      </header>
      {latest ? (
        <StepBox
          step={latest}
          report={run.reports[latest.index]}
          marks={marks}
          current={latest.index === run.position - 1}
        />
      ) : (
        <p className="lane-empty">Nothing sent yet.</p>
      )}
      {earlier.length > 0 ? (
        <details className="lane-earlier">
          <summary>
            {earlier.length} earlier step{earlier.length === 1 ? '' : 's'}
          </summary>
          {earlier.map((s) => (
            <StepBox
              key={s.index}
              step={s}
              report={run.reports[s.index]}
              marks={marks}
              current={false}
            />
          ))}
        </details>
      ) : null}
    </section>
  );
}

function StepBox({
  step,
  report,
  marks,
  current,
}: {
  step: PlannedStep;
  report: StepReport | undefined;
  marks: ReadonlySet<string>;
  current: boolean;
}) {
  return (
    <div className={`step-box${current ? ' current' : ''}`} data-step={step.index + 1}>
      <p className="step-label">
        Step {step.index + 1}
        {step.params ? ' (extended protocol, with bound parameters)' : ''}
        {step.model ? (
          <>
            {' '}
            <span className="badge badge-modelled state-badge" data-state="modelled">
              modelled
            </span>
          </>
        ) : null}
      </p>
      {step.model ? (
        <p className="step-model">
          {sentence(capitalised(`${step.model.by}${modelWords(step.model)}`))}
        </p>
      ) : (
        <pre className="step-sql">{step.sql}</pre>
      )}
      {!report ? (
        <p className="step-state">Sent…</p>
      ) : report.status === 'waiting' ? (
        <p className="step-state waiting">Waiting: its statement has not finished.</p>
      ) : report.status === 'modelled' ? (
        <p className="step-state">
          Modelled by this page, not PostgreSQL
          {step.model?.disconnect
            ? ': PostgreSQL sees the connection close.'
            : step.model?.reconnect
              ? ': PostgreSQL sees a new connection, with a new backend pid.'
              : '.'}
        </p>
      ) : report.status === 'refused' ? (
        <div className="console-limit" role="region" aria-label="Limit of the in-browser engine">
          <p>
            Not expressible in the browser: {sentence(report.reason)} This is a limit of the
            in-browser engine, not a PostgreSQL error.
          </p>
        </div>
      ) : (
        <>
          <p className="step-state">
            {report.output.waited ? 'Waited, then answered' : 'Answered'} after{' '}
            {formatMs(report.output.elapsedMs)}.
          </p>
          <ResultList results={report.output.results} marks={marks} />
          {report.output.error ? (
            <ErrorView
              query={step.sql}
              error={report.output.error}
              label={`Error of step ${step.index + 1}`}
            />
          ) : null}
          <NoticeList
            notices={report.output.notices}
            marks={marks}
            label={`Notices of step ${step.index + 1}`}
          />
          <Claims claims={report.claims} />
        </>
      )}
    </div>
  );
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** What a modelled step does to its session's connection, after who does it. */
function modelWords(model: NonNullable<PlannedStep['model']>): string {
  if (model.disconnect) return ': the process ends, and its connection closes with it';
  if (model.reconnect) return ' throws the connection away and opens a new one';
  return ' acts; nothing is sent to PostgreSQL';
}

function Claims({ claims }: { claims: ClaimCheck[] }) {
  if (claims.length === 0) return null;
  return (
    <ul className="claims" aria-label="What this step shows">
      {claims.map((c) => (
        <li key={c.says} className={c.held ? 'held' : 'failed'}>
          <span className="claim-mark">{c.held ? '✓ shown:' : '✗ not shown:'}</span> {c.says}{' '}
          {c.held ? null : <span className="claim-seen">(this run gave: {c.seen})</span>}
        </li>
      ))}
    </ul>
  );
}
