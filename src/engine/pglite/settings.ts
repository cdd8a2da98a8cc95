import { PGlite } from '@electric-sql/pglite';
// With its extension: scripts/build-datadir.ts runs this file in Node without a bundler.
import { serverSettings } from '../settings.ts';

/** `serverSettings` as PGlite's start parameters, after PGlite's own defaults. */
export const engineStartParams: string[] = [
  ...PGlite.defaultStartParams,
  ...Object.entries(serverSettings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
];
