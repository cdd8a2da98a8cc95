import { useCallback, useEffect, useId, useRef, useState } from 'react';
import {
  EngineGoneError,
  NotExpressibleError,
  PgError,
  type QueryResult,
  type Session,
} from '../engine/types';
import { maxTicksPerFrame, ticksOwed } from '../sim/clock';
import { restoreCounterSim, startCounterSim, type CounterSim } from '../sim/counter-sim';
import type { SimEvent } from '../sim/events';
import type { Observation } from '../sim/observe';
import { clerkTables } from '../sim/clerk';
import { horizonSql } from '../sim/queries';
import { workerName } from '../sim/worker';
import { eventSentence } from './counter-events';
import { settingLimits, type CounterSettings, type NumberKey, type Shape } from '../sim/settings';
import { describeChange } from '../viz/counter-describe';
import type { CounterPicture } from '../viz/counter-picture';
import { drawCounter } from '../viz/counter';
import '../viz/counter.css';
import '../styles/counter-page.css';
import { counterPicture } from './counter-picture-map';
import { momentSearch, readCounterParams, type CounterParams } from './counter-params';
import { AddressProblems } from './AddressProblems';
import { NoticeList, ResultList } from './Output';
import { sitePath } from './site-url';
import { DemoShell, type DemoContext } from './DemoShell';

/** How often the picture asks the engine for pg_stat_activity and dead tuples. */
const OBSERVE_MS = 400;
/** The picture is redrawn at most this often while time moves. */
const SHOW_MS = 200;
/** A replay at full speed lets the page draw a frame at least this often. */
const REPLAY_FRAME_MS = 50;
/** A screen reader hears what changed at most this often. */
const ANNOUNCE_MS = 5000;
const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
/** The table the reader's VACUUM button files: site traffic keeps updating its rows. */
const VACUUM_TABLE = clerkTables[0];
const VACUUM_SQL = `VACUUM (VERBOSE) ${VACUUM_TABLE}`;

/** The worker shapes, in the reader's words. */
const SHAPES: readonly { value: Shape; label: string; help: string }[] = [
  {
    value: 'hold',
    label: 'hold the transaction',
    help: 'Claims a job and keeps that transaction open while it works: its seat is idle in transaction, holding an XID, for the whole job.',
  },
  {
    value: 'claim-close',
    label: 'claim → close → work → record',
    help: 'Claims a job and commits at once, works holding nothing, then records the result in a second short transaction.',
  },
];

/** A field's bounds: the setting's own limits. */
const limitsOf = (name: NumberKey) => ({
  min: settingLimits[name].min,
  max: settingLimits[name].max,
});

/** The bank-counter demo (`counter`): workers and API processes on real sessions. */
/** A demo that explains part of the picture, to link to from it. */
export interface RelatedDemo {
  id: string;
  title: string;
}

export function CounterDemo({
  embed = false,
  related = [],
}: {
  embed?: boolean;
  /** The demos that take the picture's parts in turn, listed under "What you are looking at". */
  related?: RelatedDemo[];
}) {
  return (
    <DemoShell demo="counter" embed={embed}>
      {(context) => <CounterBody {...context} related={related} />}
    </DemoShell>
  );
}

export default CounterDemo;

/** Output of one of the reader's buttons, straight from PostgreSQL. */
type ReaderOutput = { title: string; result: QueryResult } | { title: string; error: string };

function nextFrame(): Promise<void> {
  return new Promise((resolve) => {
    // A hidden tab gets no animation frames; time then moves in coarser steps.
    if (document.hidden) setTimeout(resolve, 250);
    else requestAnimationFrame(() => resolve());
  });
}

