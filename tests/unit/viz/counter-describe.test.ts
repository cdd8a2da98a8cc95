import { describe, expect, it } from 'vitest';
import { describeChange, formatAge, summarise } from '../../../src/viz/counter-describe';
import { emptyPicture, type CounterPicture } from '../../../src/viz/counter-picture';
import { session } from './sessions';

const base = (more: Partial<CounterPicture> = {}): CounterPicture => ({
  ...emptyPicture(100, 3),
  ...more,
});

const refused = (name: string) => ({
  name,
  role: 'worker' as const,
  message: 'sorry, too many clients already',
});

describe('formatAge', () => {
  it('shows whole seconds, then minutes and hours', () => {
    expect(formatAge(0)).toBe('<1 s');
    expect(formatAge(4200)).toBe('4 s');
    expect(formatAge(42_900)).toBe('42 s');
    expect(formatAge(185_000)).toBe('3 min');
    expect(formatAge(7_300_000)).toBe('2 h');
  });
});

describe('summarise', () => {
  it('names every count the picture shows', () => {
    expect(
      summarise(
        base({
          seats: [
            session(1, { state: 'idle in transaction', xid: '750', xactAgeMs: 4000 }),
            session(2, { waiting: 'Lock: transactionid' }),
          ],
          door: [refused('worker-9/1')],
          clerk: { deadTuples: 1234, horizonXid: '750', horizonPid: 1, lastVacuum: null },
          jobs: { queued: 10, running: 2, done: 1000 },
        }),
      ),
    ).toBe(
      'Bank counter (seats and door modelled): 2 of 100 seats taken (3 reserved for superusers); 1 ledger page open (oldest XID 750, 4 s); 1 waiting on a lock; 1 refused at the door; 1,234 dead tuples; horizon at XID 750, held by pid 1; jobs 10 queued, 2 running, 1,000 done.',
    );
  });
});

describe('describeChange', () => {
  it('says who sat down, which pages are open and who was refused', () => {
    const prev = base();
    const next = base({
      seats: [
        session(1, { state: 'idle in transaction', xid: '750', xactAgeMs: 4000 }),
        session(2, { state: 'active', xid: '751', xactAgeMs: 100 }),
        session(3),
      ],
      door: [refused('worker-4/1')],
    });
    expect(describeChange(prev, next)).toBe(
      '3 worker connections seated, 2 ledger pages open (oldest XID 750, 4 s), 1 refused at the door.',
    );
  });

  it('is silent when only ages grew', () => {
    const at = (age: number) =>
      base({ seats: [session(1, { state: 'idle in transaction', xid: '9', xactAgeMs: age })] });
    expect(describeChange(at(1000), at(2000))).toBe('');
  });

  it('names leavers by role, the horizon moving and the dead tuples', () => {
    const prev = base({
      seats: [
        session(1, { state: 'idle in transaction', xid: '750', xactAgeMs: 9000 }),
        session(2, { role: 'api', name: 'api-1/1' }),
        session(3, { role: 'api', name: 'api-1/2' }),
      ],
      clerk: { deadTuples: 10, horizonXid: '750', horizonPid: 1, lastVacuum: null },
    });
    const next = base({
      seats: [],
      clerk: {
        deadTuples: 0,
        horizonXid: null,
        horizonPid: null,
        lastVacuum: { table: 'jobs', removed: 10, notYetRemovable: 0, cutoff: '752' },
      },
    });
    expect(describeChange(prev, next)).toBe(
      '1 worker connection left, 2 API connections left, no ledger pages open, nothing holds the horizon, 0 dead tuples, VACUUM on jobs: 10 removed, 0 not yet removable, cutoff XID 752.',
    );
  });

  it('counts only newly refused sessions and says when the door empties', () => {
    const one = base({ door: [refused('a')] });
    const two = base({ door: [refused('a'), refused('b')] });
    expect(describeChange(one, two)).toBe('1 refused at the door.');
    expect(describeChange(two, base())).toBe('no one at the door.');
  });

  it('gives the full summary when there is no previous moment', () => {
    const p = base();
    expect(describeChange(null, p)).toBe(summarise(p));
  });
});
