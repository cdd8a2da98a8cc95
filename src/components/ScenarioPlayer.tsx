import {
  type ReactNode,
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
} from 'react';
import type { SessionInfo } from '../engine/session-info';
import type { ClaimCheck } from '../scenario/claims';
import {
  chosenOptions,
  isRecorded,
  PlanError,
  planSteps,
  type PlannedStep,
  type Selection,
} from '../scenario/plan';
import { ScenarioPlay, type Playback, type StepReport } from '../scenario/play';
import { RecordedPlay } from '../scenario/recorded-play';
import { recordedRun, shortVersion, type Recording } from '../scenario/recording';
import type { Scenario } from '../scenario/schema';
import type { SeatedSession } from '../viz/counter-picture';
import { drawLedgerStrip, type LedgerStrip } from '../viz/ledger-strip';
import { ConsoleBody, type AdoptedSession } from './Console';
import { AddressProblems } from './AddressProblems';
import { DemoShell, type DemoContext } from './DemoShell';
import { ErrorView, NoticeList, ResultList } from './Output';
import { readScenarioParams, scenarioSearch } from './scenario-params';
import { describeSession } from './SessionTabs';
import '../styles/player.css';

export interface ScenarioPlayerProps {
  /** The demo's id: its URL, and `data-demo` on its root. */
  demo: string;
  scenario: Scenario;
  /** PostgreSQL 18's output for the options PGlite cannot show (content/recordings/). */
  recording?: Recording;
  embed?: boolean;
}

/** A scenario demo: the reader's choices, then the steps one by one on their own sessions. */
export function ScenarioPlayer(props: ScenarioPlayerProps) {
  return (
    <DemoShell demo={props.demo} embed={props.embed}>
      {(context) => <PlayerBody {...props} context={context} />}
    </DemoShell>
  );
}

export default ScenarioPlayer;

/** How long Play waits between steps, so each can be read. */
const PLAY_PAUSE_MS = 1500;
/** How often the seats and badges are refreshed while the demo is on screen. */
const POLL_MS = 400;

/** What the player is doing that the reader must wait for. */
type Busy =
  | { kind: 'starting' }
  | { kind: 'step' }
  | { kind: 'delay'; until: number; ms: number }
  | { kind: 'replay'; to: number; seconds: number };

/** The run on screen: its steps and what each has shown. */
interface RunView {
  generation: number;
  steps: PlannedStep[];
  reports: (StepReport | undefined)[];
  position: number;
  recorded: boolean;
  done: boolean;
  /** Values kept by the run's steps (XIDs, cutoffs), to point at in the output. */
  kept: Record<string, string | null>;
}

const emptyRun: RunView = {
  generation: 0,
  steps: [],
  reports: [],
  position: 0,
  recorded: false,
  done: false,
  kept: {},
};

class Stopped extends Error {}

function plainError(error: unknown): string {
  if (error instanceof PlanError) return error.message;
  const text = error instanceof Error ? error.message : String(error);
  return `The demo could not go on: ${text}. Restart tries again from the beginning.`;
}

