// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { drawCounter } from '../../../src/viz/counter';
import {
  emptyPicture,
  type CounterPicture,
  type SeatedSession,
} from '../../../src/viz/counter-picture';
import { session } from './sessions';

function picture(seats: SeatedSession[], more: Partial<CounterPicture> = {}): CounterPicture {
  return { ...emptyPicture(6, 3), seats, ...more };
}

function newSvg(): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  document.body.append(svg);
  return svg;
}

const still = { width: 800, reducedMotion: true };

/** `translate(x,y)` of a group, as numbers. */
function position(node: Element): [number, number] {
  const m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(node.getAttribute('transform') ?? '');
  if (!m) throw new Error(`no translate on ${node.outerHTML.slice(0, 80)}`);
  return [Number(m[1]), Number(m[2])];
}

/** Whether any node under `root` has a d3 transition scheduled or running. */
function hasTransition(root: Element): boolean {
  return [root, ...root.querySelectorAll('*')].some(
    (node) => (node as unknown as { __transition?: object }).__transition !== undefined,
  );
}

describe('drawCounter', () => {
  it('draws one seat per connection slot and marks the reserved ones with R', () => {
    const svg = newSvg();
    drawCounter(svg, picture([]), still);
    const seats = [...svg.querySelectorAll('g.seat')];
    expect(seats).toHaveLength(6);
    const reserved = seats.filter((s) => s.classList.contains('reserved'));
    expect(reserved.map((s) => s.getAttribute('data-seat'))).toEqual(['3', '4', '5']);
    for (const seat of reserved) {
      const mark = seat.querySelector('.reserved-mark')!;
      expect(mark.textContent).toBe('R');
      expect(mark.getAttribute('display')).toBeNull();
      expect(seat.querySelector('title')!.textContent).toContain('reserved for superusers');
    }
    expect(seats[0]!.querySelector('.reserved-mark')!.getAttribute('display')).toBe('none');
  });

  it('labels the svg as an image with a summary of the counts', () => {
    const svg = newSvg();
    drawCounter(svg, picture([session(1), session(2)]), still);
    expect(svg.getAttribute('role')).toBe('img');
    const label = svg.getAttribute('aria-label')!;
    expect(label).toContain('2 of 6 seats taken (3 reserved for superusers)');
    expect(svg.firstElementChild!.tagName).toBe('title');
    expect(svg.firstElementChild!.textContent).toBe(label);
  });

  it('puts an open ledger page with its XID and age in front of an idle-in-transaction session', () => {
    const svg = newSvg();
    drawCounter(
      svg,
      picture([
        session(7, { state: 'idle in transaction', xid: '750', xactAgeMs: 4200 }),
        session(8),
      ]),
      still,
    );
    const holder = svg.querySelector('g.occupant[data-pid="7"]')!;
    expect(holder.classList.contains('state-idle-in-transaction')).toBe(true);
    const page = holder.querySelector('g.page')!;
    expect(page.getAttribute('visibility')).toBeNull();
    expect(page.querySelector('.page-xid')!.textContent).toBe('XID 750');
    expect(page.querySelector('.page-age')!.textContent).toBe('4 s');
    expect(holder.querySelector('.state-label')!.textContent).toBe('in tx');
    const idle = svg.querySelector('g.occupant[data-pid="8"] g.page')!;
    expect(idle.getAttribute('visibility')).toBe('hidden');
  });

  it('shows a transaction that holds no XID as a page saying so', () => {
    const svg = newSvg();
    drawCounter(svg, picture([session(3, { state: 'active', xactAgeMs: 10 })]), still);
    expect(svg.querySelector('g.occupant .page-xid')!.textContent).toBe('no XID');
  });

  it('sets the horizon marker at the oldest XID, on the page of the session holding it', () => {
    const svg = newSvg();
    const seats = [
      session(11, { state: 'idle in transaction', xid: '760', xactAgeMs: 1000 }),
      session(12, { state: 'idle in transaction', xid: '750', xactAgeMs: 9000 }),
      session(13, { state: 'active', xid: '790', xactAgeMs: 5 }),
    ];
    drawCounter(
      svg,
      picture(seats, {
        clerk: { deadTuples: 120, horizonXid: '750', horizonPid: 12, lastVacuum: null },
      }),
      still,
    );
    const mark = svg.querySelector('g.horizon-mark')!;
    expect(mark.getAttribute('data-pid')).toBe('12');
    expect(position(mark)).toEqual(position(svg.querySelector('g.occupant[data-pid="12"]')!));
    expect(svg.querySelector('g.occupant[data-pid="12"]')!.classList).toContain('holds-horizon');

    const line = svg.querySelector('g.horizon-line')!;
    expect(line.getAttribute('data-xid')).toBe('750');
    const ticks = [...svg.querySelectorAll('path.xid-tick')];
    const tickX = (xid: string) => {
      const tick = ticks.find((t) => t.getAttribute('data-xid') === xid)!;
      return Number(/^M([-\d.]+)/.exec(tick.getAttribute('d')!)![1]) + 3.5;
    };
    const lineX = Number(line.getAttribute('data-x'));
    expect(lineX).toBeCloseTo(tickX('750'), 1);
    expect(lineX).toBeLessThan(tickX('760'));
    expect(lineX).toBeLessThan(tickX('790'));
    expect(svg.querySelector('.horizon-label')!.textContent).toBe('horizon XID 750');
    expect(svg.textContent).toContain('Cannot file behind this page: XID 750');
  });

  it('seats refused sessions at the door with the FATAL text', () => {
    const svg = newSvg();
    const message =
      'remaining connection slots are reserved for roles with the SUPERUSER attribute';
    drawCounter(
      svg,
      picture([], {
        door: [
          { name: 'worker-4/1', role: 'worker', message },
          { name: 'worker-4/2', role: 'worker', message },
          { name: 'api-1/1', role: 'api', message: 'sorry, too many clients already' },
        ],
      }),
      still,
    );
    const figures = [...svg.querySelectorAll('circle.door-figure')];
    expect(figures).toHaveLength(3);
    expect(figures[0]!.querySelector('title')!.textContent).toBe(`worker-4/1: FATAL:  ${message}`);
    const door = svg.querySelector('g.door-section')!;
    const fatal = [...door.querySelectorAll('text.door-fatal')].map((t) => t.textContent);
    expect(fatal.join(' ')).toContain('FATAL:  remaining connection slots are reserved');
    expect(fatal.join(' ')).toContain('FATAL:  sorry, too many clients already');
    expect(door.textContent).toContain('× 2: worker-4/1, worker-4/2');
    expect(door.textContent).toContain('Door (modelled): 3 refused');
  });

  it('removes exactly the occupant who left and keeps everyone else in their seat', () => {
    const svg = newSvg();
    const seats = [session(1), session(2), session(3)];
    drawCounter(svg, picture(seats), still);
    const before = new Map(
      [...svg.querySelectorAll('g.occupant')].map((g) => [g.getAttribute('data-pid'), g]),
    );
    expect(before.size).toBe(3);
    drawCounter(svg, picture([seats[0]!, seats[2]!]), still);
    const after = [...svg.querySelectorAll('g.occupant')];
    expect(after.map((g) => g.getAttribute('data-pid'))).toEqual(['1', '3']);
    expect(after[0]).toBe(before.get('1'));
    expect(after[1]).toBe(before.get('3'));
    expect(position(after[1]!)).toEqual(position(svg.querySelector('g.seat[data-seat="2"]')!));
  });

  it('moves a superuser out of a reserved seat when an ordinary seat frees up', () => {
    const svg = newSvg();
    const ordinary = [session(1), session(2), session(3)];
    const admin = session(9, { role: 'you', superuser: true, name: 'psql' });
    drawCounter(svg, picture([...ordinary, admin]), still);
    const seatOf = (pid: number) => position(svg.querySelector(`g.occupant[data-pid="${pid}"]`)!);
    const seat = (i: number) => position(svg.querySelector(`g.seat[data-seat="${i}"]`)!);
    expect(seatOf(9)).toEqual(seat(3));
    drawCounter(svg, picture([ordinary[0]!, ordinary[2]!, admin]), still);
    expect(seatOf(9)).toEqual(seat(1));
  });

  it('shows waiting with a dashed ring and a lock, not colour alone', () => {
    const svg = newSvg();
    drawCounter(
      svg,
      picture([session(5, { state: 'active', waiting: 'Lock: transactionid', blockedByPid: 7 })]),
      still,
    );
    const g = svg.querySelector('g.occupant')!;
    expect(g.classList).toContain('waiting');
    expect(g.querySelector('.wait-ring')!.getAttribute('display')).toBeNull();
    expect(g.querySelector('.lock')!.getAttribute('d')).toBeTruthy();
    expect(g.querySelector('title')!.textContent).toContain(
      'waiting Lock: transactionid behind pid 7',
    );
  });

  it('schedules no transition with reduced motion, and does with motion', () => {
    const seats = [session(1), session(2)];
    const calm = newSvg();
    drawCounter(calm, picture(seats), still);
    drawCounter(calm, picture([seats[0]!, session(3)]), still);
    expect(hasTransition(calm)).toBe(false);
    expect(calm.querySelectorAll('g.occupant')).toHaveLength(2);

    const lively = newSvg();
    drawCounter(lively, picture(seats), { width: 800, reducedMotion: false });
    drawCounter(lively, picture([seats[0]!, session(3)]), { width: 800, reducedMotion: false });
    expect(hasTransition(lively)).toBe(true);
    // the leaver fades out and is marked so the next join ignores it
    expect(lively.querySelectorAll('g.occupant.leaving')).toHaveLength(1);
    // turning motion off stops the fades and drops the leaver at once
    drawCounter(lively, picture([seats[0]!, session(3)]), still);
    expect(hasTransition(lively)).toBe(false);
    expect(lively.querySelectorAll('g.occupant')).toHaveLength(2);
    // and the newcomer, caught dropping into its seat, is in it
    expect(position(lively.querySelector('g.occupant[data-pid="3"]')!)).toEqual(
      position(lively.querySelector('g.seat[data-seat="1"]')!),
    );
  });

  it('lays 100 seats out inside a 360 px wide phone screen', () => {
    const svg = newSvg();
    const seats = Array.from({ length: 97 }, (_, i) =>
      session(1000 + i, {
        name: `worker-${Math.floor(i / 3) + 1}/${(i % 3) + 1}`,
        state: i % 4 === 0 ? 'idle in transaction' : 'idle',
        xid: i % 4 === 0 ? String(700 + i) : null,
        xactAgeMs: i % 4 === 0 ? 12_000 : null,
      }),
    );
    const door = Array.from({ length: 83 }, (_, i) => ({
      name: `api-${Math.floor(i / 15) + 1}/${(i % 15) + 1}`,
      role: 'api' as const,
      message: 'remaining connection slots are reserved for roles with the SUPERUSER attribute',
    }));
    const layout = drawCounter(
      svg,
      { ...emptyPicture(100, 3), seats, door },
      {
        width: 360,
        reducedMotion: true,
      },
    );
    expect(svg.getAttribute('width')).toBe('360');
    expect(layout.cell.compact).toBe(true);
    const chairs = [...svg.querySelectorAll('g.seat')];
    expect(chairs).toHaveLength(100);
    for (const chair of chairs) {
      const [x] = position(chair);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x + layout.cell.width).toBeLessThanOrEqual(360);
    }
    expect(new Set(chairs.map((c) => position(c)[1])).size).toBe(Math.ceil(100 / layout.columns));
    // 21 figures fit a row and the door shows three rows; the last place counts the rest
    expect(svg.querySelectorAll('circle.door-figure')).toHaveLength(62);
    expect(svg.querySelector('.door-more')!.textContent).toBe('+21');
    for (const figure of svg.querySelectorAll('circle.door-figure')) {
      expect(Number(figure.getAttribute('cx')) + 6).toBeLessThanOrEqual(360);
    }
    for (const text of svg.querySelectorAll('text.line')) {
      const chars = text.textContent!.length;
      const font = text.classList.contains('section-title') ? 13 : 12;
      const width = chars * font * 0.6;
      const anchor = text.getAttribute('text-anchor');
      const shift = anchor === 'middle' ? width / 2 : anchor === 'end' ? width : 0;
      const left = Number(text.getAttribute('x')) - shift;
      expect(left).toBeGreaterThanOrEqual(0);
      expect(left + width).toBeLessThanOrEqual(360);
    }
  });
});
