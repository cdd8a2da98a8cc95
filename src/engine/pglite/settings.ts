import { PGlite } from '@electric-sql/pglite';
import { serverSettings } from '../settings';

/** `serverSettings` as PGlite's start parameters, after PGlite's own defaults. */
export const engineStartParams: string[] = [
  ...PGlite.defaultStartParams,
  ...Object.entries(serverSettings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
];