function PlayerBody({
  demo,
  scenario,
  recording,
  embed = false,
  context,
}: ScenarioPlayerProps & { context: DemoContext }) {
  const { engine, setRootData } = context;
  const ids = useId();
  const stepsFor = useCallback(
    (selection: Selection) => {
      try {
        return planSteps(scenario, selection).length;
      } catch {
        return 0;
      }
    },
    [scenario],
  );
  const [params] = useState(() => readScenarioParams(location.search, scenario, stepsFor));
  const [selection, setSelection] = useState<Selection>(params.selection);
  const [run, setRun] = useState<RunView>(emptyRun);
  const [busy, setBusy] = useState<Busy | null>({ kind: 'starting' });
  const [autoplay, setAutoplay] = useState(params.autoplay);
  const [failure, setFailure] = useState<string | null>(null);
  const [handedOff, setHandedOff] = useState<AdoptedSession[] | null>(null);
  const [infos, setInfos] = useState<SessionInfo[]>([]);
  const [now, setNow] = useState(() => Date.now());
  const [copied, setCopied] = useState<string | null>(null);
  const tallyKey = `seat-ledger:tally:${scenario.id}`;
  const [tally, setTally] = useState<Record<string, number>>(() => readTally(tallyKey));
  const playbackRef = useRef<Playback | null>(null);
  const generationRef = useRef(0);
  const stopRef = useRef<(() => void) | null>(null);
  const busyRef = useRef(busy);
  useEffect(() => {
    busyRef.current = busy;
  }, [busy]);
  const measureRef = useRef<{ step: number; at: number } | null>(null);
  const [pids, setPids] = useState<number[]>([]);

  const recordedEvents = useMemo(
    () =>
      isRecorded(scenario, selection) ? recordedRun(recording, scenario, selection) : undefined,
    [recording, scenario, selection],
  );

  /** Waits `ms` before a step, showing a countdown; Stop ends the wait and the step is not sent. */
  const sleep = useCallback((ms: number) => {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        stopRef.current = null;
        // The step is sent now: its time on screen counts from here, not from Next.
        if (measureRef.current) measureRef.current.at = performance.now();
        setBusy({ kind: 'step' });
        resolve();
      }, ms);
      stopRef.current = () => {
        clearTimeout(timer);
        stopRef.current = null;
        reject(new Stopped());
      };
      if (busyRef.current?.kind !== 'replay')
        setBusy({ kind: 'delay', until: Date.now() + ms, ms });
    });
  }, []);

  const report = useCallback(
    (generation: number, r: StepReport, playback: Playback, selected: Selection) => {
      if (generation !== generationRef.current) return;
      setRun((view) => {
        if (view.generation !== generation) return view;
        const reports = [...view.reports];
        reports[r.step.index] = r;
        return { ...view, reports, kept: { ...playback.kept } };
      });
      // The reader's answer for the tally (horizon), once the deciding step has run.
      const t = scenario.tally;
      const value = t && r.status === 'completed' ? playback.kept[t.value] : undefined;
      if (!t || value === undefined || value === null) return;
      setTally((old) => {
        const next = { ...old, [selected.choices[t.choice]!]: Number(value) };
        try {
          localStorage.setItem(tallyKey, JSON.stringify(next));
        } catch {
          // storage refused: the tally lasts as long as the page
        }
        return next;
      });
    },
    [scenario.tally, tallyKey],
  );

  /** Starts a fresh run of `next` and plays its first `toStep` steps (Back and step=N). */
  const begin = useCallback(
    async (next: Selection, toStep: number) => {
      const generation = ++generationRef.current;
      stopRef.current?.();
      setAutoplay((on) => (toStep === 0 && generation === 1 ? on : false));
      setFailure(null);
      setHandedOff(null);
      const old = playbackRef.current;
      playbackRef.current = null;
      setBusy({ kind: 'starting' });
      try {
        await old?.close();
      } catch {
        // the old run's sessions are gone either way
      }
      if (generation !== generationRef.current) return;
      let playback: Playback;
      try {
        const steps = planSteps(scenario, next);
        const recordedNow = isRecorded(scenario, next);
        setRun({
          ...emptyRun,
          generation,
          steps,
          reports: steps.map(() => undefined),
          recorded: recordedNow,
        });
        const options = {
          sleep,
          onReport: (r: StepReport) => report(generation, r, playback, next),
        };
        if (recordedNow) {
          const events = recordedRun(recording, scenario, next);
          if (!events) throw new Error('this choice has no recording yet (run `npm run record`)');
          playback = new RecordedPlay(scenario, next, events, options);
        } else {
          const live = await ScenarioPlay.start(engine, scenario, next, options);
          playback = live;
          setPids(scenario.sessions.map((_s, i) => live.session(i).pid));
        }
        if (generation !== generationRef.current) {
          await playback.close();
          return;
        }
        playbackRef.current = playback;
        if (toStep > 0) {
          const seconds = steps.slice(0, toStep).reduce((sum, s) => sum + s.afterMs, 0) / 1000;
          setBusy({ kind: 'replay', to: toStep, seconds });
          while (playback.position < toStep && !playback.done) {
            await playback.next();
            if (generation !== generationRef.current) return;
            setRun((view) => ({ ...view, position: playback.position, done: playback.done }));
          }
        }
        setRun((view) =>
          view.generation === generation
            ? {
                ...view,
                position: playback.position,
                done: playback.done,
                kept: { ...playback.kept },
              }
            : view,
        );
        setBusy(null);
      } catch (error) {
        if (generation !== generationRef.current) return;
        setBusy(null);
        if (!(error instanceof Stopped)) setFailure(plainError(error));
      }
    },
    [engine, recording, report, scenario, sleep],
  );

  // The first run starts as the demo comes up (and when the engine restarts).
  useEffect(() => {
    void begin(params.selection, params.step);
  }, [begin, params]);

  // Closing the page's demo ends its run and its sessions.
  useEffect(
    () => () => {
      generationRef.current++;
      stopRef.current?.();
      void playbackRef.current?.close().catch(() => {});
    },
    [],
  );

  const next = useCallback(async () => {
    const playback = playbackRef.current;
    if (!playback || busyRef.current || playback.done) return;
    const generation = generationRef.current;
    measureRef.current = { step: playback.position, at: performance.now() };
    performance.mark('seat-ledger:next');
    setBusy({ kind: 'step' });
    try {
      await playback.next();
    } catch (error) {
      if (generation === generationRef.current && !(error instanceof Stopped)) {
        setFailure(plainError(error));
      }
    }
    if (generation !== generationRef.current) return;
    setRun((view) => ({
      ...view,
      position: playback.position,
      done: playback.done,
      kept: { ...playback.kept },
    }));
    if (playback.done) setAutoplay(false);
    setBusy(null);
  }, []);

  const stop = useCallback(() => {
    setAutoplay(false);
    stopRef.current?.();
  }, []);

  const restart = useCallback(() => void begin(selection, 0), [begin, selection]);
  const back = useCallback(
    () => void begin(selection, Math.max(0, run.position - 1)),
    [begin, selection, run.position],
  );

  // Play: the next step, a pause to read it, and so on until the end or Stop.
  useEffect(() => {
    if (!autoplay || busy || run.done || failure || handedOff) return;
    const timer = setTimeout(() => void next(), run.position === 0 ? 200 : PLAY_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [autoplay, busy, run.done, run.position, failure, handedOff, next]);

  // The countdown before a delayed step.
  useEffect(() => {
    if (busy?.kind !== 'delay') return;
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, [busy]);

  // The seats and badges: the engine's own view of the sessions, refreshed while shown.
  useEffect(() => {
    if (run.recorded) return;
    let alive = true;
    const refresh = () =>
      engine.listSessions().then(
        (list) => {
          if (alive) setInfos((old) => (JSON.stringify(old) === JSON.stringify(list) ? old : list));
        },
        () => {},
      );
    void refresh();
    const timer = setInterval(refresh, POLL_MS);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [engine, run.recorded, run.generation]);

  // Time from Next to the step's output on screen, for the benchmark.
  useEffect(() => {
    const pending = measureRef.current;
    if (!pending || !run.reports[pending.step]) return;
    measureRef.current = null;
    performance.measure('seat-ledger:step', {
      start: pending.at,
      end: performance.now(),
      detail: { step: pending.step, waited: run.reports[pending.step]!.status === 'waiting' },
    });
  }, [run.reports]);

  // Tell tests and embedding pages where the run stands.
  const allHeld = run.reports.every(
    (r) => r?.status === 'completed' && r.claims.every((c) => c.held),
  );
  useEffect(() => {
    setRootData({
      step: String(run.position),
      of: String(run.steps.length),
      busy: busy ? busy.kind : 'no',
      recorded: run.recorded ? 'yes' : 'no',
    });
    if (embed && run.steps.length) {
      post({ type: 'seat-ledger:step', demo, step: run.position, of: run.steps.length });
      if (run.done && allHeld) post({ type: 'seat-ledger:solved', demo });
    }
  }, [
    run.position,
    run.steps.length,
    run.done,
    run.recorded,
    allHeld,
    busy,
    embed,
    demo,
    setRootData,
  ]);

  const choose = (next: Selection) => {
    setSelection(next);
    void begin(next, 0);
  };

  const handOff = () => {
    const playback = playbackRef.current;
    if (!(playback instanceof ScenarioPlay)) return;
    stop();
    setHandedOff(
      scenario.sessions.map((s, i) => ({
        label: s.name,
        applicationName: s.application_name ?? s.name,
        session: playback.session(i),
      })),
    );
  };

  const copyLink = () => {
    const url = new URL(location.href);
    url.search = scenarioSearch(scenario, selection, run.position);
    navigator.clipboard.writeText(url.href).then(
      () => setCopied('Link copied: it opens this demo at this step.'),
      () => setCopied(`Copying failed; the link is ${url.href}`),
    );
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const target = event.target as HTMLElement;
    if (target.closest('input, select, textarea, .console, [contenteditable="true"]')) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const keys: Record<string, () => void> = {
      ArrowRight: () => void next(),
      n: () => void next(),
      ArrowLeft: back,
      b: back,
      r: restart,
      p: () => (autoplay ? stop() : setAutoplay(true)),
    };
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };

  const current = run.position > 0 ? run.steps[run.position - 1] : undefined;
  const upcoming = run.steps[run.position];
  const pending = run.steps.filter((s) => run.reports[s.index]?.status === 'waiting');
  const options = chosenOptions(scenario, selection);
  const recordedBecause = options.find(({ option }) => option.recorded)?.option.recorded_because;
  const marks = useMemo(
    () =>
      new Set(Object.values(run.kept).filter((v): v is string => v !== null && /^\d+$/.test(v))),
    [run.kept],
  );

  const status = describeBusy(busy, now, run, upcoming, scenario);
  const playing = autoplay || busy?.kind === 'delay';

  return (
    <div className="player" onKeyDown={onKeyDown}>
      <header className="player-head">
        <h2 className="player-title">{scenario.title}</h2>
        <p>{scenario.summary}</p>
      </header>

      <AddressProblems problems={params.problems} />

      <Choices
        scenario={scenario}
        selection={selection}
        onChange={choose}
        disabled={busy?.kind === 'replay'}
      />

      <div
        className="player-controls"
        role="toolbar"
        aria-label="Steps"
        aria-controls={`${ids}-steps`}
      >
        <ActionButton
          onClick={back}
          disabled={run.position === 0 || busy?.kind === 'replay'}
          keys="ArrowLeft b"
        >
          Back
        </ActionButton>
        <ActionButton
          primary
          onClick={() => void next()}
          disabled={busy !== null || run.done || !!failure}
          keys="ArrowRight n"
        >
          Next
        </ActionButton>
        {/* One button for Play and Stop, so focus stays on it when it turns. */}
        <ActionButton
          onClick={playing ? stop : () => setAutoplay(true)}
          disabled={!playing && (run.done || !!failure)}
          keys="p"
        >
          {playing ? 'Stop' : 'Play'}
        </ActionButton>
        <ActionButton onClick={restart} keys="r">
          Restart
        </ActionButton>
        <span className="player-progress">
          Step {run.position} of {run.steps.length}
        </span>
      </div>
      <p className="player-keys">
        Keys: → or N next, ← or B back (replays from the start), P play or stop, R restart.
      </p>

      <p className="player-status" role="status" aria-live="polite">
        {failure ?? status}
      </p>

      <section className="player-narration" aria-label="What happens">
        {current ? (
          <>
            <p className="player-step-number">
              Step {current.index + 1}: {scenario.sessions[current.session]!.name}
            </p>
            <p>{current.say}</p>
          </>
        ) : (
          <p>Press Next to send the first step.</p>
        )}
        {upcoming && !run.done ? (
          <p className="player-upcoming">
            Next: {scenario.sessions[upcoming.session]!.name} sends{' '}
            <code>{firstLine(upcoming.sql)}</code>
            {upcoming.afterMs > 0 ? `, ${upcoming.afterMs / 1000} s later` : ''}.
          </p>
        ) : null}
        {run.done && !failure ? (
          <p className="player-lesson">
            <strong>What it shows:</strong> {scenario.lesson}
          </p>
        ) : null}
      </section>

      <p className="honesty">
        {run.recorded ? (
          <>
            Recorded on {recording ? shortVersion(recording.server) : 'PostgreSQL 18'}, not live:{' '}
            {recordedBecause}. Made by <code>npm run record</code> and checked against the server by
            the test suite.
          </>
        ) : (
          <>
            Live: each step runs on PostgreSQL 18 in your browser (PGlite), on sessions of your own.
          </>
        )}
      </p>

      <Quotes scenario={scenario} selection={selection} run={run} />

      {run.recorded ? null : <Seats scenario={scenario} run={run} infos={infos} pids={pids} />}

      <div className="player-lanes" id={`${ids}-steps`}>
        {scenario.sessions.map((session, i) => (
          <Lane
            key={session.name}
            scenario={scenario}
            index={i}
            run={run}
            info={run.recorded ? undefined : infos.find((x) => x.pid === pids[i])}
            recordedOn={run.recorded && recording ? shortVersion(recording.server) : null}
            marks={marks}
          />
        ))}
      </div>
      {pending.length > 0 ? (
        <p className="player-waiting">
          Still waiting:{' '}
          {pending
            .map((s) => `${scenario.sessions[s.session]!.name} (step ${s.index + 1})`)
            .join(', ')}
          .
        </p>
      ) : null}

      {scenario.tally ? (
        <Tally
          scenario={scenario}
          tally={tally}
          current={selection.choices[scenario.tally.choice]!}
        />
      ) : null}

      <div className="player-actions">
        <button type="button" onClick={copyLink}>
          Copy link to this step
        </button>
        {!run.recorded && !handedOff ? (
          <ActionButton onClick={handOff} disabled={busy !== null || run.steps.length === 0}>
            Try it yourself in the console
          </ActionButton>
        ) : null}
        <span role="status">{copied}</span>
      </div>

      {handedOff ? (
        <section className="player-console" aria-label="Your console">
          <h3>Your turn</h3>
          <p>
            These are the demo’s own sessions, in the state it reached: one tab each. Run anything;
            Restart above plays the demo again on fresh sessions.
          </p>
          <ConsoleBody {...context} adopt={handedOff} />
        </section>
      ) : null}
      {recordedEvents === undefined && isRecorded(scenario, selection) ? (
        <p className="demo-error">This choice has no recording yet.</p>
      ) : null}
    </div>
  );
}

/**
 * A button that says it is unavailable (aria-disabled) instead of being disabled, so it
 * keeps the keyboard focus while a step runs.
 */
function ActionButton({
  onClick,
  disabled = false,
  primary = false,
  keys,
  children,
}: {
  onClick: () => void;
  disabled?: boolean;
  primary?: boolean;
  keys?: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className={primary ? 'button-primary' : undefined}
      aria-disabled={disabled || undefined}
      aria-keyshortcuts={keys}
      onClick={() => {
        if (!disabled) onClick();
      }}
    >
      {children}
    </button>
  );
}

/** The tally the reader filled in on an earlier visit, if the browser kept it. */
function readTally(key: string): Record<string, number> {
  try {
    const saved = JSON.parse(localStorage.getItem(key) ?? '{}') as unknown;
    return saved && typeof saved === 'object' ? (saved as Record<string, number>) : {};
  } catch {
    return {};
  }
}

function post(message: Record<string, unknown>): void {
  if (window.parent !== window) window.parent.postMessage(message, '*');
}

function firstLine(sql: string): string {
  const line = sql.split('\n')[0]!;
  return line.length > 70 ? `${line.slice(0, 69)}…` : line;
}

/** The status line: what the player is doing, in plain words. */
function describeBusy(
  busy: Busy | null,
  now: number,
  run: RunView,
  upcoming: PlannedStep | undefined,
  scenario: Scenario,
): string {
  switch (busy?.kind) {
    case 'starting':
      return 'Setting up: opening the sessions and creating the tables…';
    case 'step':
      return 'Running the step…';
    case 'delay': {
      const left = Math.max(0, (busy.until - now) / 1000);
      const who = upcoming ? scenario.sessions[upcoming.session]!.name : 'the next session';
      return `${who} goes on in ${left.toFixed(1)} s. Stop holds it here.`;
    }
    case 'replay':
      return `Replaying from the start to step ${busy.to}${busy.seconds >= 1 ? `, about ${Math.ceil(busy.seconds)} s with its waits` : ''}…`;
    default:
      if (run.done) return `All ${run.steps.length} steps have run.`;
      return run.position === 0 ? 'Ready.' : `Step ${run.position} of ${run.steps.length} done.`;
  }
}

function Choices({
  scenario,
  selection,
  onChange,
  disabled,
}: {
  scenario: Scenario;
  selection: Selection;
  onChange: (s: Selection) => void;
  disabled: boolean;
}) {
  if (scenario.choices.length === 0 && scenario.parameters.length === 0) return null;
  return (
    <form className="player-choices" onSubmit={(e) => e.preventDefault()}>
      {scenario.choices.map((choice) => {
        const main = choice.options.filter((o) => !o.aside);
        const aside = choice.options.filter((o) => o.aside);
        return (
          <fieldset key={choice.id}>
            <legend>{choice.label}</legend>
            {[...main, ...aside].map((option) => (
              <label key={option.value} className={option.aside ? 'aside' : undefined}>
                <input
                  type="radio"
                  name={choice.id}
                  value={option.value}
                  checked={selection.choices[choice.id] === option.value}
                  disabled={disabled}
                  onChange={() =>
                    onChange({
                      ...selection,
                      choices: { ...selection.choices, [choice.id]: option.value },
                    })
                  }
                />{' '}
                {option.label}
                {option.recorded ? <span className="tag"> recorded</span> : null}
                {option.aside ? <span className="tag"> not in the article</span> : null}
              </label>
            ))}
          </fieldset>
        );
      })}
      {scenario.parameters.map((p) => (
        <ParameterField
          key={`${p.id}=${selection.parameters[p.id]}`}
          parameter={p}
          selection={selection}
          onChange={onChange}
          disabled={disabled}
        />
      ))}
    </form>
  );
}

function ParameterField({
  parameter,
  selection,
  onChange,
  disabled,
}: {
  parameter: Scenario['parameters'][number];
  selection: Selection;
  onChange: (s: Selection) => void;
  disabled: boolean;
}) {
  const id = useId();
  const value = selection.parameters[parameter.id] ?? parameter.default;
  const [draft, setDraft] = useState(String(value));
  const commit = () => {
    const n = Number(draft);
    const clamped = Number.isFinite(n)
      ? Math.min(parameter.max, Math.max(parameter.min, n))
      : value;
    setDraft(String(clamped));
    if (clamped !== value)
      onChange({ ...selection, parameters: { ...selection.parameters, [parameter.id]: clamped } });
  };
  return (
    <p className="player-parameter">
      <label htmlFor={id}>{parameter.label}</label>{' '}
      <input
        id={id}
        type="number"
        min={parameter.min}
        max={parameter.max}
        step={parameter.step}
        value={draft}
        disabled={disabled}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit();
        }}
      />{' '}
      {parameter.unit}{' '}
      <span className="hint">
        ({parameter.min}–{parameter.max}; a new value restarts the demo)
      </span>
    </p>
  );
}

function Quotes({
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
    <aside className="player-quotes" aria-label="Figures quoted from elsewhere">
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

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}

function Seats({
  scenario,
  run,
  infos,
  pids,
}: {
  scenario: Scenario;
  run: RunView;
  infos: SessionInfo[];
  pids: number[];
}) {
  const svgRef = useRef<SVGSVGElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(600);
  useEffect(() => {
    const wrap = wrapRef.current;
    if (!wrap || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setWidth(Math.max(160, wrap.clientWidth)));
    observer.observe(wrap);
    return () => observer.disconnect();
  }, []);
  const strip = useMemo<LedgerStrip>(() => {
    const seats: SeatedSession[] = scenario.sessions.flatMap((s, i) => {
      const info = infos.find((x) => x.pid === pids[i]);
      if (!info) return [];
      return [
        {
          pid: info.pid,
          name: s.name,
          role: 'other',
          superuser: info.role === 'postgres',
          state: info.state,
          xid: info.xid,
          xactAgeMs: info.xactStart ? 0 : null,
          waiting: info.waitEventType ? `${info.waitEventType}/${info.waitEvent ?? ''}` : null,
          blockedByPid: info.blockedByPid,
          emulated: info.emulated,
        },
      ];
    });
    const cutoff = lastCutoff(run);
    return {
      seats,
      horizon: cutoff
        ? { cutoff, holderPid: seats.find((s) => s.xid === cutoff)?.pid ?? null }
        : null,
    };
  }, [scenario, infos, pids, run]);
  useEffect(() => {
    if (svgRef.current) drawLedgerStrip(svgRef.current, strip, { width });
  }, [strip, width]);
  return (
    <figure className="player-seats" ref={wrapRef}>
      <svg ref={svgRef} />
      <figcaption>
        Seats are connections; a ledger page is an open transaction, with the XID it holds. Live
        from the session layer. Modelled: these sessions share PGlite’s one backend, and a snapshot
        held without an XID (a page marked “snapshot ~N”) is stood in for by a parked transaction
        with XID N.
      </figcaption>
    </figure>
  );
}

/** The last removable cutoff VACUUM printed in this run. */
function lastCutoff(run: RunView): string | null {
  for (let i = run.reports.length - 1; i >= 0; i--) {
    const r = run.reports[i];
    if (r?.status !== 'completed') continue;
    for (const n of r.output.notices) {
      const m = /removable cutoff: (\d+)/.exec(n.message);
      if (m) return m[1]!;
    }
  }
  return null;
}

function Lane({
  scenario,
  index,
  run,
  info,
  recordedOn,
  marks,
}: {
  scenario: Scenario;
  index: number;
  run: RunView;
  info: SessionInfo | undefined;
  recordedOn: string | null;
  marks: ReadonlySet<string>;
}) {
  const session = scenario.sessions[index]!;
  const sent = run.steps.filter((s) => s.session === index && s.index < run.position);
  const latest = sent.at(-1);
  const earlier = sent.slice(0, -1);
  const appName = session.application_name ?? session.name;
  return (
    <section className="lane" aria-label={`Session ${session.name}`}>
      <header className="lane-head">
        <h3>{session.name}</h3>
        {session.role_in_story ? <p className="lane-role">{session.role_in_story}</p> : null}
        <p className="lane-badge">
          {recordedOn ? `recorded on ${recordedOn}` : describeSession(info)}
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
      </p>
      <pre className="step-sql">{step.sql}</pre>
      {!report ? (
        <p className="step-state">Sent…</p>
      ) : report.status === 'waiting' ? (
        <p className="step-state waiting">Waiting: its statement has not finished.</p>
      ) : report.status === 'refused' ? (
        <div className="console-limit" role="region" aria-label="Limit of the in-browser engine">
          <p>
            Not expressible in the browser: {report.reason} This is a limit of the in-browser
            engine, not a PostgreSQL error.
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

function Tally({
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
  return (
    <section className="player-tally" aria-label={t.question}>
      <h3>{t.question}</h3>
      <p>Your results fill in as you run each state; the article’s answer stands beside yours.</p>
      <div className="table-scroll" tabIndex={0} role="group" aria-label="Results so far">
        <table>
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">Your run</th>
              <th scope="col">The article</th>
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
                  <td>{o.quoted ? o.quoted.text : 'not covered'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
