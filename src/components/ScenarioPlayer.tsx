import {
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
} from 'react';
import type { SessionInfo } from '../engine/session-info';
import {
  chosenOptions,
  isRecorded,
  planCountdown,
  planSteps,
  type PlannedStep,
  type Selection,
} from '../scenario/plan';
import { ScenarioPlay, type Playback, type StepReport } from '../scenario/play';
import { RecordedPlay } from '../scenario/recorded-play';
import { recordedRun, shortVersion, type Recording } from '../scenario/recording';
import type { Scenario } from '../scenario/schema';
import { ConsoleBody, type AdoptedSession } from './Console';
import { AddressProblems } from './AddressProblems';
import { DemoShell, type DemoContext } from './DemoShell';
import { ActionButton } from './player/ActionButton';
import { Choices } from './player/Choices';
import { Boxes } from './player/Boxes';
import { Code } from './player/Code';
import { Timeline } from './player/Timeline';
import { Decide } from './player/Decide';
import { Lane } from './player/Lane';
import { Quotes } from './player/Quotes';
import { Seats } from './player/Seats';
import { readTally, Tally } from './player/Tally';
import {
  chainedAfter,
  describeBusy,
  emptyRun,
  hasSteps,
  firstLine,
  plainError,
  sends,
  Stopped,
  type Busy,
  type RunView,
} from './player/words';
import { readScenarioParams, scenarioSearch } from './scenario-params';
import { postToParent } from './embed-messages';
import '../styles/player.css';

