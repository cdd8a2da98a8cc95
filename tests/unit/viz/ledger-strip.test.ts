// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import {
  clerkWords,
  describeStrip,
  drawLedgerStrip,
  pageLabel,
} from '../../../src/viz/ledger-strip';
import { session } from './sessions';

function newSvg(): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  document.body.append(svg);
  return svg;
}

const writer = session(1, {
  name: 'worker-a',
  state: 'idle in transaction',
  xid: '754',
  xactAgeMs: 0,
});
const reader = session(2, {
  name: 'report',
  state: 'idle in transaction',
  xid: '755',
  xactAgeMs: 0,
  emulated: true,
});
const waiter = session(3, {
  name: 'worker-b',
  state: 'active',
  xactAgeMs: 0,
  waiting: 'Lock/transactionid',
  blockedByPid: 1,
});

describe('drawLedgerStrip', () => {
  it('draws a seat per session, a page for each open transaction, and the clerk’s cutoff', () => {
    const svg = newSvg();
    drawLedgerStrip(
      svg,
      { seats: [writer, reader, waiter], horizon: { cutoff: '754', holderPid: 1 } },
      { width: 600 },
    );
    const seats = [...svg.querySelectorAll('g.seat')];
    expect(seats.map((g) => g.querySelector('.seat-name')!.textContent)).toEqual([
      'worker-a',
      'report',
      'worker-b',
    ]);
    expect(seats[0]!.classList.contains('holds-horizon')).toBe(true);
    expect(seats.map((g) => g.querySelector('.page text')!.textContent)).toEqual([
      'XID 754',
      'snapshot ~755',
      'open, no XID',
    ]);
    expect(seats[2]!.querySelector('.seat-state')!.textContent).toBe('active, waiting on:');
    expect(seats[2]!.querySelector('.seat-wait')!.textContent).toBe('Lock/transactionid');
    expect(svg.querySelector('.clerk')!.textContent).toContain('XID 754');
  });

  it('says nothing of the clerk before VACUUM has run, and wraps its words on a phone', () => {
    const svg = newSvg();
    drawLedgerStrip(svg, { seats: [writer], horizon: null }, { width: 320 });
    expect(svg.querySelectorAll('.clerk')).toHaveLength(0);
    const { height } = drawLedgerStrip(
      svg,
      { seats: [writer], horizon: { cutoff: '754', holderPid: 1 } },
      { width: 320 },
    );
    const lines = [...svg.querySelectorAll('.clerk')].map((t) => t.textContent!);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join(' ')).toBe(clerkWords('754'));
    for (const line of lines) expect(line.length * 6.6).toBeLessThanOrEqual(320 - 12);
    const last = [...svg.querySelectorAll('.clerk')].at(-1)!;
    expect(Number(last.getAttribute('y'))).toBeLessThanOrEqual(height);
  });

  it('keeps each page label short enough for its page, and says it all in words', () => {
    for (const s of [writer, reader, waiter]) expect(pageLabel(s).length).toBeLessThanOrEqual(20);
    const words = describeStrip({ seats: [reader], horizon: null });
    expect(words).toContain('a snapshot, stood in for by XID 755 (emulated)');
  });

  it('keeps a session in its seat from one drawing to the next', () => {
    const svg = newSvg();
    drawLedgerStrip(svg, { seats: [writer, waiter], horizon: null }, { width: 600 });
    const first = svg.querySelector('g.seat');
    drawLedgerStrip(
      svg,
      { seats: [{ ...writer, state: 'idle', xid: null, xactAgeMs: null }, waiter], horizon: null },
      { width: 600 },
    );
    expect(svg.querySelector('g.seat')).toBe(first);
    expect(first!.querySelector('.page')!.getAttribute('display')).toBe('none');
  });
});
