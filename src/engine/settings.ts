/**
 * Server settings both engines start with (PGlite in the browser and in Node, and the
 * real PostgreSQL of the tests) so that their outputs can be compared.
 * `max_prepared_transactions` makes room for parked sessions (ARCHITECTURE.md, "Parking").
 * `shared_buffers` is 16MB instead of 128MB: initialising the buffer pool was half of
 * PGlite's start in Node (about 0.9 s against 0.45 s, measured on this project's
 * machine), and the lessons' tables fit in 16MB many times over.
 * `autovacuum` is off: PGlite's single backend has none, and on the server an autovacuum
 * worker shows up in pg_stat_activity with a snapshot whenever it happens to run, which
 * made the outputs of the same scenario differ now and then.
 */
export const serverSettings: Record<string, string> = {
  max_prepared_transactions: '64',
  shared_buffers: '16MB',
  autovacuum: 'off',
};
