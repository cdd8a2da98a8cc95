// The slots demo's arithmetic, its start-up order and its URL.
import { describe, expect, it } from 'vitest';
import { demand, readSlotsParams, slotsDefaults, startupOrder } from '../../../src/sim/slots';

describe('the slot arithmetic', () => {
  it('is the article’s at its defaults: 30 × 3 + 2 × (5 + 10) = 120', () => {
    expect(demand(slotsDefaults)).toEqual({ workers: 90, api: 30, total: 120 });
  });

  it('starts the workers first, each with its connections, then the API pools in turns', () => {
    const asks = startupOrder({ workers: 2, perWorker: 3, api: 2, poolSize: 1, maxOverflow: 1 });
    expect(asks.map((a) => `${a.process} ${a.what}`)).toEqual([
      'worker-01 claim loop',
      'worker-01 heartbeat',
      'worker-01 handler',
      'worker-02 claim loop',
      'worker-02 heartbeat',
      'worker-02 handler',
      'api-1 pool connection 1',
      'api-2 pool connection 1',
      'api-1 pool connection 2 (overflow)',
      'api-2 pool connection 2 (overflow)',
    ]);
    expect(startupOrder(slotsDefaults)).toHaveLength(120);
  });
});

describe('a slots URL', () => {
  it('takes its five numbers', () => {
    expect(readSlotsParams('?workers=10&connections=2&api=1&pool_size=3&max_overflow=0')).toEqual({
      config: { workers: 10, perWorker: 2, api: 1, poolSize: 3, maxOverflow: 0 },
      problems: [],
    });
  });

  it('names what it cannot use and keeps the default', () => {
    const { config, problems } = readSlotsParams('?workers=99&api=x&color=red&theme=dark', [
      'theme',
    ]);
    expect(config).toEqual(slotsDefaults);
    expect(problems).toEqual([
      'workers must be a whole number from 0 to 40, not "99"; 30 is used',
      'api must be a whole number from 0 to 4, not "x"; 2 is used',
      'unknown parameter color ignored',
    ]);
  });
});
