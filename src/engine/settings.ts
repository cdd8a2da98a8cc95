/**
 * Server settings both engines start with (PGlite in the browser and in Node, and the
 * real PostgreSQL of the tests) so that their outputs can be compared.
 * `max_prepared_transactions` makes room for parked sessions (DESIGN.md, "Parking").
 * `shared_buffers` is 16MB instead of 128MB: initialising the buffer pool was half of
 * PGlite's start in Node (about 0.9 s against 0.45 s, measured on this project's
 * machine), and the lessons' tables fit in 16MB many times over.
 */
export const serverSettings: Record<string, string> = {
  max_prepared_transactions: '64',
  shared_buffers: '16MB',
};