export interface ScenarioPlayerProps {
  /** The demo's id: its URL, and `data-demo` on its root. */
  demo: string;
  scenario: Scenario;
  /** PostgreSQL 18's output for the options PGlite cannot show (content/recordings/). */
  recording?: Recording;
  embed?: boolean;
  /** Shows the scenario's title as a heading (not on the demo's own page, which has one). */
  heading?: boolean;
  /** Keeps the address bar on the reader's choices and step, so a reload comes back there. */
  followUrl?: boolean;
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

function PlayerBody({
  demo,
  scenario,
  recording,
  embed = false,
  heading = true,
  followUrl = false,
  context,
}: ScenarioPlayerProps & { context: DemoContext }) {
  const { engine, setRootData, announceReady } = context;
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
  /** Every pid the seats have shown: one seen and now missing has ended. */
  const [seen, setSeen] = useState<ReadonlySet<number>>(() => new Set());
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
  /** For steps still waiting when the console took over: resolves its tab's wait. */
  const waitersRef = useRef(new Map<number, () => void>());
  const [pids, setPids] = useState<number[]>([]);

  const recordedEvents = useMemo(
    () =>
      isRecorded(scenario, selection) ? recordedRun(recording, scenario, selection) : undefined,
    [recording, scenario, selection],
  );

  /** Waits `ms` before a step, showing a countdown; Stop ends the wait and the step is not sent. */
  const sleep = useCallback((ms: number, before: PlannedStep) => {
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
      if (busyRef.current?.kind !== 'replay') {
        setNow(Date.now());
        setBusy({ kind: 'delay', until: Date.now() + ms, ms, before });
      }
    });
  }, []);

  const report = useCallback(
    (generation: number, r: StepReport, playback: Playback, selected: Selection) => {
      if (generation !== generationRef.current) return;
      // The server's own clock (a timeout) starts when the countdown's step has answered.
      const countdown = planCountdown(scenario, selected, playback.steps);
      const starts =
        countdown?.step === r.step.index &&
        r.status === 'completed' &&
        playback instanceof ScenarioPlay;
      setRun((view) => {
        if (view.generation !== generation) return view;
        const reports = [...view.reports];
        reports[r.step.index] = r;
        return {
          ...view,
          reports,
          position: playback.position,
          kept: { ...playback.kept },
          ...(starts ? { deadline: Date.now() + countdown.ms } : {}),
        };
      });
      if (starts) setNow(Date.now());
      // A modelled reconnect gave a session a new backend: its lane follows the new pid.
      if (r.status === 'modelled' && r.step.model?.reconnect && playback instanceof ScenarioPlay) {
        const live = playback;
        setPids(scenario.sessions.map((_s, i) => live.session(i).pid));
      }
      // A statement the console's tab was waiting for has answered.
      if (r.status !== 'waiting') {
        waitersRef.current.get(r.step.index)?.();
        waitersRef.current.delete(r.step.index);
      }
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
    [scenario, tallyKey],
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
            const from = playback.position;
            await playback.next();
            if (generation !== generationRef.current) return;
            setRun((view) => ({ ...view, from, position: playback.position, done: playback.done }));
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
        // A recorded run opens no session: the demo is ready once it is on screen.
        announceReady();
      } catch (error) {
        if (generation !== generationRef.current) return;
        setBusy(null);
        if (!(error instanceof Stopped)) setFailure(plainError(error));
      }
    },
    [announceReady, engine, recording, report, scenario, sleep],
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
    const from = playback.position;
    setRun((view) => ({ ...view, from }));
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
  // Back undoes the latest Next, with the steps chained to it.
  const back = useCallback(
    () => void begin(selection, run.from < run.position ? run.from : Math.max(0, run.position - 1)),
    [begin, selection, run.from, run.position],
  );

  // Play: the next step, a pause to read it, and so on until the end or Stop.
  useEffect(() => {
    if (!autoplay || busy || run.done || failure || handedOff) return;
    const timer = setTimeout(() => void next(), run.position === 0 ? 200 : PLAY_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [autoplay, busy, run.done, run.position, failure, handedOff, next]);

  // The countdowns: before a delayed step, and to the server's deadline once it is set.
  const ticking = busy?.kind === 'delay' || (run.deadline !== null && now < run.deadline + 1000);
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, [ticking, run.deadline]);

  // The seats and badges: the engine's own view of the sessions, refreshed while shown.
  useEffect(() => {
    if (run.recorded) return;
    let alive = true;
    const refresh = () =>
      engine.listSessions().then(
        (list) => {
          if (!alive) return;
          setInfos((old) => (JSON.stringify(old) === JSON.stringify(list) ? old : list));
          setSeen((old) =>
            list.every((x) => old.has(x.pid)) ? old : new Set([...old, ...list.map((x) => x.pid)]),
          );
        },
        () => {},
      );
    void refresh();
    const timer = setInterval(refresh, POLL_MS);
    return () => {
      alive = false;
      clearInterval(timer);
    };
    // Each report refreshes them at once: a step's effect shows with its output.
  }, [engine, run.recorded, run.generation, run.reports]);

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
      postToParent({ type: 'seat-ledger:step', demo, step: run.position, of: run.steps.length });
      if (run.done && allHeld) postToParent({ type: 'seat-ledger:solved', demo });
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

  // The address follows the reader, so a reload or a shared address comes back here.
  useEffect(() => {
    if (!followUrl || busy?.kind === 'starting' || busy?.kind === 'replay') return;
    const search = scenarioSearch(scenario, selection, run.position, location.search);
    if (search === location.search) return;
    const url = new URL(location.href);
    url.search = search;
    history.replaceState(history.state, '', url);
  }, [followUrl, busy, scenario, selection, run.position]);

  // The step just sent comes into view (the lanes can be taller than the screen).
  const rootRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (run.position === 0 || busy?.kind === 'replay' || busy?.kind === 'starting') return;
    rootRef.current
      ?.querySelector(`.step-box[data-step="${run.position}"]`)
      ?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [run.position, busy]);

  const choose = (next: Selection) => {
    setSelection(next);
    void begin(next, 0);
  };

  const handOff = () => {
    const playback = playbackRef.current;
    if (!(playback instanceof ScenarioPlay)) return;
    stop();
    // Steps still waiting go on being watched: each answers in its lane when it completes,
    // and its console tab stays busy until then.
    playback.watchWaiting();
    const lanes = scenario.sessions.map((_s, i) => i).filter((i) => hasSteps(run, i));
    setHandedOff(
      lanes.map((i) => {
        const s = scenario.sessions[i]!;
        const waiting = run.steps.find(
          (step) => step.session === i && run.reports[step.index]?.status === 'waiting',
        );
        const session = playback.session(i);
        return {
          label: s.name,
          applicationName: s.application_name ?? s.name,
          session,
          state: infos.find((x) => x.pid === session.pid)?.state,
          ...(waiting
            ? {
                pending: {
                  what: `the demo's step ${waiting.index + 1}`,
                  done: new Promise<void>((resolve) =>
                    waitersRef.current.set(waiting.index, resolve),
                  ),
                },
              }
            : {}),
        };
      }),
    );
  };

  // The console's Restart: the demo again from the start, and the focus back on Next.
  const restartFromConsole = useCallback(async () => {
    await begin(selection, 0);
    rootRef.current?.querySelector<HTMLElement>('.player-controls .button-primary')?.focus();
  }, [begin, selection]);

  // The console, once it is there, takes the focus: its heading is read first.
  const consoleHeadingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (handedOff) consoleHeadingRef.current?.focus();
  }, [handedOff]);

  const copyLink = () => {
    const url = new URL(location.href);
    url.search = scenarioSearch(scenario, selection, run.position, location.search);
    navigator.clipboard.writeText(url.href).then(
      () => setCopied('Link copied: it opens this demo at this step.'),
      () => setCopied(`Copying failed; the link is ${url.href}`),
    );
  };

  const keyAction = useCallback(
    (key: string): (() => void) | undefined =>
      ({
        ArrowRight: () => void next(),
        n: () => void next(),
        ArrowLeft: back,
        b: back,
        r: restart,
        p: () => (autoplay ? stop() : setAutoplay(true)),
      })[key],
    [next, back, restart, autoplay, stop],
  );
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const target = event.target as HTMLElement;
    if (target.closest('input, select, textarea, .console, [contenteditable="true"]')) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const action = keyAction(event.key);
    if (!action) return;
    event.preventDefault();
    action();
  };

  // Presenter mode: the keys work wherever the focus is not in a control, and a
  // presentation clicker's keys (Page Down, Page Up) and Space step too.
  useEffect(() => {
    if (!context.present) return;
    const clicker: Record<string, string> = {
      ' ': 'ArrowRight',
      PageDown: 'ArrowRight',
      PageUp: 'ArrowLeft',
    };
    const onKey = (event: globalThis.KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      const control = 'input, select, textarea, button, a, .console, [contenteditable="true"]';
      if (target?.closest?.(control)) return;
      const action = keyAction(clicker[event.key] ?? event.key);
      if (!action) return;
      event.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [context.present, keyAction]);

  // What the latest Next sent: one step, or one and the steps chained to it.
  const narrated = run.steps.slice(Math.min(run.from, run.position - 1), run.position);
  const upcoming = run.steps[run.position];
  const countdown = run.recorded ? null : planCountdown(scenario, selection, run.steps);
  const options = chosenOptions(scenario, selection);
  const recordedBecause = options.find(({ option }) => option.recorded)?.option.recorded_because;
  const marks = useMemo(
    () =>
      // Numbers worth pointing at (XIDs, cutoffs), not the 1s and 0s every table holds.
      new Set(Object.values(run.kept).filter((v): v is string => v !== null && /^\d{3,}$/.test(v))),
    [run.kept],
  );

  /** Session `i` was open and is no longer (the server ended it, or a modelled process died). */
  const ended = (i: number) =>
    !run.recorded && seen.has(pids[i]!) && !infos.some((x) => x.pid === pids[i]);
  const status = describeBusy(busy, now, run, scenario);
  const playing = autoplay || busy?.kind === 'delay';

  return (
    <div className="player" onKeyDown={onKeyDown} ref={rootRef}>
      <header className="player-head">
        {heading ? <h2 className="player-title">{scenario.title}</h2> : null}
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
        {context.present ? ' Space and Page Down step too.' : ''}
      </p>

      <p className="player-status" role="status" aria-live="polite">
        {failure ?? status}
      </p>

      <section className="player-narration" aria-label={`What happens: ${scenario.title}`}>
        {narrated.length ? (
          narrated.map((step) => (
            <div key={step.index} className="player-said">
              <p className="player-step-number">
                Step {step.index + 1}:{' '}
                {step.model ? `${step.model.by} (modelled)` : scenario.sessions[step.session]!.name}
              </p>
              <p>{step.say}</p>
            </div>
          ))
        ) : (
          <p>Press Next to send the first step.</p>
        )}
        {upcoming && !run.done ? (
          <p className="player-upcoming">
            Next:{' '}
            {upcoming.model ? (
              `${upcoming.model.by} acts (modelled)`
            ) : (
              <>
                {sends(scenario.sessions[upcoming.session]!.name)}{' '}
                <code>{firstLine(upcoming.sql)}</code>
              </>
            )}
            {upcoming.afterMs > 0 ? `, ${upcoming.afterMs / 1000} s after you press Next` : ''}
            {chainedAfter(run.steps, upcoming)}.
          </p>
        ) : null}
        {countdown && run.deadline !== null ? (
          <p className="player-countdown" role="timer" aria-live="off">
            {now < run.deadline
              ? `By the server's clock, ${countdown.says} in ${((run.deadline - now) / 1000).toFixed(1)} s.`
              : `Time is up: by now ${countdown.says}.`}{' '}
            <span className="hint">(Timed in this page; the server keeps its own time.)</span>
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
            <span className="state-badge" data-state="recorded">
              Recorded on {recording ? shortVersion(recording.server) : 'PostgreSQL 18'}
            </span>
            , not live: {recordedBecause}. Made by <code>npm run record</code> and checked against
            the server by the test suite.
          </>
        ) : (
          <>
            Live: each step runs on PostgreSQL 18 in your browser (PGlite), on sessions of your own.
            {scenario.modelled ? (
              <>
                {' '}
                <strong className="state-badge" data-state="modelled">
                  Modelled:
                </strong>{' '}
                {scenario.modelled}
              </>
            ) : null}
          </>
        )}
      </p>

      {scenario.picture ? (
        <Boxes
          scenario={scenario}
          latest={run.steps[run.position - 1]}
          chips={scenario.sessions.map((session, i) => ({
            name: session.name,
            info: run.recorded ? undefined : infos.find((x) => x.pid === pids[i]),
            ended: ended(i),
          }))}
        />
      ) : null}

      {scenario.code ? (
        <Code scenario={scenario} selection={selection} shown={run.steps.slice(0, run.position)} />
      ) : null}

      {scenario.timeline ? <Timeline spec={scenario.timeline} /> : null}

      <Quotes scenario={scenario} selection={selection} run={run} />

      {run.recorded ? null : <Seats scenario={scenario} run={run} infos={infos} pids={pids} />}

      <div className="player-lanes" id={`${ids}-steps`}>
        {scenario.sessions.map((session, i) =>
          // A session this choice sends nothing to has no lane.
          hasSteps(run, i) ? (
            <Lane
              key={session.name}
              scenario={scenario}
              index={i}
              run={run}
              info={run.recorded ? undefined : infos.find((x) => x.pid === pids[i])}
              ended={ended(i)}
              recordedOn={run.recorded && recording ? shortVersion(recording.server) : null}
              marks={marks}
            />
          ) : null,
        )}
      </div>

      {scenario.decide ? <Decide spec={scenario.decide} /> : null}
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
        <section className="player-console" aria-labelledby={`${ids}-console`}>
          <h3 id={`${ids}-console`} ref={consoleHeadingRef} tabIndex={-1}>
            Your turn
          </h3>
          <p>
            These are the demo’s own sessions, in the state it reached: one tab each. Run anything.
            Restart, here or above, plays the demo again on fresh sessions.
          </p>
          <ConsoleBody {...context} adopt={handedOff} onReset={restartFromConsole} />
        </section>
      ) : null}
      {recordedEvents === undefined && isRecorded(scenario, selection) ? (
        <p className="demo-error">This choice has no recording yet.</p>
      ) : null}
    </div>
  );
}
