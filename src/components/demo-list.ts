/** A demo teachers can link to or embed; its id is part of a URL and never changes. */
export interface DemoInfo {
  id: string;
  title: string;
  description: string;
  /** A starting height for the iframe, in CSS pixels, before the demo reports its own. */
  embedHeight: number;
}

/** Every demo with a page under `/embed/<id>/`. */
export const demos: readonly DemoInfo[] = [
  {
    id: 'console',
    title: 'SQL console',
    description:
      'A PostgreSQL 18 session in the browser: type SQL, run it, and see the command tags, rows, ' +
      'notices and errors PostgreSQL sends back.',
    embedHeight: 640,
  },
  {
    id: 'counter',
    title: 'The bank counter',
    description:
      'Workers and API processes on real PostgreSQL sessions: seats are connections, open ledger ' +
      'pages are transactions, and the clerk (VACUUM) cannot file behind the oldest open page.',
    embedHeight: 900,
  },
];
