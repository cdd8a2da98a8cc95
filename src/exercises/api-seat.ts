// Give the API server a seat again with the same number of workers: the workers start
// first and take every seat the application's role has, unless each opens fewer.
import { lastResult } from './checks';
import type { SlotsExercise } from './types';

const WORKERS = 33;
const API = 2;

export const apiSeat: SlotsExercise = {
  id: 'api-seat',
  kind: 'slots',
  title: 'Give the API server a seat again, with the same 33 workers',
  practises: 'slots',
  goal:
    `Change the deployment so that each of the ${API} API processes gets a seat again, while all ` +
    `${WORKERS} workers still get theirs. The number of workers and of API processes stays.`,
  situation:
    `${WORKERS} workers start first and open 3 connections each: ${WORKERS * 3} seats asked for, ` +
    'where the application’s role has 97 (max_connections 100, 3 reserved for superusers). By ' +
    'the time the first request reaches an API process, no seat is left: every request fails.',
  lesson:
    'Connections multiply: workers × connections each, plus API processes × (pool_size + ' +
    'max_overflow), must fit in max_connections − superuser_reserved_connections. Whoever asks ' +
    'first gets the seats, so smaller pools cannot help while the workers take them all; ' +
    'fewer connections per worker can. A pooler in transaction mode (PgBouncer) is the next step.',
  hints: [
    'Start it and look at who got the seats: the workers ask first, in start-up order.',
    `${WORKERS} workers × 3 connections = ${WORKERS * 3}, more than the 97 seats on their own. ` +
      'Smaller API pools change nothing while the workers take every seat first.',
    `Give each worker fewer connections: ${WORKERS} × 2 = ${WORKERS * 2} leaves ${97 - WORKERS * 2} ` +
      'seats for the API pools.',
  ],
  solution: {
    says:
      `Two connections per worker: ${WORKERS} × 2 + ${API} × (5 + 10) = ${WORKERS * 2 + API * 15}, ` +
      'which fits in 97. The heartbeat can share the claim loop’s connection.',
    settings: { perWorker: 2 },
  },
  start: { workers: WORKERS, perWorker: 3, api: API, poolSize: 5, maxOverflow: 10 },
  fixed: ['workers', 'api'],
  checks: [
    {
      says: `All ${WORKERS} workers hold a seat`,
      sql: () => `SELECT count(DISTINCT split_part(application_name, ' ', 1)) AS workers
  FROM pg_stat_activity
 WHERE application_name ~ '^worker-[0-9]+ '`,
      judge: (answer) => {
        const n = Number(lastResult(answer)?.rows[0]?.[0] ?? 0);
        return { held: n === WORKERS, seen: `${n} workers hold seats` };
      },
    },
    {
      says: `Each of the ${API} API processes holds a seat`,
      sql: () => `SELECT split_part(application_name, ' ', 1) AS process, count(*) AS seats
  FROM pg_stat_activity
 WHERE application_name ~ '^api-[0-9]+ '
 GROUP BY 1
 ORDER BY 1`,
      judge: (answer) => {
        const rows = lastResult(answer)?.rows ?? [];
        if (rows.length === 0) return { held: false, seen: 'no API process holds a seat' };
        return {
          held: rows.length === API,
          seen: rows.map(([process, seats]) => `${process} holds ${seats}`).join(', '),
        };
      },
    },
  ],
};
