// Reading scenario files in Node (tests, `npm run record`): the same YAML parser Astro
// uses for data files, and the same schema it checks them with at build time.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { scenarioSchema, type Scenario } from './schema';

/** Where scenario files live: one per demo, named for its id. */
export const scenarioDir = path.join(import.meta.dirname, '..', '..', 'content', 'scenarios');

/** The ids of every scenario file, sorted. */
export function scenarioIds(dir = scenarioDir): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .sort();
}

/** Reads and checks one scenario file; throws with the schema's complaint if it is wrong. */
export function loadScenario(id: string, dir = scenarioDir): Scenario {
  const file = path.join(dir, `${id}.yaml`);
  const parsed = scenarioSchema.safeParse(yaml.load(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    throw new Error(
      `${file}:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`,
    );
  }
  return { ...parsed.data, id };
}
