import { slotsRanges } from '../sim/slots';
/** A URL parameter a demo's embed reads, for the teacher's docs. */
export interface DemoParameter {
  name: string;
  /** The values it takes, e.g. `0–40` or `hold | claim-close`. */
  values: string;
  description: string;
}

/** A demo teachers can link to or embed; its id is part of a URL and never changes. */
export type DemoEntry =
  | {
      id: string;
      title: string;
      description: string;
      /** A starting height for the iframe, in CSS pixels, before the demo reports its own. */
      embedHeight: number;
      scenario?: false;
      /** Where the demo lives on the site besides `/demos/<id>/`, if anywhere. */
      page: string | null;
      /** URL parameters of its own (every embed also takes theme, load and present). */
      parameters: DemoParameter[];
    }
  | {
      id: string;
      embedHeight: number;
      /** Played from `content/scenarios/<id>.yaml` by the scenario player. */
      scenario: true;
    };

/** Every demo with a page under `/demos/<id>/` and `/embed/<id>/`. */
export const demos: readonly DemoEntry[] = [
  {
    id: 'console',
    title: 'SQL console',
    description:
      'A PostgreSQL 18 session in the browser: type SQL, run it, and see the command tags, rows, ' +
      'notices and errors PostgreSQL sends back.',
    embedHeight: 640,
    page: 'lab/',
    parameters: [],
  },
  {
    id: 'counter',
    title: 'The bank counter',
    description:
      'Workers and API processes on real PostgreSQL sessions: seats are connections, open ledger ' +
      'pages are transactions, and the clerk (VACUUM) cannot file behind the oldest open page.',
    embedHeight: 900,
    page: 'lab/counter/',
    parameters: [
      { name: 'workers', values: '0–40', description: 'workers claiming jobs' },
      { name: 'api', values: '0–4', description: 'API processes with connection pools' },
      { name: 'shape', values: 'hold | claim-close', description: 'how workers hold their jobs' },
      { name: 'connections', values: '1–3', description: 'connections per worker' },
      { name: 'speed', values: '0.25–8', description: 'simulated time per real second' },
      { name: 'seed', values: 'a whole number', description: 'the simulation’s random seed' },
      { name: 'paused', values: '1 | 0', description: 'start paused' },
    ],
  },
  {
    id: 'slots',
    title: 'Connections multiply',
    description:
      'Workers × connections each, plus API processes × (pool_size + max_overflow), against ' +
      'max_connections: every connection asks for a real seat in start-up order, until PostgreSQL ' +
      'refuses the application, and then a superuser.',
    embedHeight: 1100,
    page: null,
    // From the ranges the demo reads its URL with, so the docs cannot drift from it.
    parameters: Object.values(slotsRanges).map((r) => ({
      name: r.url,
      values: `${r.min}–${r.max}`,
      description: r.says,
    })),
  },
  // Scenario demos: their titles, descriptions and parameters come from their scenario
  // files (see demo-catalog.ts).
  { id: 'skip-locked', embedHeight: 1200, scenario: true },
  { id: 'horizon', embedHeight: 1300, scenario: true },
  { id: 'activity', embedHeight: 1200, scenario: true },
  { id: 'idle-timeout', embedHeight: 1200, scenario: true },
  { id: 'lost-task', embedHeight: 1300, scenario: true },
  { id: 'enqueue', embedHeight: 1300, scenario: true },
  { id: 'fix', embedHeight: 1500, scenario: true },
  { id: 'pre-ping', embedHeight: 1300, scenario: true },
];
