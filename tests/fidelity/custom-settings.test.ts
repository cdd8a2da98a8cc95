// A custom setting (`app.clerk`) is a session's own on a server. PGlite's one backend keeps
// one value for every session it serves, and pg_settings does not list custom settings,
// so the layer saves them by name; one a session never set is refused, not answered ''.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types';
import { answer, kindOf } from '../support/answer';
import { bothEngines } from '../support/both-engines';

async function customSettings(engine: Engine) {
  const a = await engine.openSession({ applicationName: 'a' });
  const b = await engine.openSession({ applicationName: 'b' });
  const got = {
    set: await answer(a, "SELECT set_config('shop.clerk', 'alice', false)"),
    other: await answer(b, "SELECT current_setting('shop.clerk', true)"),
    own: await answer(a, "SELECT current_setting('shop.clerk', true)"),
    setByOther: await answer(b, "SET shop.clerk = 'bob'; SHOW shop.clerk"),
    stillOwn: await answer(a, 'SHOW shop.clerk'),
    otherOwn: await answer(b, "SELECT current_setting('shop.clerk')"),
  };
  await a.close();
  await b.close();
  return got;
}

describe('custom settings with several sessions', () => {
  const engines = bothEngines();

  it('keep each session’s value; one a session never set is refused on PGlite', async () => {
    const expected = {
      set: [['alice']],
      other: [[null]],
      own: [['alice']],
      setByOther: [['bob']],
      stillOwn: [['alice']],
      otherOwn: [['bob']],
    };
    expect(await customSettings(engines.server.engine)).toEqual(expected);
    const onPglite = await customSettings(engines.pglite);
    expect(kindOf(onPglite.other)).toBe('custom-setting');
    expect({ ...onPglite, other: [[null]] }).toEqual(expected);
  });
});
