// The `slots` demo: the connection arithmetic as controls, then every connection asked for
// on the reader's own PostgreSQL, in start-up order, until the server says no.
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { EngineGoneError } from '../engine/types';
import {
  demand,
  readServerSlots,
  readSlotsParams,
  slotsRanges,
  SlotsRun,
  startupOrder,
  type AskOutcome,
  type ServerSlots,
  type SlotsConfig,
} from '../sim/slots';
import { AddressProblems } from './AddressProblems';
import { DemoShell, type DemoContext } from './DemoShell';
import { embedParamNames } from './embed-params';
import '../styles/slots.css';

export function SlotsDemo({ embed = false }: { embed?: boolean }) {
  return (
    <DemoShell demo="slots" embed={embed}>
      {(context) => <SlotsBody context={context} embed={embed} />}
    </DemoShell>
  );
}

export default SlotsDemo;

/** The controls, in the arithmetic's order, with their labels. */
const fields: { key: keyof SlotsConfig; label: string }[] = [
  { key: 'workers', label: 'Workers' },
  { key: 'perWorker', label: 'Connections per worker' },
  { key: 'api', label: 'API processes' },
  { key: 'poolSize', label: 'pool_size' },
  { key: 'maxOverflow', label: 'max_overflow' },
];

type Phase = 'idle' | 'asking' | 'done';

