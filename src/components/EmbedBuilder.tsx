// The embed builder on a demo's page: a form for the demo's URL parameters and the shared
// ones, generated from their definitions (url-params.ts); presets; what the configuration
// does to the seats, for the demos that take them; a live preview of the embed as
// configured; and the snippet to copy.
import { useId, useMemo, useState, useSyncExternalStore } from 'react';
import { Field } from './builder/Field';
import { Preview } from './builder/Preview';
import { SeatNote } from './builder/SeatNote';
import { Snippet } from './builder/Snippet';
import type { Preset } from './demo-list';
import { embedPath, embedSnippet } from './embed-snippet';
import { autoplayParameter, stepParameter } from './scenario-params';
import { counterAsks, planSeats, slotsAsks, type SeatPlan } from './seat-plan';
import {
  defaultValues,
  readValue,
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
