// The demo registry: every demo teachers can link to or embed, defined once. The demo
// pages, the embeds, the oEmbed files, the teacher's docs, the handouts and the tests are
// generated from it (with demo-catalog.ts, which adds what a scenario file says). A new
// kind of entry (an exercise, say) is one more member of `DemoEntry` with its own fields.
import { slotsDefaults, slotsRanges, type SlotsConfig } from '../sim/slots';
import { counterParameters } from './counter-params';
import type { ParamSpec, ParamValues } from './url-params';

/** A ready-made configuration a teacher picks in the embed builder. */
export interface Preset {
  /** Stable within its demo. */
  id: string;
  label: string;
  /** What the reader will see with it, in a sentence or two. */
  says: string;
  /** URL parameters (the demo's own and the shared ones), by name. */
  values: ParamValues;
}

interface EntryBase {
  /** Part of every URL of the demo; never changes. */
  id: string;
  /** A starting height for the iframe, in CSS pixels, before the demo reports its own. */
  embedHeight: number;
  /** What it teaches, in three lines. */
  teaches: readonly [string, string, string];
  presets: readonly Preset[];
}

/** A demo that is an interactive tool of its own (a console, a simulation). */
export interface ToolEntry extends EntryBase {
  kind: 'tool';
  title: string;
  description: string;
  /** Where the demo lives on the site besides `/demos/<id>/`, if anywhere. */
  page: string | null;
  /** URL parameters of its own, as its parser reads them (every embed also takes theme, load, present). */
  parameters: readonly ParamSpec[];
  /** The connection arithmetic the builder checks a configuration with, if any. */
  seats?: 'counter' | 'slots';
}

/** A demo played from `content/scenarios/<id>.yaml` by the scenario player. */
export interface ScenarioEntry extends EntryBase {
  kind: 'scenario';
}

export type DemoEntry = ToolEntry | ScenarioEntry;

/** The slots demo's parameters, from the ranges and defaults its parser reads (sim/slots.ts). */
export const slotsParameters: readonly ParamSpec[] = (
  Object.keys(slotsRanges) as (keyof SlotsConfig)[]
).map((key) => {
  const r = slotsRanges[key];
  return {
    kind: 'number',
    name: r.url,
    min: r.min,
    max: r.max,
    step: 1,
    whole: true,
    default: slotsDefaults[key],
    says: r.says,
  };
});

/** For projecting in class: presenter mode, dark. */
const projector: Preset = {
  id: 'projector',
  label: 'On a projector',
  says: 'Presenter mode in the dark theme: large type, strong contrast, keys step it.',
  values: { present: true, theme: 'dark' },
};

