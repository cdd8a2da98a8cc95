// The embed builder on a demo's page: a form for the demo's URL parameters and the shared
// ones, generated from their definitions (url-params.ts); presets; what the configuration
// does to the seats, for the demos that take them; a live preview of the embed as
// configured; and the snippet to copy.
import { useEffect, useId, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { Preset } from './demo-list';
import { embedPath, embedSnippet, snippetBounds } from './embed-snippet';
import type { EmbedMessage } from './embed-messages';
import { autoplayParameter, stepParameter } from './scenario-params';
import {
  counterAsks,
  planSeats,
  seatVerdicts,
  slotsAsks,
  type SeatPlan,
  type SeatVerdict,
} from './seat-plan';
import {
  defaultValues,
  describeParamProblem,
  readValue,
  valuesText,
  valueText,
  type ParamSpec,
  type ParamValues,
} from './url-params';

export interface EmbedBuilderProps {
  demo: string;
  title: string;
  embedHeight: number;
  /** The demo's own parameters (for a scenario: its choices and numbers). */
  own: readonly ParamSpec[];
  /** The parameters every demo takes. */
  shared: readonly ParamSpec[];
  presets: readonly Preset[];
  seats: 'counter' | 'slots' | null;
  /** A scenario's steps per choice of its options, keyed as `lock=wait&shape=…`. */
  steps?: { choices: readonly string[]; counts: Record<string, number> };
}

/** The page's address, once in the browser (the snippet's address is made absolute with it). */
const subscribeToNothing = () => () => {};
const clientHref = () => location.href;
const serverHref = () => null;

/** How long the preview waits after the last change before it reloads. */
const PREVIEW_DELAY_MS = 600;

export default function EmbedBuilder(props: EmbedBuilderProps) {
  const { demo, title, embedHeight, own, shared, presets, seats, steps } = props;
  const ids = useId();
  const baseSpecs = useMemo(
    () => [...own, ...(steps ? [stepParameter(maxSteps(steps)), autoplayParameter] : [])],
    [own, steps],
  );
  const [chosen, setValues] = useState<ParamValues>(() => defaultValues([...baseSpecs, ...shared]));
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [preset, setPreset] = useState<Preset | null>(null);
  const [sandbox, setSandbox] = useState(false);

  // A scenario's step ranges over the steps of the run its choices make.
  const stepsNow = steps ? stepCount(steps, chosen) : 0;
  const specs = useMemo(
    () => baseSpecs.map((s) => (s.name === 'step' ? stepParameter(stepsNow) : s)),
    [baseSpecs, stepsNow],
  );
  const all = useMemo(() => [...specs, ...shared], [specs, shared]);
  // A step beyond the steps of the run now chosen is its last.
  const values = useMemo(
    () =>
      typeof chosen.step === 'number' && chosen.step > stepsNow
        ? { ...chosen, step: stepsNow }
        : chosen,
    [chosen, stepsNow],
  );

  const path = embedPath(demo, all, values);
  const origin = useSyncExternalStore(subscribeToNothing, clientHref, serverHref);
  const src = origin ? new URL(path, origin).href : path;
  const snippet = embedSnippet({ src, title, height: embedHeight, sandbox });

  const plan = useMemo(() => seatPlanOf(seats, values), [seats, values]);

  const set = (spec: ParamSpec, text: string) => {
    setTexts((t) => ({ ...t, [spec.name]: text }));
    setPreset(null);
    const { value, problem } = readValue(spec, text);
    // A number being typed is kept as typed, and used once it can be.
    if (!problem) setValues((v) => ({ ...v, [spec.name]: value }));
  };
  const field = (spec: ParamSpec) => (
    <Field
      key={spec.name}
      id={`${ids}-${spec.name}`}
      spec={spec}
      value={values[spec.name]!}
      text={texts[spec.name]}
      onChange={(text) => set(spec, text)}
    />
  );
  const choose = (p: Preset) => {
    setPreset(p);
    setTexts({});
    setValues({ ...defaultValues(all), ...p.values });
  };

  return (
    <div className="embed-builder" data-embed-builder={demo}>
      {presets.length ? (
        <fieldset className="builder-presets">
          <legend>Presets</legend>
          <div className="builder-preset-buttons">
            {presets.map((p) => (
              <button
                type="button"
                key={p.id}
                aria-pressed={preset?.id === p.id}
                onClick={() => choose(p)}
              >
                {p.label}
              </button>
            ))}
          </div>
          <p className="builder-preset-says" role="status">
            {preset ? preset.says : 'Pick one to fill in the form below, or set it by hand.'}
          </p>
        </fieldset>
      ) : null}

      <form className="builder-form" onSubmit={(e) => e.preventDefault()}>
        {specs.length ? (
          <fieldset>
            <legend>This demo</legend>
            {specs.map(field)}
          </fieldset>
        ) : null}
        <fieldset>
          <legend>Every demo</legend>
          {shared.map(field)}
          <div className="builder-field builder-flag">
            <input
              type="checkbox"
              id={`${ids}-sandbox`}
              checked={sandbox}
              onChange={(e) => setSandbox(e.target.checked)}
            />
            <label htmlFor={`${ids}-sandbox`}>
              Sandbox the iframe (<code>sandbox=&quot;allow-scripts allow-same-origin&quot;</code>)
            </label>
          </div>
        </fieldset>
      </form>

      {plan ? <SeatNote plan={plan} demo={demo} /> : null}

      <Preview src={src} title={title} height={embedHeight} sandbox={sandbox} />

      <Snippet snippet={snippet} src={src} />
    </div>
  );
}

function maxSteps(steps: NonNullable<EmbedBuilderProps['steps']>): number {
  return Math.max(0, ...Object.values(steps.counts));
}

function stepCount(steps: NonNullable<EmbedBuilderProps['steps']>, values: ParamValues): number {
  const key = steps.choices.map((c) => `${c}=${valueText(values[c]!)}`).join('&');
  return steps.counts[key] ?? maxSteps(steps);
}

function seatPlanOf(seats: EmbedBuilderProps['seats'], values: ParamValues): SeatPlan | null {
  if (seats === 'counter') return planSeats(counterAsks(values));
  if (seats === 'slots') return planSeats(slotsAsks(values));
  return null;
}

/** One parameter's control: a number field, a list of options, or a checkbox. */
function Field({
  id,
  spec,
  value,
  text,
  onChange,
}: {
  id: string;
  spec: ParamSpec;
  value: string | number | boolean;
  text: string | undefined;
  onChange: (text: string) => void;
}) {
  const help = `${id}-help`;
  const description = (
    <p className="builder-help" id={help}>
      <code>{spec.name}</code>: {spec.says} (<code>{valuesText(spec)}</code>)
    </p>
  );
  if (spec.kind === 'flag') {
    return (
      <div className="builder-field builder-flag">
        <input
          type="checkbox"
          id={id}
          aria-describedby={help}
          checked={value === true}
          onChange={(e) => onChange(e.target.checked ? '1' : '0')}
        />
        <label htmlFor={id}>{spec.name}</label>
        {description}
      </div>
    );
  }
  if (spec.kind === 'choice') {
    return (
      <div className="builder-field">
        <label htmlFor={id}>{spec.name}</label>
        <select
          id={id}
          aria-describedby={help}
          value={String(value)}
          onChange={(e) => onChange(e.target.value)}
        >
          {spec.options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.value === o.label ? o.value : `${o.value}: ${o.label}`}
            </option>
          ))}
        </select>
        {description}
      </div>
    );
  }
  const shown = text ?? String(value);
  const problem = text === undefined ? null : readValue(spec, text).problem;
  const error = `${id}-error`;
  return (
    <div className="builder-field">
      <label htmlFor={id}>{spec.name}</label>
      <input
        id={id}
        type="number"
        inputMode={spec.whole ? 'numeric' : 'decimal'}
        min={spec.min}
        max={spec.max}
        step={spec.step}
        value={shown}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${help} ${error}` : help}
        onChange={(e) => onChange(e.target.value)}
      />
      {description}
      {problem ? (
        <p className="builder-error" id={error}>
          {describeParamProblem(problem)}; the embed keeps {valueText(value)}.
        </p>
      ) : null}
    </div>
  );
}

/** What the configuration does to the seats, from the arithmetic the demos follow. */
function SeatNote({ plan, demo }: { plan: SeatPlan; demo: string }) {
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

/**
 * The embed as configured, in an iframe that follows the form, sized by the same rule as
 * the snippet's. Shown on request: it starts a PostgreSQL of its own.
 */
function Preview({
  src,
  title,
  height,
  sandbox,
}: {
  src: string;
  title: string;
  height: number;
  sandbox: boolean;
}) {
  const [shown, setShown] = useState(false);
  const [frameSrc, setFrameSrc] = useState(src);
  const [frameHeight, setFrameHeight] = useState(height);
  const frameRef = useRef<HTMLIFrameElement>(null);

  useEffect(() => {
    if (src === frameSrc) return;
    const timer = setTimeout(() => setFrameSrc(src), PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [src, frameSrc]);

  useEffect(() => {
    if (!shown) return;
    const onMessage = (event: MessageEvent<Partial<EmbedMessage>>) => {
      const data = event.data;
      if (event.source !== frameRef.current?.contentWindow || data?.type !== 'seat-ledger:resize')
        return;
      if (typeof data.height !== 'number' || !(data.height > 0)) return;
      setFrameHeight(
        Math.min(snippetBounds.max, Math.max(snippetBounds.min, Math.ceil(data.height))),
      );
    };
    addEventListener('message', onMessage);
    return () => removeEventListener('message', onMessage);
  }, [shown]);

  return (
    <section className="builder-preview" aria-label="Preview">
      <h3>Preview</h3>
      {shown ? (
        <>
          <p className="builder-help">
            The embed exactly as the snippet below shows it; it reloads as you change the form.
          </p>
          <iframe
            ref={frameRef}
            key={`${frameSrc} ${sandbox}`}
            src={frameSrc}
            title={`Preview: ${title}`}
            style={{ height: frameHeight }}
            allow="clipboard-write"
            {...(sandbox ? { sandbox: 'allow-scripts allow-same-origin' } : {})}
          />
          <p>
            <button type="button" onClick={() => setShown(false)}>
              Close the preview
            </button>
          </p>
        </>
      ) : (
        <p>
          <button type="button" onClick={() => setShown(true)}>
            Show the live preview
          </button>{' '}
          <span className="builder-help">It starts a PostgreSQL of its own in this tab.</span>
        </p>
      )}
    </section>
  );
}

function Snippet({ snippet, src }: { snippet: string; src: string }) {
  // What copying said, for the snippet it copied: a changed snippet has not been copied.
  const [status, setStatus] = useState<{ snippet: string; text: string } | null>(null);
  const id = useId();
  const copy = () =>
    navigator.clipboard.writeText(snippet).then(
      () => setStatus({ snippet, text: 'Copied.' }),
      () => setStatus({ snippet, text: 'Copying failed: select the snippet and copy it by hand.' }),
    );
  return (
    <section className="builder-snippet" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>The snippet</h3>
      <p>
        The embed’s address: <a href={src}>{src}</a>
      </p>
      <pre className="snippet" tabIndex={0} aria-labelledby={`${id}-h`}>
        <code data-snippet>{snippet}</code>
      </pre>
      <p>
        <button type="button" className="button-primary" onClick={() => void copy()}>
          Copy the snippet
        </button>{' '}
        <span role="status">{status?.snippet === snippet ? status.text : ''}</span>
      </p>
    </section>
  );
}
