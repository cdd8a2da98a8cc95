import { describe, expect, it } from 'vitest';
import {
  assignDoorSlots,
  assignSeats,
  layoutCounter,
  truncateMiddle,
  wrapText,
} from '../../../src/viz/counter-layout';
import { emptyPicture, type SeatedSession } from '../../../src/viz/counter-picture';
import { session as seated } from './sessions';

const session = (pid: number, superuser = false): SeatedSession =>
  seated(pid, { name: `s${pid}`, role: superuser ? 'you' : 'worker', superuser });

describe('assignSeats', () => {
  it('keeps ordinary roles out of the reserved seats and lets superusers in', () => {
    const picture = {
      ...emptyPicture(4, 2),
      seats: [session(1), session(2), session(3), session(4, true)],
    };
    const seats = assignSeats(new Map(), picture);
    expect([...seats]).toEqual([
      [1, 0],
      [2, 1],
      [4, 2],
    ]);
  });

  it('keeps each session in the seat it had', () => {
    const picture = { ...emptyPicture(5, 0), seats: [session(7), session(8)] };
    expect(
      assignSeats(
        new Map([
          [7, 3],
          [8, 1],
        ]),
        picture,
      ),
    ).toEqual(
      new Map([
        [7, 3],
        [8, 1],
      ]),
    );
  });
});

describe('assignDoorSlots', () => {
  it('keeps each refused session in its place and gives newcomers the first free one', () => {
    const first = assignDoorSlots(new Map(), ['a', 'b', 'c'], 4, 8);
    expect([...first]).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
    const next = assignDoorSlots(first, ['c', 'd'], 4, 8);
    expect([...next]).toEqual([
      ['c', 2],
      ['d', 0],
    ]);
  });

  it('gives up places past the rows the crowd needs, so the door shrinks', () => {
    const slots = assignDoorSlots(new Map([['z', 6]]), ['z'], 4, 8);
    expect(slots.get('z')).toBe(0);
  });

  it('keeps the last place for the count of those not drawn', () => {
    const keys = Array.from({ length: 10 }, (_, i) => `s${i}`);
    const slots = assignDoorSlots(new Map(), keys, 4, 8);
    expect(slots.size).toBe(7);
    expect(Math.max(...slots.values())).toBe(6);
  });
});

describe('layoutCounter', () => {
  it('fits the article’s 30 × 3 + 2 API counter, clerk and door into one screen at 1,120 px', () => {
    const parts = ['claim', 'heartbeat', 'handler'];
    const seats = Array.from({ length: 97 }, (_, i) =>
      seated(1000 + i, {
        name:
          i < 90
            ? `worker-${String(Math.floor(i / 3) + 1).padStart(2, '0')}/${parts[i % 3]}`
            : `api-${(i % 2) + 1}/pool-${i}`,
        role: i < 90 ? 'worker' : 'api',
      }),
    );
    for (const width of [1120, 768, 360]) {
      const layout = layoutCounter({ ...emptyPicture(100, 3), seats }, width);
      expect(layout.seatOf.size).toBe(97);
      expect(layout.free.count).toBe(0);
      expect(layout.emptyReserved.map((s) => s.index)).toEqual([97, 98, 99]);
      for (const seat of [...layout.seatOf.values(), ...layout.emptyReserved]) {
        expect(seat.x + seat.width).toBeLessThanOrEqual(width);
      }
      if (width === 1120) expect(layout.height).toBeLessThan(800);
      expect(layout.height).toBeGreaterThan(layout.seatsArea.bottom);
    }
  });
});

describe('text fitting', () => {
  it('wraps on spaces and cuts a word longer than a line', () => {
    expect(wrapText('sorry, too many clients already', 60, 10)).toEqual([
      'sorry, too',
      'many',
      'clients',
      'already',
    ]);
    expect(wrapText('abcdefghij', 30, 10)).toEqual(['abcde', 'fghij']);
  });

  it('shortens a name in the middle so its distinguishing end stays', () => {
    expect(truncateMiddle('worker-12/3', 7)).toBe('wo…12/3');
    expect(truncateMiddle('api-1/1', 7)).toBe('api-1/1');
  });
});