/** Every demo with a page under `/demos/<id>/` and `/embed/<id>/`. */
export const demos: readonly DemoEntry[] = [
  {
    kind: 'tool',
    id: 'console',
    title: 'SQL console',
    description:
      'A PostgreSQL 18 session in the browser: type SQL, run it, and see the command tags, rows, ' +
      'notices and errors PostgreSQL sends back.',
    embedHeight: 640,
    page: 'lab/',
    parameters: [],
    teaches: [
      'Every answer on this site is PostgreSQL’s own: here the reader types the SQL.',
      'Several sessions, one tab each, so one can hold a lock while another meets it.',
      'Errors come back with their SQLSTATE, as a driver would see them.',
    ],
    presets: [
      {
        id: 'click',
        label: 'In a long page',
        says: 'Starts when the reader presses Start; nothing is downloaded before.',
        values: { load: 'click' },
      },
      projector,
    ],
  },
  {
    kind: 'tool',
    id: 'counter',
    title: 'The bank counter',
    description:
      'Workers and API processes on real PostgreSQL sessions: seats are connections, open ledger ' +
      'pages are transactions, and the clerk (VACUUM) cannot file behind the oldest open page.',
    embedHeight: 900,
    page: 'lab/counter/',
    parameters: counterParameters,
    seats: 'counter',
    teaches: [
      'A connection takes a seat for as long as it is open, busy or not.',
      'An open transaction is a ledger page: while one holds an XID, VACUUM cannot file behind it.',
      'Too many connections and PostgreSQL turns the next one away at the door.',
    ],
    presets: [
      {
        id: 'article',
        label: 'The article’s deployment',
        says:
          'Thirty workers with three connections each and two API processes: the workers take ' +
          '90 seats, the API gets the last 4 its role may have, and its busier moments are ' +
          'refused at the door. Jobs flow, and the workers’ open pages pin the horizon.',
        values: { workers: 30, connections: 3, api: 2, shape: 'hold', uploads: 6 },
      },
      {
        id: 'article-fixed',
        label: 'The same, with the fix',
        says:
          'The same deployment, each worker claiming, committing, then working: no page stays ' +
          'open, and the clerk files everything.',
        values: { workers: 30, connections: 3, api: 2, shape: 'claim-close', uploads: 6 },
      },
      {
        id: 'one-connection',
        label: 'One connection per worker',
        says:
          'Thirty-three workers with one connection each: 33 seats, room for the API, and still ' +
          'the horizon pinned by the holding workers.',
        values: { workers: 33, connections: 1, api: 2, shape: 'hold', uploads: 4 },
      },
      {
        id: 'quiet',
        label: 'A quiet start',
        says: 'Four workers and one API process, at the defaults: a counter to explain first.',
        values: {},
      },
    ],
  },
  {
    kind: 'tool',
    id: 'slots',
    title: 'Connections multiply',
    description:
      'Workers × connections each, plus API processes × (pool_size + max_overflow), against ' +
      'max_connections: every connection asks for a real seat in start-up order, until PostgreSQL ' +
      'refuses the application, and then a superuser.',
    embedHeight: 1100,
    page: null,
    parameters: slotsParameters,
    seats: 'slots',
    teaches: [
      'Connections multiply: workers × connections each, plus every pool’s size and overflow.',
      'The ordinary role may have max_connections less the seats reserved for superusers.',
      'Who is refused, and in which words: the application first, then even a superuser.',
    ],
    presets: [
      {
        id: 'article',
        label: 'The article’s arithmetic',
        says: '30 × 3 + 2 × (5 + 10) = 120 connections for 97 seats: the API is refused.',
        values: {},
      },
      {
        id: 'fits',
        label: 'One connection per worker',
        says: '30 × 1 + 2 × (5 + 10) = 60: everyone gets a seat.',
        values: { connections: 1 },
      },
      {
        id: 'workers-take-all',
        label: 'The workers take every seat',
        says: '33 workers × 3 = 99 connections: the API never gets a seat at all.',
        values: { workers: 33 },
      },
    ],
  },
  {
    kind: 'scenario',
    id: 'skip-locked',
    embedHeight: 1200,
    teaches: [
      'Two workers claim at the same moment; the first locks its row.',
      'With SKIP LOCKED the second takes the next rows at once.',
      'Without it, the second waits on Lock/transactionid until the first commits.',
    ],
    presets: [
      {
        id: 'skip',
        label: 'With SKIP LOCKED',
        says: 'Worker B takes jobs 3 and 4 at once.',
        values: {},
      },
      {
        id: 'wait',
        label: 'Plain FOR UPDATE',
        says: 'Worker B waits until A commits, then re-checks its rows.',
        values: { lock: 'wait', hold: 3 },
      },
      projector,
    ],
  },
  {
    kind: 'scenario',
    id: 'horizon',
    embedHeight: 1300,
    teaches: [
      'One session in one of ten states; VACUUM (VERBOSE) on a table it never touched.',
      'A transaction that wrote holds an XID, and VACUUM keeps every row that died since.',
      'A READ COMMITTED reader that went idle holds nothing; REPEATABLE READ holds its snapshot.',
    ],
    presets: [
      {
        id: 'writer',
        label: 'The idle writer',
        says: 'UPDATE, then idle in transaction: the removable cutoff is its XID.',
        values: { state: 'rc-update' },
      },
      {
        id: 'reader',
        label: 'The idle reader',
        says: 'SELECT, then idle in READ COMMITTED: VACUUM removes everything.',
        values: { state: 'rc-select' },
      },
      {
        id: 'snapshot',
        label: 'REPEATABLE READ',
        says: 'A snapshot kept for the whole transaction holds the horizon too.',
        values: { state: 'rr-select' },
      },
    ],
  },
  {
    kind: 'scenario',
    id: 'activity',
    embedHeight: 1200,
    teaches: [
      'pg_stat_activity names the session that holds the horizon back.',
      'Filtering on backend_xmin misses the writer, whose XID is in backend_xid.',
      'COALESCE(backend_xmin, backend_xid) finds it, with its age.',
    ],
    presets: [
      {
        id: 'story',
        label: 'From the start',
        says: 'Every step, one press at a time.',
        values: {},
      },
      {
        id: 'play',
        label: 'Plays by itself',
        says: 'The steps follow one another, a pause between each.',
        values: { autoplay: true },
      },
      projector,
    ],
  },
  {
    kind: 'scenario',
    id: 'idle-timeout',
    embedHeight: 1200,
    teaches: [
      'idle_in_transaction_session_timeout ends a session left idle in a transaction.',
      'The horizon moves on: VACUUM removes what it kept.',
      'The client hears about it only at its next statement, with SQLSTATE 25P03.',
    ],
    presets: [
      {
        id: 'default',
        label: 'Three seconds',
        says: 'The server ends the idle worker three seconds after its claim.',
        values: {},
      },
      {
        id: 'short',
        label: 'One second',
        says: 'The same, with less waiting in class.',
        values: { timeout: 1 },
      },
    ],
  },
  {
    kind: 'scenario',
    id: 'lost-task',
    embedHeight: 1300,
    teaches: [
      'Work done in a background task dies with its process, and nobody knows.',
      'A job row outlives the process: its heartbeat goes stale.',
      'A sweeper puts the job back, and another worker picks it up.',
    ],
    presets: [
      {
        id: 'background',
        label: 'A background task, killed',
        says: 'The OOM killer ends the API process: the upload says converting forever.',
        values: { design: 'background', event: 'oom' },
      },
      {
        id: 'job-row',
        label: 'A job row, after a deploy',
        says: 'The worker is stopped by a deploy; its heartbeat goes stale and the sweeper puts the job back.',
        values: { design: 'job-row', event: 'deploy' },
      },
    ],
  },
  {
    kind: 'scenario',
    id: 'enqueue',
    embedHeight: 1300,
    teaches: [
      'The upload row and its job row in one transaction: both, or neither.',
      'A broker beside the database cannot share that transaction.',
      'A failure between the two writes leaves one without the other.',
    ],
    presets: [
      {
        id: 'together',
        label: 'One transaction',
        says: 'The handler fails between the writes: neither row is left, and it can try again.',
        values: { write: 'one-transaction', failure: 'between' },
      },
      {
        id: 'broker',
        label: 'Commit, then publish',
        says: 'The process dies between the two: the upload has no job.',
        values: { write: 'commit-then-publish', failure: 'between' },
      },
    ],
  },
  {
    kind: 'scenario',
    id: 'fix',
    embedHeight: 1500,
    teaches: [
      'A worker that holds its transaction while it works keeps a seat and an XID.',
      'Claim, commit, work holding nothing, then record: the page closes at once.',
      'The seat is held either way; it is the open transaction that keeps dead rows on disk.',
    ],
    presets: [
      {
        id: 'fix',
        label: 'The fix',
        says: 'Claim → close → work → record, live.',
        values: { shape: 'claim-close' },
      },
      {
        id: 'hold',
        label: 'Holding the transaction',
        says: 'PostgreSQL 18’s recorded output, labelled so.',
        values: { shape: 'hold' },
      },
    ],
  },
  {
    kind: 'scenario',
    id: 'pre-ping',
    embedHeight: 1300,
    teaches: [
      'A pooled connection can be closed underneath the pool.',
      'Without pre-ping, the request that draws it fails with an OperationalError.',
      'With pre-ping, the pool reconnects silently: the backend pid changes.',
    ],
    presets: [
      {
        id: 'off',
        label: 'Without pre-ping',
        says: 'The request fails on the dead connection.',
        values: { 'pre-ping': 'off' },
      },
      {
        id: 'on',
        label: 'With pre-ping',
        says: 'The pool notices and reconnects first.',
        values: { 'pre-ping': 'on' },
      },
    ],
  },
];
