// The reader's choices and parameters: each change starts a fresh run.
import { useId, useState } from 'react';
import type { Selection } from '../../scenario/plan';
import type { Scenario } from '../../scenario/schema';

export function Choices({
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
