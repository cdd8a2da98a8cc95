import { splitStatements } from '../engine/split-statements';
import { PgError, type QueryResult, type Session } from '../engine/types';

/**
 * Runs a script as psql does: each statement sent on its own, in order, stopping at the
 * first error. Rejects with a PgError whose position counts characters in the whole
 * script and whose `partial` holds everything that ran before it.
 */
export async function runScript(session: Session, script: string): Promise<QueryResult> {
  const done: QueryResult = { results: [], notices: [] };
  const add = (more: QueryResult) => {
    done.results.push(...more.results);
    done.notices.push(...more.notices);
    const omitted = (done.noticesOmitted ?? 0) + (more.noticesOmitted ?? 0);
    if (omitted) done.noticesOmitted = omitted;
  };
  for (const { sql, offset } of splitStatements(script)) {
    try {
      add(await session.query(sql));
    } catch (error) {
      if (!(error instanceof PgError)) throw error;
      const fields = error.toFields();
      add(error.partial);
      throw new PgError(
        {
          ...fields,
          ...(fields.position === undefined ? {} : { position: offset + fields.position }),
        },
        done,
      );
    }
  }
  return done;
}
