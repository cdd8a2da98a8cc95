import { PGlite } from '@electric-sql/pglite';

/**
 * Server settings every PGlite engine starts with. `max_prepared_transactions` makes room
 * for parked sessions (see DESIGN.md, "Parking").
 */
export const engineStartParams: string[] = [
  ...PGlite.defaultStartParams,
  '-c',
  'max_prepared_transactions=64',
];
