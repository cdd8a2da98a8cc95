import { describe, expect, it } from 'vitest';
import { defaultSettings, normaliseSettings } from '../../../src/sim/settings';

describe('normaliseSettings', () => {
  it('gives the defaults for nothing', () => {
    expect(normaliseSettings(undefined)).toEqual({ settings: defaultSettings, problems: [] });
    expect(normaliseSettings({})).toEqual({ settings: defaultSettings, problems: [] });
  });

  it('reads the strings of an embed URL', () => {
    const { settings, problems } = normaliseSettings({
      workers: '30',
      shape: 'claim-close',
      speed: '2',
      poolPrePing: 'true',
      uploadRate: '2.5',
    });
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({
      workers: 30,
      shape: 'claim-close',
      speed: 2,
      poolPrePing: true,
      uploadRate: 2.5,
    });
  });

  it('clamps numbers to their range and rounds whole ones, saying which', () => {
    const { settings, problems } = normaliseSettings({
      workers: 99,
      connections: 0,
      api: 1.6,
      speed: 20,
    });
    expect(settings).toMatchObject({ workers: 40, connections: 1, api: 2, speed: 8 });
    expect(problems).toEqual([
      'workers 99 is outside 0–40; using 40',
      'connections 0 is outside 1–3; using 1',
      'api must be a whole number, not 1.6; using 2',
      'speed 20 is outside 0.25–8; using 8',
    ]);
  });

  it('falls back on defaults for values it cannot read, and names unknown settings', () => {
    const { settings, problems } = normaliseSettings({
      shape: 'hug',
      workers: 'many',
      poolPrePing: 'maybe',
      colour: 'red',
    });
    expect(settings).toEqual(defaultSettings);
    expect(problems).toEqual([
      'shape must be hold or claim-close, not "hug"; using hold',
      'workers must be a number, not "many"; using 4',
      'poolPrePing must be true or false, not "maybe"; using false',
      'unknown setting colour ignored',
    ]);
  });

  it('keeps each range’s low end at or below its high end', () => {
    const { settings, problems } = normaliseSettings({ workMinMs: 9000, workMaxMs: 3000 });
    expect([settings.workMinMs, settings.workMaxMs]).toEqual([3000, 3000]);
    expect(problems).toEqual(['workMinMs is above workMaxMs; using 3000 for both']);
  });

  it('refuses a settings value that is not an object', () => {
    expect(normaliseSettings('workers=3').problems).toEqual([
      'settings must be an object; using the defaults',
    ]);
  });
});
