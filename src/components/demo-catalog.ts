// Every demo as the site's pages show it, read at build time: the registry in demo-list.ts,
// with a scenario demo's title, description and URL parameters taken from its scenario
// file, so the demo pages, the embeds, the oEmbed files and the teacher's docs cannot
// drift from it.
import { getEntry } from 'astro:content';
import { planSteps, selectionKey } from '../scenario/plan';
import { everySelection, playedRuns, type Recording } from '../scenario/recording';
import type { Scenario } from '../scenario/schema';
import { demos, type Preset, type ScenarioEntry, type ToolEntry } from './demo-list';
import { scenarioParameters } from './scenario-params';
import type { ParamSpec } from './url-params';

/** A demo with everything its pages need. */
export interface DemoDetails {
  id: string;
  kind: 'tool' | 'scenario';
  title: string;
  description: string;
  embedHeight: number;
  /** Where it lives on the site besides `/demos/<id>/`, if anywhere. */
  page: string | null;
  /** Its own URL parameters (besides theme, load and present). */
  parameters: readonly ParamSpec[];
  teaches: readonly [string, string, string];
  presets: readonly Preset[];
  seats: 'counter' | 'slots' | null;
  scenario: Scenario | null;
  /** PostgreSQL 18's output for the runs the player plays from a recording, if any. */
  recording: Recording | null;
  /** A scenario's number of steps for each choice of its options (by `selectionKey`). */
  stepCounts: Record<string, number>;
}

/** Every demo, in the registry's order. */
export async function demoCatalog(): Promise<DemoDetails[]> {
  // One case per kind of entry: a new kind does not compile until it is given its details.
  return Promise.all(
    demos.map((demo) => {
      switch (demo.kind) {
        case 'tool':
          return toolDetails(demo);
        case 'scenario':
          return scenarioDetails(demo);
      }
    }),
  );
}

async function toolDetails(demo: ToolEntry): Promise<DemoDetails> {
  const { id, title, description, embedHeight, page, parameters, teaches, presets } = demo;
  return {
    id,
    kind: 'tool',
    title,
    description,
    embedHeight,
    page,
    parameters,
    teaches,
    presets,
    seats: demo.seats ?? null,
    scenario: null,
    recording: null,
    stepCounts: {},
  };
}

async function scenarioDetails(demo: ScenarioEntry): Promise<DemoDetails> {
  const { id, embedHeight, teaches, presets } = demo;
  const scenario = await scenarioOf(id);
  const recorded = scenario.choices.some((c) => c.options.some((o) => o.recorded));
  const recording = recorded ? await recordingOf(id) : null;
  const stepCounts = Object.fromEntries(
    everySelection(scenario).map((s) => [selectionKey(scenario, s), planSteps(scenario, s).length]),
  );
  return {
    id,
    kind: 'scenario',
    title: scenario.title,
    description: scenario.summary,
    embedHeight,
    page: null,
    teaches,
    presets,
    seats: null,
    scenario,
    stepCounts,
    parameters: scenarioParameters(scenario, Math.max(...Object.values(stepCounts))),
    recording: recording ? playedRuns(recording, scenario) : null,
  };
}

/** A scenario demo's file, checked by its schema. */
export async function scenarioOf(id: string): Promise<Scenario> {
  const entry = await getEntry('scenarios', id);
  if (!entry) throw new Error(`demo ${id}: no content/scenarios/${id}.yaml`);
  return { ...entry.data, id };
}

/** Every run `npm run record` made of a scenario on PostgreSQL 18, or null without a file. */
export async function recordingOf(id: string): Promise<Recording | null> {
  return (await getEntry('recordings', id))?.data ?? null;
}

/** `getStaticPaths` for the routes with one page per demo (`/demos/<id>/`, `/embed/<id>/`). */
export async function demoStaticPaths() {
  return (await demoCatalog()).map((demo) => ({ params: { demo: demo.id }, props: { demo } }));
}

/** The scenario demos as links: what the counter lists under "What you are looking at". */
export async function scenarioDemoLinks(): Promise<{ id: string; title: string }[]> {
  return (await demoCatalog()).filter((d) => d.scenario).map((d) => ({ id: d.id, title: d.title }));
}