function plainError(error: unknown): string {
  if (error instanceof PgError) return `PostgreSQL said: ${error.message} (SQLSTATE ${error.code})`;
  if (error instanceof NotExpressibleError) return `Not expressible here: ${error.message}`;
  if (error instanceof EngineGoneError) return error.message;
  return `Something went wrong in the demo: ${error instanceof Error ? error.message : String(error)}`;
}

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function useReducedMotion(): boolean {
  const [reduced, setReduced] = useState(
    () =>
      typeof matchMedia !== 'undefined' && matchMedia('(prefers-reduced-motion: reduce)').matches,
  );
  useEffect(() => {
    if (typeof matchMedia === 'undefined') return;
    const query = matchMedia('(prefers-reduced-motion: reduce)');
    const onChange = () => setReduced(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return reduced;
}

function CounterBody({ engine, setRootData, related }: DemoContext & { related: RelatedDemo[] }) {
  const ids = useId();
  const [params] = useState<CounterParams>(() => readCounterParams(location.search));
  const settingsRef = useRef<CounterSettings>(params.settings);
  const momentRef = useRef(params.moment);
  const [runKey, setRunKey] = useState(0);
  const simRef = useRef<CounterSim | null>(null);
  const stoppingRef = useRef<Promise<void>>(Promise.resolve());
  const observationRef = useRef<Observation | null>(null);
  const [phase, setPhase] = useState<'starting' | 'replaying' | 'running' | 'stopped'>('starting');
  const [replay, setReplay] = useState<{ atMs: number; targetMs: number } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [paused, setPaused] = useState(params.paused);
  const [speed, setSpeed] = useState(params.settings.speed);
  const [workers, setWorkers] = useState(params.settings.workers);
  const [api, setApi] = useState(params.settings.api);
  const [shape, setShape] = useState<Shape>(params.settings.shape);
  const [connections, setConnections] = useState(params.settings.connections);
  const [uploadRate, setUploadRate] = useState(params.settings.uploadRate);
  const [pool, setPool] = useState({
    poolSize: params.settings.poolSize,
    maxOverflow: params.settings.maxOverflow,
    poolPrePing: params.settings.poolPrePing,
  });
  const [victim, setVictim] = useState(workerName(1));
  const [happenings, setHappenings] = useState<string[]>([]);
  const [picture, setPicture] = useState<CounterPicture | null>(null);
  const [simMs, setSimMs] = useState(0);
  const [announcement, setAnnouncement] = useState('');
  const [output, setOutput] = useState<ReaderOutput | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [link, setLink] = useState<string | null>(null);
  const readerRef = useRef<Promise<Session> | null>(null);
  const readerPids = useRef(new Set<number>());
  const svgRef = useRef<SVGSVGElement>(null);
  const frameRef = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(640);
  const reducedMotion = useReducedMotion();
  const announced = useRef<{ at: number; picture: CounterPicture | null }>({
    at: 0,
    picture: null,
  });

  const show = useCallback((sim: CounterSim) => {
    const view = sim.view();
    setSimMs(view.atMs);
    const next = counterPicture(view, observationRef.current, readerPids.current);
    if (next) setPicture(next);
  }, []);

  // Start (or restart, or come back to a moment), then drive the clock in real time. A
  // replay to a moment is cancelled with the run (`controller`), and the next run waits
  // for this one to have closed its sessions, so two sims never share the engine.
  useEffect(() => {
    let cancelled = false;
    const controller = new AbortController();
    observationRef.current = null;
    const moment = momentRef.current;
    momentRef.current = null;
    const onEvent = (event: SimEvent) => {
      const sentence = eventSentence(event);
      if (sentence && !cancelled) setHappenings((list) => [sentence, ...list].slice(0, 6));
    };
    let sim: CounterSim | null = null;
    const run = (async () => {
      // The last run's sessions leave their seats before this run asks for any.
      await stoppingRef.current;
      if (cancelled) return;
      if (moment) {
        setPhase('replaying');
        setReplay({ atMs: 0, targetMs: moment.atMs });
        let drawnAt = performance.now();
        sim = await restoreCounterSim(
          engine,
          moment,
          async (atMs, targetMs) => {
            setReplay({ atMs, targetMs });
            // The replay runs at full speed on this thread: it gives the page a frame
            // whenever one is due, so the progress bar draws and the page stays responsive.
            if (performance.now() - drawnAt >= REPLAY_FRAME_MS) {
              await nextFrame();
              drawnAt = performance.now();
            }
          },
          { onEvent, signal: controller.signal },
        );
        setReplay(null);
      } else {
        setPhase('starting');
        sim = await startCounterSim(engine, settingsRef.current, { onEvent });
        if (params.paused && runKey === 0) sim.pause();
      }
      if (cancelled) return;
      simRef.current = sim;
      setPaused(sim.state.clock.paused);
      setSpeed(sim.state.clock.speed);
      observationRef.current = await sim.observe();
      show(sim);
      setPhase('running');
      let last = performance.now();
      let carry = 0;
      let observedAt = last;
      let shownAt = last;
      while (!cancelled) {
        await nextFrame();
        const now = performance.now();
        const { ticks, carryMs } = ticksOwed(sim.state.clock, now - last, carry, maxTicksPerFrame);
        last = now;
        carry = carryMs;
        for (let i = 0; i < ticks && !cancelled && !sim.state.clock.paused; i++) await sim.step();
        if (cancelled) break;
        if (now - observedAt >= OBSERVE_MS && !sim.state.clock.paused) {
          observationRef.current = await sim.observe();
          observedAt = performance.now();
        }
        // Ledger pages age with every tick, but five redraws a second show that well and
        // leave the frames between them to the browser.
        if (ticks > 0 && now - shownAt >= SHOW_MS) {
          show(sim);
          shownAt = now;
        }
      }
    })();
    run.catch((error: unknown) => {
      if (cancelled) return;
      setReplay(null);
      setPhase('stopped');
      setFailure(plainError(error));
    });
    return () => {
      cancelled = true;
      controller.abort();
      simRef.current = null;
      // Stopped once this run has let go: a replay cancelled part-way has closed its own.
      stoppingRef.current = run
        .then(
          () => sim?.stop(),
          () => (controller.signal.aborted ? undefined : sim?.stop()),
        )
        .catch(() => undefined);
    };
  }, [engine, runKey, params.paused, show]);

  // The picture: D3 draws into the svg React owns.
  useEffect(() => {
    if (picture && svgRef.current) {
      drawCounter(svgRef.current, picture, { width, reducedMotion, idPrefix: `${ids}-counter` });
    }
  }, [picture, width, reducedMotion, ids]);

  useEffect(() => {
    const frame = frameRef.current;
    if (!frame || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setWidth(Math.max(280, frame.clientWidth)));
    observer.observe(frame);
    return () => observer.disconnect();
  }, []);

  // What changed, in words, for a screen reader: throttled, and only when something did.
  useEffect(() => {
    if (!picture) return;
    const now = performance.now();
    if (now - announced.current.at < ANNOUNCE_MS) return;
    const text = describeChange(announced.current.picture, picture);
    announced.current = { at: now, picture };
    if (text) setAnnouncement(text);
  }, [picture]);

  useEffect(() => {
    setRootData({ 'sim-ms': String(simMs), phase });
  }, [simMs, phase, setRootData]);

  /** Starts the counter again with the controls' settings and `change`. */
  const restartWith = (change: Partial<CounterSettings> = {}) => {
    settingsRef.current = {
      ...settingsRef.current,
      ...pool,
      workers,
      api,
      shape,
      connections,
      speed,
      uploadRate,
      ...change,
    };
    setOutput(null);
    setLink(null);
    setFailure(null);
    setHappenings([]);
    setRunKey((k) => k + 1);
  };

  const readerSession = (): Promise<Session> => {
    readerRef.current ??= engine.openSession({ applicationName: 'reader' }).then((session) => {
      readerPids.current.add(session.pid);
      return session;
    });
    readerRef.current.catch(() => (readerRef.current = null));
    return readerRef.current;
  };

  const runReader = async (title: string, sql: string) => {
    setBusy(title);
    setOutput(null);
    try {
      const session = await readerSession();
      setOutput({ title, result: await session.query(sql) });
    } catch (error) {
      if (error instanceof EngineGoneError) readerRef.current = null;
      setOutput({ title, error: plainError(error) });
    } finally {
      setBusy(null);
    }
  };

  const copyLink = async () => {
    const sim = simRef.current;
    if (!sim) return;
    const url = `${location.origin}${location.pathname}${momentSearch(sim.checkpoint())}`;
    setLink(url);
    await navigator.clipboard?.writeText(url).catch(() => undefined);
  };

  const running = phase === 'running';
  const askable = running && busy === null;
  /** Runs `sql` for a button that stays enabled (and focused) while it runs. */
  const ask = (title: string, sql: string) => {
    if (askable) void runReader(title, sql);
  };
  const restartNote = `${ids}-restarts`;
  return (
    <div className="counter-demo">
      <AddressProblems problems={params.problems} />
      <form
        className="counter-panel"
        aria-label="Counter settings"
        onSubmit={(event) => event.preventDefault()}
      >
        <fieldset className="counter-group">
          <legend>Who uses the database</legend>
          <NumberField
            label="Workers"
            help="Background processes that take jobs from the jobs table and run them, one job at a time each."
            {...limitsOf('workers')}
            value={workers}
            onChange={(n) => {
              setWorkers(n);
              void simRef.current?.setWorkers(n);
            }}
          />
          <NumberField
            label="API processes"
            help="Web processes that take uploads: each upload writes an upload row and its job row in one transaction."
            {...limitsOf('api')}
            value={api}
            onChange={(n) => {
              setApi(n);
              void simRef.current?.setApi(n);
            }}
          />
          <NumberField
            label="Uploads per second"
            help="How fast uploads reach the API processes (in simulated time): how fast jobs join the queue, and how busy the pools are."
            {...limitsOf('uploadRate')}
            step={0.5}
            value={uploadRate}
            onChange={(n) => {
              setUploadRate(n);
              void simRef.current?.setUploadRate(n);
            }}
          />
        </fieldset>
        <fieldset className="counter-group" aria-describedby={restartNote}>
          <legend>How each worker holds its job</legend>
          <p className="counter-help" id={restartNote}>
            A change here, or to the pool, restarts the counter.
          </p>
          <fieldset className="counter-choices">
            <legend>Worker shape</legend>
            {SHAPES.map(({ value, label, help }) => (
              <div className="counter-choice" key={value}>
                <input
                  type="radio"
                  id={`${ids}-shape-${value}`}
                  name={`${ids}-shape`}
                  value={value}
                  checked={shape === value}
                  aria-describedby={`${ids}-shape-${value}-help`}
                  onChange={() => {
                    setShape(value);
                    restartWith({ shape: value });
                  }}
                />
                <label htmlFor={`${ids}-shape-${value}`}>{label}</label>
                <p className="counter-help" id={`${ids}-shape-${value}-help`}>
                  {help}
                </p>
              </div>
            ))}
          </fieldset>
          <div className="counter-field">
            <label htmlFor={`${ids}-connections`}>Connections per worker</label>
            <select
              id={`${ids}-connections`}
              aria-describedby={`${ids}-connections-help`}
              value={connections}
              onChange={(e) => {
                const n = Number(e.target.value);
                setConnections(n);
                restartWith({ connections: n });
              }}
            >
              <option value={1}>1</option>
              <option value={2}>2</option>
              <option value={3}>3</option>
            </select>
            <p className="counter-help" id={`${ids}-connections-help`}>
              Database connections each worker process opens, each taking a seat: the 1st runs the
              claim loop, a 2nd sends heartbeats, a 3rd is its job handler&apos;s own.
            </p>
          </div>
        </fieldset>
        <fieldset className="counter-group" aria-describedby={restartNote}>
          <legend>Each API process&apos;s pool</legend>
          <NumberField
            label="pool_size"
            help="Connections the pool keeps open between requests (SQLAlchemy's pool_size)."
            {...limitsOf('poolSize')}
            value={pool.poolSize}
            onChange={(poolSize) => {
              setPool((p) => ({ ...p, poolSize }));
              restartWith({ poolSize });
            }}
          />
          <NumberField
            label="max_overflow"
            help="Extra connections it may open in a burst beyond pool_size, each taking a seat while open."
            {...limitsOf('maxOverflow')}
            value={pool.maxOverflow}
            onChange={(maxOverflow) => {
              setPool((p) => ({ ...p, maxOverflow }));
              restartWith({ maxOverflow });
            }}
          />
          <div className="counter-choice">
            <input
              type="checkbox"
              id={`${ids}-pre-ping`}
              aria-describedby={`${ids}-pre-ping-help`}
              checked={pool.poolPrePing}
              onChange={(e) => {
                const poolPrePing = e.target.checked;
                setPool((p) => ({ ...p, poolPrePing }));
                restartWith({ poolPrePing });
              }}
            />
            <label htmlFor={`${ids}-pre-ping`}>pool_pre_ping</label>
            <p className="counter-help" id={`${ids}-pre-ping-help`}>
              Before lending a connection out, the pool sends <code>SELECT 1</code> on it; one that
              fails is thrown away and replaced, so the request does not fail on it.
            </p>
          </div>
        </fieldset>
        <fieldset className="counter-group">
          <legend>Time and trouble</legend>
          <div className="counter-field">
            <label htmlFor={`${ids}-speed`}>Speed</label>
            <select
              id={`${ids}-speed`}
              aria-describedby={`${ids}-speed-help`}
              value={speed}
              onChange={(e) => {
                const n = Number(e.target.value);
                setSpeed(n);
                simRef.current?.setSpeed(n);
              }}
            >
              {SPEEDS.map((s) => (
                <option key={s} value={s}>
                  {s}×
                </option>
              ))}
            </select>
            <p className="counter-help" id={`${ids}-speed-help`}>
              Simulated seconds per real second.
            </p>
          </div>
          <div className="counter-buttons">
            <button
              type="button"
              aria-pressed={paused}
              disabled={!running}
              onClick={() => {
                const sim = simRef.current;
                if (!sim) return;
                if (paused) sim.resume();
                else {
                  sim.pause();
                  // Show the moment it stopped at, once a tick under way has finished.
                  void sim
                    .observe()
                    .then((observation) => {
                      observationRef.current = observation;
                      show(sim);
                    })
                    .catch((error: unknown) => setFailure(plainError(error)));
                }
                setPaused(!paused);
              }}
            >
              {paused ? 'Resume' : 'Pause'}
            </button>
            <button
              type="button"
              disabled={!running || !paused}
              onClick={() => {
                const sim = simRef.current;
                if (!sim) return;
                void (async () => {
                  await sim.step();
                  observationRef.current = await sim.observe();
                  show(sim);
                })().catch((error: unknown) => setFailure(plainError(error)));
              }}
            >
              Step
            </button>
            <button
              type="button"
              disabled={phase === 'replaying'}
              aria-describedby={phase === 'replaying' ? `${ids}-replaying` : undefined}
              onClick={() => restartWith()}
            >
              Reset
            </button>
          </div>
          <div className="counter-field">
            <label htmlFor={`${ids}-victim`}>Worker to kill</label>
            <div className="counter-buttons">
              <select
                id={`${ids}-victim`}
                value={victim}
                onChange={(e) => setVictim(e.target.value)}
              >
                {Array.from({ length: Math.max(workers, 1) }, (_, i) => {
                  const name = workerName(i + 1);
                  return (
                    <option key={name} value={name}>
                      {name}
                    </option>
                  );
                })}
              </select>
              <button
                type="button"
                disabled={!running || workers === 0}
                onClick={() => {
                  void simRef.current
                    ?.killWorker(victim)
                    .catch((error: unknown) => setFailure(plainError(error)));
                }}
              >
                Kill it mid-job
              </button>
            </div>
          </div>
        </fieldset>
      </form>
      <p className="counter-status" role="status">
        {phase === 'replaying' && replay
          ? `Replaying to ${clock(replay.targetMs)} at full speed…`
          : phase === 'starting'
            ? 'Seating the sessions…'
            : phase === 'stopped'
              ? 'Stopped.'
              : `Simulated time ${clock(simMs)}${paused ? ' (paused)' : ''} · speed ${speed}×`}
      </p>
      {phase === 'replaying' ? (
        <p className="counter-replay" id={`${ids}-replaying`}>
          {replay ? (
            <progress aria-label="Replayed" max={replay.targetMs} value={replay.atMs} />
          ) : null}{' '}
          Reset waits for the replay; to leave it now:{' '}
          <button type="button" onClick={() => restartWith()}>
            Cancel the replay
          </button>{' '}
          (the counter then starts from the beginning).
        </p>
      ) : null}
      {failure ? (
        <p className="counter-failure" role="alert">
          {failure} Reset starts the counter again.
        </p>
      ) : null}
      <div className="counter-frame" ref={frameRef}>
        {picture ? null : (
          <p className="counter-waiting">The counter opens once PostgreSQL has answered…</p>
        )}
        <svg ref={svgRef} />
      </div>
      <section className="counter-ask" aria-labelledby={`${ids}-ask`}>
        <h2 id={`${ids}-ask`}>Ask PostgreSQL</h2>
        <div className="counter-buttons">
          <button
            type="button"
            aria-disabled={!askable}
            onClick={() => ask(VACUUM_SQL, VACUUM_SQL)}
          >
            {VACUUM_SQL} now
          </button>
          <button
            type="button"
            aria-disabled={!askable}
            onClick={() => ask('The pg_stat_activity query', horizonSql)}
          >
            Run the pg_stat_activity query
          </button>
          <button type="button" disabled={!running} onClick={() => void copyLink()}>
            Copy link to this moment
          </button>
        </div>
        {link ? (
          <p className="counter-link">
            <label>
              Link to this moment (copied if your browser allowed it){' '}
              <input type="text" readOnly value={link} onFocus={(e) => e.target.select()} />
            </label>
          </p>
        ) : null}
        <div className="counter-output" role="region" aria-label="PostgreSQL output">
          {busy ? <p>Running {busy}…</p> : null}
          {output ? (
            <ReaderOutputView output={output} />
          ) : (
            <p className="counter-hint">
              These run in a session of your own (<code>reader</code>), on the same PostgreSQL the
              workers use. VACUUM takes <code>{VACUUM_TABLE}</code>, the table site traffic keeps
              updating, so there is always paper for the clerk.
            </p>
          )}
        </div>
      </section>
      {happenings.length > 0 ? (
        <div className="counter-happenings">
          <h2>What just happened</h2>
          <ul>
            {happenings.map((h, i) => (
              <li key={`${i}-${h}`}>{h}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <p className="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      <aside className="counter-guide" aria-label="What you are looking at">
        <h2>What you are looking at</h2>
        <p>
          Each seat is a connection; a ledger page in front of it is a transaction open on it, with
          the XID it holds. The clerk is VACUUM: it cannot file away rows that died after the oldest
          open page. The demos take each part in turn, step by step:
        </p>
        <ul>
          {related.map((demo) => (
            <li key={demo.id}>
              <a href={sitePath(`demos/${demo.id}/`)}>{demo.title}</a>
            </li>
          ))}
        </ul>
      </aside>
      <details className="counter-how">
        <summary>How this works</summary>
        <p>
          Everything drawn as PostgreSQL&apos;s comes from PostgreSQL 18 running in this tab:
          session states, XIDs, waits, dead tuples and VACUUM&apos;s report. Seats and the door are
          modelled: PGlite has one backend, so the demo counts connection slots from the
          engine&apos;s own <code>max_connections</code> and{' '}
          <code>superuser_reserved_connections</code> and refuses with PostgreSQL 18&apos;s exact
          FATAL text.
        </p>
        <p>
          Sessions share the one backend by taking turns: a transaction that holds an XID is set
          aside with <code>PREPARE TRANSACTION</code> and keeps its XID and row locks. A parked
          transaction can only end, so a <em>hold</em> worker records its result by committing its
          claim and at once writing the result in a short transaction; no other worker runs in
          between. Time is simulated and moves at the chosen speed while the engine keeps up.
        </p>
      </details>
    </div>
  );
}

/**
 * A labelled number input with its help text, handing on numbers within `min`–`max` in
 * steps of `step` (whole numbers unless told).
 */
function NumberField({
  label,
  help,
  min = 0,
  max,
  step = 1,
  value,
  onChange,
}: {
  label: string;
  help: string;
  min?: number;
  max: number;
  step?: number;
  value: number;
  onChange: (n: number) => void;
}) {
  const id = useId();
  return (
    <div className="counter-field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode={step < 1 ? 'decimal' : 'numeric'}
        min={min}
        max={max}
        step={step}
        value={value}
        aria-describedby={`${id}-help`}
        onChange={(e) => {
          const n = Math.round((Number(e.target.value) || min) / step) * step;
          onChange(Math.min(max, Math.max(min, n)));
        }}
      />
      <p className="counter-help" id={`${id}-help`}>
        {help}
      </p>
    </div>
  );
}

function ReaderOutputView({ output }: { output: ReaderOutput }) {
  if ('error' in output) {
    return (
      <div role="alert">
        <h3>{output.title}</h3>
        <p>{output.error}</p>
      </div>
    );
  }
  return (
    <div>
      <h3>{output.title}</h3>
      <p className="honesty">Output from PostgreSQL 18 running in your browser (PGlite)</p>
      <ResultList results={output.result.results} />
      <NoticeList
        notices={output.result.notices}
        omitted={output.result.noticesOmitted}
        label={`${output.title}: messages`}
      />
    </div>
  );
}
