// Connection slots on both engines with max_connections = 6 and 3 reserved for
// superusers: the numbers DESIGN.md quotes from a real PostgreSQL 18.4.
import { describe, expect, it } from 'vitest';
import { bothEngines } from '../support/both-engines';
import { PgError, type Engine, type SessionOptions } from '../../src/engine/types';

const settings = { max_connections: '6', superuser_reserved_connections: '3' };

/** Opens sessions in order; each entry is `ok` or the refusal's severity, code and text. */
async function openInOrder(engine: Engine, roles: SessionOptions['role'][]): Promise<string[]> {
  const outcomes: string[] = [];
  for (const role of roles) {
    try {
      await engine.openSession({ role, applicationName: role });
      outcomes.push(`${role}: ok`);
    } catch (e) {
      if (!(e instanceof PgError)) throw e;
      outcomes.push(`${role}: ${e.severity} ${e.code} ${e.message}`);
    }
  }
  return outcomes;
}

describe('connection slots on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines(settings);

  it('refuse the ordinary role with the reserved-slots message, later a superuser with too many clients', async () => {
    const order: SessionOptions['role'][] = [
      'superuser',
      'ordinary',
      'ordinary',
      'ordinary',
      'superuser',
      'superuser',
      'superuser',
      'superuser',
    ];
    const expected = [
      'superuser: ok',
      'ordinary: ok',
      'ordinary: ok',
      'ordinary: FATAL 53300 remaining connection slots are reserved for roles with the SUPERUSER attribute',
      'superuser: ok',
      'superuser: ok',
      'superuser: ok',
      'superuser: FATAL 53300 sorry, too many clients already',
    ];
    expect(await openInOrder(engines.server.engine, order)).toEqual(expected);
    expect(await openInOrder(engines.pglite, order)).toEqual(expected);
  });
});
