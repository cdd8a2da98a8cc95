// One URL parameter's control in the embed builder, generated from its definition: a
// number field with its range, a list of its options, or a checkbox.
import {
  describeParamProblem,
  readValue,
  valuesText,
  valueText,
  type ParamSpec,
} from '../url-params';

/** One parameter's control: a number field, a list of options, or a checkbox. */
export function Field({
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
