// Every demo's documented URL parameters against the parser the demo reads its address
// with: each documented default is what the parser gives for an empty address, each end of
// a range and each option is taken as given, a value past either end or outside the
// options is not, and every preset of the registry is read without a problem.
import { describe, expect, it } from 'vitest';
import { readCounterParams } from '../../../src/components/counter-params';
import { demos, type DemoEntry } from '../../../src/components/demo-list';
import {
  embedParamNames,
  embedParameters,
  readEmbedParams,
} from '../../../src/components/embed-params';
import { readScenarioParams, scenarioParameters } from '../../../src/components/scenario-params';
import {
  paramsSearch,
  readParams,
  valueText,
  type ParamSpec,
  type ParamValues,
} from '../../../src/components/url-params';
import { loadScenario } from '../../../src/scenario/load';
import { everySelection } from '../../../src/scenario/recording';
import { planSteps, type Selection } from '../../../src/scenario/plan';
import { readSlotsParams, slotsRanges, type SlotsConfig } from '../../../src/sim/slots';

/** What a demo's own parser makes of an address: the values by URL name, and its problems. */
interface Parsed {
  values: ParamValues;
  problems: number;
}

function parserOf(demo: DemoEntry): { specs: readonly ParamSpec[]; read: (q: string) => Parsed } {
  if (demo.kind === 'scenario') {
    const scenario = loadScenario(demo.id);
    const stepsFor = (s: Selection) => planSteps(scenario, s).length;
    const most = Math.max(...everySelection(scenario).map(stepsFor));
    return {
      specs: scenarioParameters(scenario, most),
      read: (q) => {
        const r = readScenarioParams(q, scenario, stepsFor);
        return {
          values: {
            ...r.selection.choices,
            ...r.selection.parameters,
            step: r.step,
            autoplay: r.autoplay,
          },
          problems: r.reasons.length,
        };
      },
    };
  }
  if (demo.id === 'counter') {
    return {
      specs: demo.parameters,
      read: (q) => {
        const r = readCounterParams(q);
        const s = r.settings;
        return {
          values: {
            workers: s.workers,
            connections: s.connections,
            shape: s.shape,
            api: s.api,
            uploads: s.uploadRate,
            pool_size: s.poolSize,
            max_overflow: s.maxOverflow,
            pre_ping: s.poolPrePing,
            speed: s.speed,
            seed: s.seed,
            paused: r.paused,
          },
          problems: r.reasons.length,
        };
      },
    };
  }
  if (demo.id === 'slots') {
    return {
      specs: demo.parameters,
      read: (q) => {
        const r = readSlotsParams(q);
        const values: ParamValues = {};
        for (const key of Object.keys(slotsRanges) as (keyof SlotsConfig)[])
          values[slotsRanges[key].url] = r.config[key];
        return { values, problems: r.problems.length };
      },
    };
  }
  // The console reads no parameters of its own.
  expect(demo.parameters).toEqual([]);
  return {
    specs: [],
    read: (q) => ({ values: {}, problems: readParams([], q, embedParamNames).problems.length }),
  };
}

/** The values a spec documents as taken, and some it documents as not. */
function samples(spec: ParamSpec): { taken: string[]; refused: string[] } {
  switch (spec.kind) {
    case 'number':
      return {
        taken: [String(spec.min), String(spec.max)],
        refused: [String(spec.min - 1), String(spec.max + 1), 'many'],
      };
    case 'choice':
      return { taken: spec.options.map((o) => o.value), refused: ['no-such-option'] };
    case 'flag':
      return { taken: ['1', '0'], refused: ['maybe'] };
  }
}

describe.each(demos.map((d) => [d.id, d] as const))('the URL parameters of %s', (_id, demo) => {
  const { specs, read } = parserOf(demo);

  it('document the defaults its parser uses', () => {
    const parsed = read('');
    expect(parsed.problems).toBe(0);
    for (const spec of specs)
      expect([spec.name, parsed.values[spec.name]]).toEqual([spec.name, spec.default]);
  });

  it('document the values its parser takes, and those it does not', () => {
    for (const spec of specs) {
      const { taken, refused } = samples(spec);
      // A step is taken up to the steps of the default run.
      const upTo = spec.name === 'step' ? taken.slice(0, 1) : taken;
      for (const value of upTo) {
        const parsed = read(`?${spec.name}=${value}`);
        expect([spec.name, value, parsed.problems]).toEqual([spec.name, value, 0]);
        expect(valueText(parsed.values[spec.name]!)).toBe(value);
      }
      for (const value of refused) {
        const parsed = read(`?${spec.name}=${value}`);
        expect([spec.name, value, parsed.problems]).toEqual([spec.name, value, 1]);
        expect(valueText(parsed.values[spec.name]!)).not.toBe(value);
      }
    }
  });

  it('has presets its parser reads without a problem', () => {
    for (const preset of demo.presets) {
      const own = paramsSearch(specs, preset.values);
      expect([preset.id, read(`?${own}`).problems]).toEqual([preset.id, 0]);
      const shared = paramsSearch(embedParameters, preset.values);
      expect([preset.id, readEmbedParams(`?${shared}`).problems]).toEqual([preset.id, []]);
      const names = [...specs, ...embedParameters].map((s) => s.name);
      for (const name of Object.keys(preset.values)) expect(names).toContain(name);
    }
  });
});

describe('the parameters every demo takes', () => {
  it('are read as documented', () => {
    for (const spec of embedParameters) {
      for (const value of samples(spec).taken)
        expect(readEmbedParams(`?${spec.name}=${value}`).problems).toEqual([]);
      for (const value of samples(spec).refused.filter((v) => v !== 'many'))
        expect(readEmbedParams(`?${spec.name}=${value}`).problems).toHaveLength(1);
    }
  });
});
