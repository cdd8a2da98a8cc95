// An exercise's sessions, setup and steps, written in the scenario format and checked by
// its schema as the module loads, so a mistake fails the build and the tests. Every
// exercise gets one more session, the one its checks run on.
import { scenarioSchema, type Scenario } from '../scenario/schema';

/** The session the checks run on: it has no console tab and sends no step. */
export const checkSession = 'check';

/** `source` (a scenario file's fields, without the check session) checked by the schema. */
export function exerciseScenario(
  id: string,
  source: { sessions: object[]; [field: string]: unknown },
): Scenario {
  const parsed = scenarioSchema.safeParse({
    ...source,
    sessions: [
      ...source.sessions,
      { name: checkSession, application_name: 'exercise check', role_in_story: 'the page’s check' },
    ],
  });
  if (!parsed.success)
    throw new Error(
      `exercise ${id}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return { ...parsed.data, id };
}

/** A jobs table of `jobs` queued rows and a ledger of 100 rows, and their teardown. */
export function jobsAndLedger(jobs: number): { setup: string; teardown: string } {
  return {
    setup: `CREATE TABLE jobs (id int PRIMARY KEY, status text NOT NULL DEFAULT 'queued');
INSERT INTO jobs (id) SELECT generate_series(1, ${jobs});
CREATE TABLE ledger (id int, note text);
INSERT INTO ledger SELECT g, 'page ' || g FROM generate_series(1, 100) g;`,
    teardown: 'DROP TABLE ledger, jobs;',
  };
}

/** The cleaner's two steps: 40 rows of ledger deleted, and VACUUM made to keep them. */
export function cleanerSteps(why: string) {
  return [
    {
      session: 'cleaner',
      sql: 'DELETE FROM ledger WHERE id <= 40;',
      say: 'The cleaner deletes 40 rows of ledger, a table no worker touched.',
      claims: [{ says: 'The cleaner deletes 40 rows', tag: 'DELETE 40' }],
    },
    {
      session: 'cleaner',
      sql: 'VACUUM (VERBOSE) ledger;',
      say: why,
      claims: [
        {
          says: 'The 40 dead rows are “dead but not yet removable”',
          notice: { matches: '(\\d+) are dead but not yet removable', equals: 40 },
        },
      ],
    },
  ];
}
