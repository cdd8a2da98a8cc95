import { splitStatements } from '../engine/split-statements';
import { PgError, type QueryResult, type Session } from '../engine/types';

/**
 * Runs a script as psql does: each statement sent on its own, in order, stopping at the
 * first error. Rejects with a PgError whose position counts characters in the whole
 * script and whose `partial` holds everything that ran before it.
 */
export async function runScript(session: Session, script: string): Promise<QueryResult> {
  const done: QueryResult = { results: [], notices: [] };
  for (const { sql, offset } of splitStatements(script)) {
    try {
      const { results, notices } = await session.query(sql);
      done.results.push(...results);
      done.notices.push(...notices);
    } catch (error) {
      if (!(error instanceof PgError)) throw error;
      const fields = error.toFields();
      throw new PgError(
        {
          ...fields,
          ...(fields.position === undefined ? {} : { position: offset + fields.position }),
        },
        {
          results: [...done.results, ...error.partial.results],
          notices: [...done.notices, ...error.partial.notices],
        },
      );
    }
  }
  return done;
}