function SlotsBody({ context, embed }: { context: DemoContext; embed: boolean }) {
  const { engine } = context;
  const ids = useId();
  const [params] = useState(() => readSlotsParams(location.search, embedParamNames));
  const [config, setConfig] = useState<SlotsConfig>(params.config);
  const [server, setServer] = useState<ServerSlots | null>(null);
  const [outcomes, setOutcomes] = useState<AskOutcome[]>([]);
  const [phase, setPhase] = useState<Phase>('idle');
  const [failure, setFailure] = useState<string | null>(null);
  const runRef = useRef<SlotsRun | null>(null);
  const superusersRef = useRef(0);

  useEffect(() => {
    let live = true;
    readServerSlots(engine).then(
      (s) => {
        if (!live) return;
        setServer(s);
        context.announceReady();
      },
      (e: unknown) => live && setFailure(`Could not read the server's settings: ${message(e)}`),
    );
    return () => {
      live = false;
      void runRef.current?.close();
    };
    // The engine is the page's one engine; its settings do not change under the demo.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [engine]);

  const reset = useCallback(async () => {
    const run = runRef.current;
    runRef.current = null;
    superusersRef.current = 0;
    setOutcomes([]);
    setPhase('idle');
    setFailure(null);
    await run?.close();
    // Sessions of other demos may have come or gone meanwhile.
    try {
      setServer(await readServerSlots(engine));
    } catch (e) {
      setFailure(`Could not read the server's settings: ${message(e)}`);
    }
  }, [engine]);

  const start = async () => {
    await reset();
    const run = new SlotsRun(engine);
    runRef.current = run;
    setPhase('asking');
    try {
      await run.askAll(startupOrder(config), (o) => {
        if (runRef.current === run) setOutcomes((old) => [...old, o]);
      });
      if (runRef.current === run) setPhase('done');
    } catch (e) {
      if (runRef.current !== run) return;
      setFailure(`The run stopped: ${message(e)}`);
      setPhase('done');
    }
  };

  const superuser = async () => {
    const run = runRef.current;
    if (!run) return;
    const n = ++superusersRef.current;
    try {
      const o = await run.ask({ process: 'you', what: `superuser ${n}` }, 'superuser');
      if (runRef.current === run) setOutcomes((old) => [...old, o]);
    } catch (e) {
      setFailure(`The superuser could not connect: ${message(e)}`);
    }
  };

  // For tests and embedding pages: whether it is working, and what it holds.
  const { setRootData } = context;
  const seatedCount = outcomes.filter((o) => 'seat' in o).length;
  useEffect(() => {
    setRootData({
      busy: !server || phase === 'asking' ? 'yes' : 'no',
      seats: String(seatedCount),
      refused: String(outcomes.length - seatedCount),
    });
  }, [setRootData, server, phase, seatedCount, outcomes.length]);

  const wanted = demand(config);
  const ordinarySeats = server
    ? server.maxConnections - server.superuserReserved - server.reserved - server.alreadyOpen
    : null;
  const refused = outcomes.filter((o) => 'refused' in o);
  const firstOrdinary = refused.find((o) => o.role === 'ordinary');
  const firstSuperuser = refused.find((o) => o.role === 'superuser');

  return (
    <div className="slots" aria-busy={phase === 'asking'}>
      {embed ? <h2 className="slots-title">Connections multiply</h2> : null}
      <AddressProblems problems={params.problems} />
      <fieldset className="slots-controls" disabled={phase !== 'idle'}>
        <legend>The deployment</legend>
        {fields.map(({ key, label }) => {
          const { min, max } = slotsRanges[key];
          return (
            <label key={key} htmlFor={`${ids}-${key}`}>
              <span>{label}</span>
              <input
                id={`${ids}-${key}`}
                type="number"
                inputMode="numeric"
                min={min}
                max={max}
                value={config[key]}
                onChange={(e) => {
                  const value = Number(e.target.value);
                  if (Number.isInteger(value) && value >= min && value <= max)
                    setConfig((c) => ({ ...c, [key]: value }));
                }}
              />
              <span className="hint">
                {min}–{max}
              </span>
            </label>
          );
        })}
      </fieldset>

      <p className="slots-sum" aria-live="polite">
        {config.workers} workers × {config.perWorker} + {config.api} API processes × (
        {config.poolSize} + {config.maxOverflow}) = {wanted.workers} + {wanted.api} ={' '}
        <strong>{wanted.total} connections asked for</strong>
        {server ? (
          <>
            ; max_connections {server.maxConnections} − superuser_reserved_connections{' '}
            {server.superuserReserved}
            {server.reserved ? ` − reserved_connections ${server.reserved}` : ''}
            {server.alreadyOpen ? ` − ${server.alreadyOpen} already open on this page` : ''} ={' '}
            <strong>{ordinarySeats} seats for the application's role</strong>.{' '}
            {wanted.total > ordinarySeats! ? (
              <strong className="slots-verdict">
                {wanted.total} &gt; {ordinarySeats}: {wanted.total - ordinarySeats!} will be
                refused.
              </strong>
            ) : (
              <span className="slots-verdict">
                {wanted.total} ≤ {ordinarySeats}: every connection gets a seat.
              </span>
            )}
          </>
        ) : (
          '; reading the server’s settings…'
        )}
      </p>

      <div className="slots-actions">
        <button
          type="button"
          className="button-primary"
          onClick={() => void start()}
          disabled={!server || phase === 'asking'}
        >
          {phase === 'idle' ? 'Start everything' : 'Start again'}
        </button>
        <button type="button" onClick={() => void superuser()} disabled={phase !== 'done'}>
          A superuser walks in
        </button>
        <button type="button" onClick={() => void reset()} disabled={phase === 'idle'}>
          {phase === 'asking' ? 'Stop and give the seats back' : 'Reset'}
        </button>
      </div>
      <p className="slots-status" role="status" aria-live="polite">
        {failure ??
          (phase === 'asking'
            ? `Asking for seats: ${outcomes.length} of ${wanted.total}…`
            : phase === 'done'
              ? `${seatedCount} seats held by this demo, ${refused.length} refused.`
              : 'Press Start: the workers start first, then requests reach the API pools.')}
      </p>

      {outcomes.length > 0 ? <SeatStrip outcomes={outcomes} server={server} /> : null}

      {firstOrdinary && 'refused' in firstOrdinary ? (
        <div className="slots-refusal" role="region" aria-label="The first refusal">
          <p>
            The first refusal went to <strong>{firstOrdinary.ask.process}</strong> (its{' '}
            {firstOrdinary.ask.what}), asking as the application's ordinary role:
          </p>
          <pre>
            {firstOrdinary.refused.severity}: {firstOrdinary.refused.message}
            {'\n'}SQLSTATE {firstOrdinary.refused.code}
          </pre>
          <p>
            Every ask after it was refused the same way:{' '}
            {refused.filter((o) => o.role === 'ordinary').length} in all.
          </p>
        </div>
      ) : null}
      {firstSuperuser && 'refused' in firstSuperuser ? (
        <div className="slots-refusal" role="region" aria-label="The superuser’s refusal">
          <p>
            The reserved seats let{' '}
            {outcomes.filter((o) => o.role === 'superuser' && 'seat' in o).length} superusers in;
            the next one got the other message:
          </p>
          <pre>
            {firstSuperuser.refused.severity}: {firstSuperuser.refused.message}
            {'\n'}SQLSTATE {firstSuperuser.refused.code}
          </pre>
        </div>
      ) : null}

      <ProcessTable outcomes={outcomes} />

      <p className="honesty">
        <strong>Modelled:</strong> the workers, the API processes and their pools are modelled by
        this page; every seat is a real session on PostgreSQL 18 in your browser, and every refusal
        carries PostgreSQL 18's own words (checked against a real server by the tests).
      </p>
      <p>
        Nothing here is a leak: every seat belongs to a process that asked for it, as configured.
        The sum is the problem. The next step is a pooler such as PgBouncer in transaction mode,
        where many client connections share a few server connections, each lent for one transaction
        at a time.
      </p>
    </div>
  );
}

/** Every seat of the server, in order: taken by this demo, by others, reserved, or free. */
function SeatStrip({ outcomes, server }: { outcomes: AskOutcome[]; server: ServerSlots | null }) {
  if (!server) return null;
  const seats: { kind: string; mark: string; who: string }[] = [];
  for (let i = 0; i < server.alreadyOpen; i++)
    seats.push({ kind: 'other', mark: '·', who: 'another session on this page' });
  for (const o of outcomes)
    if ('seat' in o)
      seats.push({
        kind:
          o.role === 'superuser' ? 'superuser' : o.ask.process.startsWith('api') ? 'api' : 'worker',
        mark: o.role === 'superuser' ? 'S' : o.ask.process.startsWith('api') ? 'A' : 'W',
        who: `${o.ask.process} ${o.ask.what}`,
      });
  const reservedFrom = server.maxConnections - server.superuserReserved - server.reserved;
  while (seats.length < server.maxConnections)
    seats.push(
      seats.length >= reservedFrom
        ? { kind: 'reserved', mark: 'r', who: 'free, reserved for superusers' }
        : { kind: 'free', mark: '', who: 'free' },
    );
  return (
    <figure className="slots-strip">
      <figcaption>
        The server's {server.maxConnections} seats: W a worker's connection, A an API pool's, S a
        superuser's, r reserved for superusers and still free.
      </figcaption>
      <ol aria-hidden="true">
        {seats.map((s, i) => (
          <li key={i} className={`seat seat-${s.kind}`} title={`seat ${i + 1}: ${s.who}`}>
            {s.mark}
          </li>
        ))}
      </ol>
    </figure>
  );
}

/** Who asked, grouped by process: how many seats each asked for, got, and was refused. */
function ProcessTable({ outcomes }: { outcomes: AskOutcome[] }) {
  if (outcomes.length === 0) return null;
  const groups = new Map<string, { asked: number; seated: number; refused: number }>();
  for (const o of outcomes) {
    const name = o.ask.process.startsWith('worker-') ? 'workers' : o.ask.process;
    const g = groups.get(name) ?? { asked: 0, seated: 0, refused: 0 };
    g.asked++;
    if ('seat' in o) g.seated++;
    else g.refused++;
    groups.set(name, g);
  }
  return (
    <div className="table-scroll" tabIndex={0} role="group" aria-label="Who asked for seats">
      <table>
        <caption>Who asked for seats</caption>
        <thead>
          <tr>
            <th scope="col">Process</th>
            <th scope="col">Asked</th>
            <th scope="col">Seated</th>
            <th scope="col">Refused</th>
          </tr>
        </thead>
        <tbody>
          {[...groups].map(([name, g]) => (
            <tr key={name}>
              <th scope="row">{name === 'you' ? 'you, as a superuser' : name}</th>
              <td>{g.asked}</td>
              <td>{g.seated}</td>
              <td>{g.refused}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function message(e: unknown): string {
  if (e instanceof EngineGoneError) return 'the engine was restarted';
  return e instanceof Error ? e.message : String(e);
}
