// The slots demo's run on both engines at the article's numbers: 30 workers × 3 and two
// API pools of 5 + 10 ask for 120 seats where the ordinary role has 97. The refusals and
// their words must be PostgreSQL 18's.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types';
import {
  readServerSlots,
  slotsDefaults,
  SlotsRun,
  startupOrder,
  type AskOutcome,
} from '../../src/sim/slots';
import { bothEngines } from '../support/both-engines';

/** A run as text: who asked, and the seat it got or the refusal's code and words. */
async function play(engine: Engine): Promise<{ ordinary: string[]; superuser: string[] }> {
  const server = await readServerSlots(engine);
  expect(server).toEqual({
    maxConnections: 100,
    superuserReserved: 3,
    reserved: 0,
    alreadyOpen: 0,
  });
  const run = new SlotsRun(engine);
  const line = (o: AskOutcome) =>
    `${o.ask.process} ${o.ask.what}: ` +
    ('seat' in o
      ? `seat ${o.seat}`
      : `${o.refused.severity} ${o.refused.code} ${o.refused.message}`);
  try {
    await run.askAll(startupOrder(slotsDefaults));
    const ordinary = run.outcomes.map(line);
    const superuser: string[] = [];
    for (let i = 1; i <= 4; i++)
      superuser.push(line(await run.ask({ process: 'you', what: `superuser ${i}` }, 'superuser')));
    return { ordinary, superuser };
  } finally {
    await run.close();
  }
}

describe('the slots demo on PGlite and on PostgreSQL 18', () => {
  const engines = bothEngines();

  it('the 98th ordinary ask, an API pool connection, gets 53300; a superuser gets 3 more seats', async () => {
    const onServer = await play(engines.server.engine);
    expect(onServer.ordinary).toHaveLength(120);
    expect(onServer.ordinary.filter((l) => l.includes('seat '))).toHaveLength(97);
    expect(onServer.ordinary[89]).toBe('worker-30 handler: seat 90');
    expect(onServer.ordinary[96]).toBe('api-1 pool connection 4: seat 97');
    expect(onServer.ordinary[97]).toBe(
      'api-2 pool connection 4: FATAL 53300 remaining connection slots are reserved for roles with the SUPERUSER attribute',
    );
    expect(onServer.superuser).toEqual([
      'you superuser 1: seat 98',
      'you superuser 2: seat 99',
      'you superuser 3: seat 100',
      'you superuser 4: FATAL 53300 sorry, too many clients already',
    ]);
    expect(await play(engines.pglite)).toEqual(onServer);
  });
});
