// The tables the counter demo runs on. `jobs` and its index are the article's, exactly;
// `uploads` is what the API accepts; `events` is the rest of a busy application, a few
// counter rows updated all the time, so that there are dead tuples for the clerk to file.
import type { Session } from '../engine/types';
import { timestampAt } from './clock';

/** The job queue, as the article creates it. */
export const jobsDdl = `CREATE TABLE jobs (
  id bigserial PRIMARY KEY,
  kind text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'queued',
  attempts int NOT NULL DEFAULT 0,
  run_after timestamptz NOT NULL DEFAULT now(),
  locked_by text,
  heartbeat timestamptz
);
CREATE INDEX jobs_ready ON jobs (run_after) WHERE status = 'queued'`;

export const uploadsDdl = `CREATE TABLE uploads (
  id bigserial PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
)`;

/** The counter rows of `events`; site traffic bumps one per tick. */
export const eventNames = [
  'page_view',
  'search',
  'login',
  'logout',
  'upload',
  'download',
  'share',
  'comment',
] as const;

export const eventsDdl = `CREATE TABLE events (
  id int PRIMARY KEY,
  name text NOT NULL,
  hits bigint NOT NULL DEFAULT 0,
  updated_at timestamptz
)`;

/**
 * Drops and creates the three tables, filled as the sim starts: the event counters and
 * `initialJobs` uploads with their jobs. Run by an ordinary-role session, so that the
 * ordinary role owns the tables (on a real server the superuser's would be out of its reach).
 */
export async function createSchema(session: Session, initialJobs: number): Promise<void> {
  const start = timestampAt(0);
  const counters = eventNames.map((name, i) => `(${i + 1}, '${name}')`).join(', ');
  await session.query(
    [
      'DROP TABLE IF EXISTS jobs, uploads, events',
      jobsDdl,
      uploadsDdl,
      eventsDdl,
      `INSERT INTO events (id, name) VALUES ${counters}`,
      `INSERT INTO uploads (name, created_at)
         SELECT format('upload-%s', g), '${start}' FROM generate_series(1, ${initialJobs}) g`,
      `INSERT INTO jobs (kind, payload, run_after)
         SELECT 'convert', jsonb_build_object('upload_id', id), created_at FROM uploads ORDER BY id`,
    ].join(';\n'),
  );
}
