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
  it('counts the free seats in one block and draws the reserved ones last, marked R', () => {
    const svg = newSvg();
    const layout = drawCounter(svg, picture([session(1)]), still);
    const free = svg.querySelector('g.free-seats')!;
    expect(free.getAttribute('data-free')).toBe('2');
    expect(free.textContent).toContain('2 free');
    const reserved = [...svg.querySelectorAll('g.seat.reserved')];
    expect(reserved.map((s) => s.getAttribute('data-seat'))).toEqual(['3', '4', '5']);
    for (const seat of reserved) {
      expect(seat.querySelector('.reserved-mark')!.textContent).toBe('R');
      expect(seat.querySelector('title')!.textContent).toContain('reserved for superusers');
      expect(position(seat)[0]).toBeGreaterThan(position(free)[0]);
    }
    expect(layout.groups.map((g) => g.text)).toEqual(['worker-1', 'reserved']);
  });

  it('draws the place a session left as a free seat in its process’s row, and moves no one', () => {
    const svg = newSvg();
    const names = ['worker-1/claim', 'worker-1/heartbeat', 'worker-2/claim', 'worker-2/handler'];
    const seats = names.map((name, i) => session(10 + i, { name }));
    const many = (list: SeatedSession[]) => ({ ...emptyPicture(20, 3), seats: list });
    drawCounter(svg, many(seats), still);
    const where = () =>
      new Map(
        [...svg.querySelectorAll('g.occupant')].map((g) => [
          g.getAttribute('data-pid'),
          g.getAttribute('transform'),
        ]),
      );
    const before = where();
    drawCounter(svg, many(seats.filter((s) => s.pid !== 11)), still);
    const after = where();
    expect(after.size).toBe(3);
    for (const [pid, transform] of after) expect(transform).toBe(before.get(pid));
    const vacant = [...svg.querySelectorAll('g.vacant')];
    expect(vacant).toHaveLength(1);
    expect(vacant[0]!.getAttribute('transform')).toBe(before.get('11'));
    expect(vacant[0]!.querySelector('title')!.textContent).toContain('worker-1');
    expect(svg.querySelector('g.free-seats')!.getAttribute('data-free')).toBe(String(17 - 3 - 1));
  });

  it('sits each process’s connections together under its name, each labelled in full', () => {
    const svg = newSvg();
    const names = ['worker-07/claim', 'api-1/pool-1', 'worker-07/heartbeat', 'worker-07/handler'];
    const layout = drawCounter(
      svg,
      {
        ...emptyPicture(20, 3),
        seats: names.map((name, i) =>
          session(i + 1, { name, role: name.startsWith('api') ? 'api' : 'worker' }),
        ),
      },
      still,
    );
    const groups = layout.groups.map((g) => g.text);
    expect(groups).toEqual(['worker-07', 'api-1', 'reserved']);
    const label = (pid: number) =>
      svg.querySelector(`g.occupant[data-pid="${pid}"] .name`)!.textContent;
    expect([1, 3, 4].map(label)).toEqual(['claim', 'heartbeat', 'handler']);
    expect(label(2)).toBe('pool-1');
    // worker-07's seats side by side, in the order they were opened, under its label
    const xs = [1, 3, 4].map((pid) => layout.seatOf.get(pid)!);
    expect(xs[1]!.x).toBeCloseTo(xs[0]!.x + xs[0]!.width + 2);
    expect(xs[2]!.x).toBeCloseTo(xs[1]!.x + xs[1]!.width + 2);
    const worker = layout.groups[0]!;
    expect(worker.x).toBe(xs[0]!.x);
    expect(worker.width).toBeGreaterThanOrEqual(xs[2]!.x + xs[2]!.width - xs[0]!.x);
    // every label fits its seat: nothing is cut or squeezed
    for (const seat of layout.seatOf.values()) {
      expect(seat.label.length * layout.cell.font * 0.6).toBeLessThanOrEqual(seat.width);
    }
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
    // a narrow seat's page shows the number alone; the tooltip names it
    expect(page.querySelector('.page-xid')!.textContent).toBe('750');
    expect(holder.querySelector('title')!.textContent).toContain('XID 750');
    expect(page.querySelector('.page-age')!.textContent).toBe('4 s');
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
    expect(svg.textContent).toContain('Cut-off: cannot file behind XID 750');
    const reach = svg.querySelector('path.horizon-reach')!;
    expect(reach.getAttribute('data-pid')).toBe('12');
    expect(reach.getAttribute('display')).toBeNull();
  });

  it('puts the horizon frame on the new oldest page at once, even with motion on', () => {
    const svg = newSvg();
    const moving = { width: 800, reducedMotion: false };
    const seats = [
      session(11, { state: 'idle in transaction', xid: '760', xactAgeMs: 1000 }),
      session(12, { state: 'idle in transaction', xid: '750', xactAgeMs: 9000 }),
    ];
    const holder = (pid: number, xid: string) =>
      picture(seats, {
        clerk: { deadTuples: 0, horizonXid: xid, horizonPid: pid, lastVacuum: null },
      });
    drawCounter(svg, holder(12, '750'), moving);
    const layout = drawCounter(svg, holder(11, '760'), moving);
    // No glide from worker 12's page to worker 11's: a frame between seats holds nothing.
    const mark = svg.querySelector('g.horizon-mark')!;
    expect(mark.getAttribute('data-pid')).toBe('11');
    const seat = layout.seatOf.get(11)!;
    expect(position(mark)).toEqual([seat.x, seat.y]);
    expect(hasTransition(mark)).toBe(false);
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

  it('removes exactly the occupant who left; the others keep their seats', () => {
    const svg = newSvg();
    const seats = [session(1), session(2), session(3)];
    drawCounter(svg, picture(seats), still);
    const before = new Map(
      [...svg.querySelectorAll('g.occupant')].map((g) => [g.getAttribute('data-pid'), g]),
    );
    expect(before.size).toBe(3);
    const layout = drawCounter(svg, picture([seats[0]!, seats[2]!]), still);
    const after = [...svg.querySelectorAll('g.occupant')];
    expect(after.map((g) => g.getAttribute('data-pid'))).toEqual(['1', '3']);
    expect(after[0]).toBe(before.get('1'));
    expect(after[1]).toBe(before.get('3'));
    expect(after[1]!.getAttribute('data-seat')).toBe('2');
    const seat = layout.seatOf.get(3)!;
    expect(position(after[1]!)).toEqual([seat.x, seat.y]);
  });

  it('moves a superuser out of a reserved seat when an ordinary seat frees up', () => {
    const svg = newSvg();
    const ordinary = [session(1), session(2), session(3)];
    const admin = session(9, { role: 'you', superuser: true, name: 'psql' });
    drawCounter(svg, picture([...ordinary, admin]), still);
    const seated = () => svg.querySelector('g.occupant[data-pid="9"]')!;
    expect(seated().getAttribute('data-seat')).toBe('3');
    expect(seated().classList).toContain('reserved');
    expect(seated().querySelector('.name')!.textContent).toBe('psql');
    const layout = drawCounter(svg, picture([ordinary[0]!, ordinary[2]!, admin]), still);
    expect(seated().getAttribute('data-seat')).toBe('1');
    expect(seated().classList).not.toContain('reserved');
    expect(layout.groups.map((g) => g.text)).toContain('psql');
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
    const layout = drawCounter(lively, picture([seats[0]!, session(3)]), still);
    const seat = layout.seatOf.get(3)!;
    expect(position(lively.querySelector('g.occupant[data-pid="3"]')!)).toEqual([seat.x, seat.y]);
  });

  it('lays the article’s counter out inside a 360 px wide phone screen', () => {
    const svg = newSvg();
    const parts = ['claim', 'heartbeat', 'handler'];
    const seats = Array.from({ length: 90 }, (_, i) =>
      session(1000 + i, {
        name: `worker-${String(Math.floor(i / 3) + 1).padStart(2, '0')}/${parts[i % 3]}`,
        state: i % 4 === 0 ? 'idle in transaction' : 'idle',
        xid: i % 4 === 0 ? String(700 + i) : null,
        xactAgeMs: i % 4 === 0 ? 12_000 : null,
      }),
    );
    const door = Array.from({ length: 83 }, (_, i) => ({
      name: `api-${Math.floor(i / 15) + 1}/pool-${(i % 15) + 1}`,
      role: 'api' as const,
      message: 'remaining connection slots are reserved for roles with the SUPERUSER attribute',
    }));
    const layout = drawCounter(
      svg,
      { ...emptyPicture(100, 3), seats, door },
      { width: 336, reducedMotion: true },
    );
    expect(svg.getAttribute('width')).toBe('336');
    expect(layout.cell.compact).toBe(true);
    const boxes = [...layout.seatOf.values(), ...layout.emptyReserved, layout.free];
    expect(boxes).toHaveLength(94);
    for (const box of boxes) {
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(336);
    }
    // three workers' seats to a row, so 30 workers take ten rows
    expect(new Set([...layout.seatOf.values()].map((s) => s.y)).size).toBe(10);
    expect(layout.free.count).toBe(7);
    // the door shows two rows of figures; the last place counts the rest
    const figures = svg.querySelectorAll('circle.door-figure');
    const more = Number(svg.querySelector('.door-more')!.textContent!.slice(1));
    expect(figures.length + more).toBe(83);
    for (const figure of figures) {
      expect(Number(figure.getAttribute('cx')) + 6).toBeLessThanOrEqual(336);
    }
    for (const text of svg.querySelectorAll('text.line')) {
      const chars = text.textContent!.length;
      const font = text.classList.contains('section-title') ? 13 : 12;
      const width = chars * font * 0.6;
      const anchor = text.getAttribute('text-anchor');
      const shift = anchor === 'middle' ? width / 2 : anchor === 'end' ? width : 0;
      const left = Number(text.getAttribute('x')) - shift;
      expect(left).toBeGreaterThanOrEqual(0);
      expect(left + width).toBeLessThanOrEqual(336);
    }
  });
});
