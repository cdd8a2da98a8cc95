import { describe, expect, it } from 'vitest';
import {
  assignDoorSlots,
  assignSeats,
  GHOST_DRAWS,
  layoutCounter,
  type CounterLayout,
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

describe('places on the counter', () => {
  const parts = ['claim', 'heartbeat', 'handler'];
  const worker = (w: number, p: number) =>
    seated(100 * w + p, { name: `worker-${w}/${parts[p]}`, role: 'worker' });
  const everyone = Array.from({ length: 12 }, (_, i) => worker(Math.floor(i / 3) + 1, i % 3));
  /** Draws `seats` after `before`, as drawCounter does: each layout gets the last's memory. */
  const next = (seats: typeof everyone, before?: CounterLayout, max = 20) =>
    layoutCounter(
      { ...emptyPicture(max, 2), seats },
      1120,
      before?.door.slots,
      before?.seatIndex,
      before?.places,
    );
  const allBut = (pid: number) => everyone.filter((s) => s.pid !== pid);
  const at = (layout: CounterLayout) =>
    new Map([...layout.seatOf].map(([pid, box]) => [pid, `${box.x},${box.y}`]));

  it('a session leaving moves no one else: its place stays, a free seat in its process’s row', () => {
    const first = next(everyone);
    const left = worker(2, 1).pid;
    const second = next(allBut(left), first);
    for (const [pid, place] of at(second)) expect(place).toBe(at(first).get(pid));
    const vacant = second.emptyPlaces;
    expect(vacant).toHaveLength(1);
    const { x, y, width } = first.seatOf.get(left)!;
    expect(vacant[0]).toMatchObject({ group: 'worker-2', x, y, width, index: -1 });
    // The free seats are the block's and the vacant place, 18 - 11 in all.
    expect(second.free.count + vacant.length).toBe(18 - 11);
    expect(second.groups.map((g) => [g.key, g.x, g.y])).toEqual(
      first.groups.map((g) => [g.key, g.x, g.y]),
    );
  });

  it('the next session of that process takes the place its last one left', () => {
    const first = next(everyone);
    const gone = worker(3, 0).pid;
    const second = next(allBut(gone), first);
    const back = seated(999, { name: 'worker-3/claim', role: 'worker' });
    const third = next([...allBut(gone), back], second);
    expect(third.emptyPlaces).toEqual([]);
    const { x, y } = third.seatOf.get(back.pid)!;
    expect(`${x},${y}`).toBe(at(first).get(gone));
  });

  it('a process gone keeps its places a while, then they are given up and the rows close up', () => {
    const first = next(everyone);
    const without = everyone.filter((s) => !s.name.startsWith('worker-1/'));
    let layout = next(without, first);
    expect(layout.groups.map((g) => g.key)).toContain('worker-1');
    expect(layout.emptyPlaces.map((p) => p.group)).toEqual(['worker-1', 'worker-1', 'worker-1']);
    for (let i = 0; i < GHOST_DRAWS; i++) layout = next(without, layout);
    expect(layout.groups.map((g) => g.key)).not.toContain('worker-1');
    expect(layout.emptyPlaces).toEqual([]);
    expect(layout.free.count).toBe(18 - 9);
    // worker-2 now sits where worker-1 sat.
    expect(layout.seatOf.get(worker(2, 0).pid)!.x).toBe(first.seatOf.get(worker(1, 0).pid)!.x);
  });

  it('never draws more empty places than there are free seats', () => {
    // 13 ordinary seats: when 12 are taken, one free seat is all the empty places may be.
    const first = next(everyone, undefined, 15);
    const fewer = everyone.filter((s) => !s.name.startsWith('worker-4/'));
    const second = next(fewer, first, 15);
    expect(second.emptyPlaces).toHaveLength(3);
    const newcomers = [0, 1].map((i) => seated(500 + i, { name: `api-1/${i}`, role: 'api' }));
    const third = next([...fewer, ...newcomers], second, 15);
    expect(third.seatOf.size).toBe(11);
    expect(third.emptyPlaces.length + third.free.count).toBe(13 - 11);
    expect(third.emptyPlaces.length).toBeLessThanOrEqual(2);
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
