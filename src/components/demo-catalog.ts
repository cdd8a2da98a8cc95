// Every demo as the site's pages show it, read at build time: the registry in demo-list.ts,
// with a scenario demo's title, description and URL parameters taken from its scenario
// file, so the demo pages, the embeds and the teacher's docs cannot drift from it.
import { getEntry } from 'astro:content';
import type { Recording } from '../scenario/recording';
import type { Scenario } from '../scenario/schema';
import { demos, type DemoParameter } from './demo-list';

/** A demo with everything its pages need. */
export interface DemoDetails {
  id: string;
  title: string;
  description: string;
  embedHeight: number;
  /** Where it lives on the site besides `/demos/<id>/`, if anywhere. */
  page: string | null;
  parameters: DemoParameter[];
  scenario: Scenario | null;
  recording: Recording | null;
}

/** What every scenario demo reads besides its choices and numbers. */
const stepParameters: DemoParameter[] = [
  {
    name: 'step',
    values: '0 up to its number of steps',
    description: 'play this many steps first',
  },
  { name: 'autoplay', values: '1 | 0', description: 'play the steps one after another' },
];

/** A scenario's URL parameters: one per choice and per number, then step and autoplay. */
export function scenarioParameters(scenario: Scenario): DemoParameter[] {
  return [
    ...scenario.choices.map((c) => ({
      name: c.id,
      values: c.options.map((o) => o.value).join(' | '),
      description: c.label,
    })),
    ...scenario.parameters.map((p) => ({
      name: p.id,
      values: `${p.min}–${p.max}`,
      description: `${p.label}${p.unit ? ` (${p.unit})` : ''}`,
    })),
    ...stepParameters,
  ];
}

/** Every demo, in the registry's order. */
export async function demoCatalog(): Promise<DemoDetails[]> {
  return Promise.all(
    demos.map(async (demo): Promise<DemoDetails> => {
      if (!demo.scenario) return { ...demo, scenario: null, recording: null };
      const entry = await getEntry('scenarios', demo.id);
      if (!entry) throw new Error(`demo ${demo.id}: no content/scenarios/${demo.id}.yaml`);
      const scenario: Scenario = { ...entry.data, id: demo.id };
      const recorded = scenario.choices.some((c) => c.options.some((o) => o.recorded));
      const recording = recorded ? ((await getEntry('recordings', demo.id))?.data ?? null) : null;
      return {
        id: demo.id,
        title: scenario.title,
        description: scenario.summary,
        embedHeight: demo.embedHeight,
        page: null,
        parameters: scenarioParameters(scenario),
        scenario,
        recording,
      };
    }),
  );
}

/** `getStaticPaths` for the routes with one page per demo (`/demos/<id>/`, `/embed/<id>/`). */
export async function demoStaticPaths() {
  return (await demoCatalog()).map((demo) => ({ params: { demo: demo.id }, props: { demo } }));
}

/** The scenario demos as links: what the counter lists under "What you are looking at". */
export async function scenarioDemoLinks(): Promise<{ id: string; title: string }[]> {
  return (await demoCatalog()).filter((d) => d.scenario).map((d) => ({ id: d.id, title: d.title }));
}
