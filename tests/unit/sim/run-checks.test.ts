import { describe, expect, it } from 'vitest';
import type { SimEvent } from '../../../src/sim/events';
import { doubleClaims, expectedAttempts } from './run-checks';

const claim = (t: number, worker: string, jobId: number): SimEvent => ({
  t,
  type: 'job-claimed',
  worker,
  jobId,
  kind: 'convert',
});

describe('the checks over a run', () => {
  it('find a claim made while another claim of the job stands', () => {
    const log: SimEvent[] = [claim(1, 'worker-01', 4), claim(2, 'worker-02', 4)];
    expect(doubleClaims(log, 'claim-close')).toEqual([
      'job 4 claimed by worker-02 at 2 while worker-01 held it',
    ]);
  });

  it('let a job be claimed again once swept, or (hold) once its worker was killed', () => {
    const swept: SimEvent[] = [
      claim(1, 'worker-01', 4),
      { t: 2, type: 'jobs-swept', jobIds: [4] },
      claim(3, 'worker-02', 4),
    ];
    expect(doubleClaims(swept, 'claim-close')).toEqual([]);
    const killed: SimEvent[] = [
      claim(1, 'worker-01', 4),
      { t: 2, type: 'worker-killed', worker: 'worker-01', jobId: 4 },
      claim(3, 'worker-02', 4),
    ];
    expect(doubleClaims(killed, 'hold')).toEqual([]);
    expect(doubleClaims(killed, 'claim-close')).toHaveLength(1);
    expect(expectedAttempts(killed, 'claim-close')).toEqual(new Map([[4, 2]]));
    expect(expectedAttempts(killed, 'hold')).toEqual(new Map());
  });
});
