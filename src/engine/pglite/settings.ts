import { PGlite } from '@electric-sql/pglite';
// With its extension: scripts/build-datadir.ts runs this file in Node without a bundler.
import { serverSettings } from '../settings.ts';
import { simSearchPath } from './sim-schema.ts';

/** `serverSettings` as PGlite's start parameters, after PGlite's own defaults. */
export const engineStartParams: string[] = [
  ...PGlite.defaultStartParams,
  ...Object.entries({ ...serverSettings, search_path: simSearchPath }).flatMap(([name, value]) => [
    '-c',
    `${name}=${value}`,
  ]),
];
