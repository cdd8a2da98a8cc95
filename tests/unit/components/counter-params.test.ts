import { describe, expect, it } from 'vitest';
import {
  momentSearch,
  readCounterParams,
  settingsAtMoment,
} from '../../../src/components/counter-params';
import { embedParamNames } from '../../../src/components/embed-params';
import type { Checkpoint } from '../../../src/sim/counter-sim';
import { defaultSettings } from '../../../src/sim/settings';

describe('readCounterParams', () => {
  it('reads the knobs a teacher puts in an embed URL', () => {
    const { settings, paused, moment, problems } = readCounterParams(
      '?workers=30&api=2&shape=claim-close&connections=3&speed=2&seed=7&paused=1',
    );
    expect(settings).toMatchObject({
      workers: 30,
      api: 2,
      shape: 'claim-close',
      connections: 3,
      speed: 2,
      seed: 7,
    });
    expect({ paused, moment, problems }).toEqual({ paused: true, moment: null, problems: [] });
  });

  it('names each bad or unknown parameter by kind and keeps the defaults', () => {
    const { settings, paused, reasons, problems } = readCounterParams(
      '?workers=lots&shape=sideways&speed=100&colour=red&paused=maybe',
    );
    expect(settings.workers).toBe(defaultSettings.workers);
    expect(settings.shape).toBe('hold');
    expect(settings.speed).toBe(8);
    expect(paused).toBe(false);
    expect(reasons.map((r) => [r.kind, r.name])).toEqual([
      ['not-a-number', 'workers'],
      ['not-an-option', 'shape'],
      ['out-of-range', 'speed'],
      ['unknown-parameter', 'colour'],
      ['not-a-flag', 'paused'],
    ]);
    expect(problems).toHaveLength(5);
  });

  it('reads the pool and upload settings the counter’s controls have', () => {
    const { settings, reasons } = readCounterParams(
      '?uploads=6.5&pool_size=3&max_overflow=0&pre_ping=1',
    );
    expect(reasons).toEqual([]);
    expect(settings).toMatchObject({
      uploadRate: 6.5,
      poolSize: 3,
      maxOverflow: 0,
      poolPrePing: true,
    });
  });

  it('leaves the parameters every embed takes to readEmbedParams', () => {
    const search = `?${embedParamNames.map((name) => `${name}=x`).join('&')}`;
    expect(readCounterParams(search).problems).toEqual([]);
  });

  it('brings back a moment from its link, with its script checked and clamped', () => {
    const checkpoint: Checkpoint = {
      version: 1,
      settings: { ...defaultSettings, workers: 6 },
      script: [
        { atMs: 1000, command: { kind: 'workers', count: 500 } },
        { atMs: 2000, command: { kind: 'kill-worker', worker: 'worker-03' } },
      ],
      atMs: 4200,
      speed: 2,
      paused: true,
    };
    const read = readCounterParams(momentSearch(checkpoint));
    expect(read.problems).toEqual([]);
    expect(read.moment).toEqual({
      ...checkpoint,
      script: [
        { atMs: 1000, command: { kind: 'workers', count: 40 } },
        { atMs: 2000, command: { kind: 'kill-worker', worker: 'worker-03' } },
      ],
    });
    expect(read.paused).toBe(true);
  });

  it('gives the controls the settings in force at the moment, the reader’s changes applied', () => {
    const checkpoint: Checkpoint = {
      version: 1,
      settings: { ...defaultSettings, workers: 6, shape: 'claim-close', connections: 2 },
      script: [
        { atMs: 1000, command: { kind: 'workers', count: 9 } },
        { atMs: 1500, command: { kind: 'upload-rate', perSecond: 7.5 } },
        { atMs: 2000, command: { kind: 'kill-worker', worker: 'worker-03' } },
        { atMs: 3000, command: { kind: 'api', count: 3 } },
        { atMs: 3500, command: { kind: 'workers', count: 12 } },
      ],
      atMs: 4200,
      speed: 2,
      paused: true,
    };
    const expected = {
      ...checkpoint.settings,
      workers: 12,
      api: 3,
      uploadRate: 7.5,
      speed: 2,
    };
    expect(settingsAtMoment(checkpoint)).toEqual(expected);
    expect(readCounterParams(momentSearch(checkpoint)).settings).toEqual(expected);
    // What comes after the moment has not happened yet.
    expect(settingsAtMoment({ ...checkpoint, atMs: 1200 }).workers).toBe(9);
  });

  it('starts afresh, saying so, when the moment cannot be read', () => {
    const read = readCounterParams('?moment=not-a-moment');
    expect(read.moment).toBeNull();
    expect(read.problems).toEqual([
      'the link’s moment could not be read, so the counter starts afresh',
    ]);
  });
});
