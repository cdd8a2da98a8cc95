import { PGlite } from '@electric-sql/pglite';
// With its extension: scripts/build-datadir.ts runs this file in Node without a bundler.
import { serverSettings } from '../settings.ts';
import { simSearchPath } from './sim-schema.ts';

/** Settings as PostgreSQL's `-c name=value` flags. */
const flags = (settings: Record<string, string>) =>
  Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);

/** `serverSettings` as PGlite's start parameters, after PGlite's own defaults. */
export const engineStartParams: string[] = [
  ...PGlite.defaultStartParams,
  ...flags({ ...serverSettings, search_path: simSearchPath }),
];

/** `engineStartParams`, then `settings` as extra flags (e.g. a small `max_connections`). */
export function startParamsWith(settings: Record<string, string> = {}): string[] {
  return [...engineStartParams, ...flags(settings)];
}
