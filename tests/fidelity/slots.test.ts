// Connection slots on both engines with max_connections = 6 and 3 reserved for
// superusers: the numbers src/engine/ARCHITECTURE.md ("Connection slots") quotes from a
// real PostgreSQL 18.4.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bothEngines } from '../support/both-engines';
import { PgError, type Engine, type Session, type SessionOptions } from '../../src/engine/types';
import { runSpecFile } from '../support/spec-file';

const settings = { max_connections: '6', superuser_reserved_connections: '3' };

/** Opens sessions in order; each entry is `ok` or the refusal's severity, code and text. */
async function openInOrder(engine: Engine, roles: SessionOptions['role'][]): Promise<string[]> {
  const outcomes: string[] = [];
  const open: Session[] = [];
  for (const role of roles) {
    try {
      open.push(await engine.openSession({ role, applicationName: role }));
      outcomes.push(`${role}: ok`);
    } catch (e) {
      if (!(e instanceof PgError)) throw e;
      outcomes.push(`${role}: ${e.severity} ${e.code} ${e.message}`);
    }
  }
  for (const s of open) await s.close();
  return outcomes;
}

/** The isolation tester's output for the slots spec, connecting as `role`. */
async function slotsSpec(engine: Engine, role: SessionOptions['role']): Promise<string> {
  const file = path.join(import.meta.dirname, 'specs', 'slots', 'connection-slots.spec');
  const { out, status } = await runSpecFile(file, engine, { role, testName: 'connection-slots' });
  return `${out}exit status ${status}\n`;
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

  it('the slots spec: the tester as the ordinary role loses its 4th connection, as a superuser its 7th', async () => {
    const refused = (n: number, message: string) =>
      `Parsed test spec with 6 sessions\nConnection ${n} failed: FATAL:  ${message}\nexit status 1\n`;
    const ordinary = refused(
      3,
      'remaining connection slots are reserved for roles with the SUPERUSER attribute',
    );
    const superuser = refused(6, 'sorry, too many clients already');
    expect(await slotsSpec(engines.server.engine, 'ordinary')).toBe(ordinary);
    expect(await slotsSpec(engines.pglite, 'ordinary')).toBe(ordinary);
    expect(await slotsSpec(engines.server.engine, 'superuser')).toBe(superuser);
    expect(await slotsSpec(engines.pglite, 'superuser')).toBe(superuser);
  });
});
