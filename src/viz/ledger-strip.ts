/**
 * The bank counter in small, for the scenario player: one seat per session of the
 * scenario (a connection), an open ledger page in front of it when it has a transaction
 * open, with the XID it holds or the snapshot it keeps, a "waits for" mark when its
 * statement waits, and the clerk's line: the horizon VACUUM cannot file behind.
 *
 * `drawLedgerStrip` reads a `LedgerStrip` and writes SVG, nothing else; seats are keyed
 * by pid, so a session keeps its place from one step to the next.
 */
import { select } from 'd3-selection';
import type { SeatedSession } from './counter-picture';
import { icons } from './icons';

/** What the strip shows. */
export interface LedgerStrip {
  /** The scenario's sessions, in lane order. */
  seats: SeatedSession[];
  /**
   * The horizon VACUUM last reported (`removable cutoff`), and whose ledger page holds it
   * (by pid), when known; `null` before VACUUM has run.
   */
  horizon: { cutoff: string; holderPid: number | null } | null;
}

export interface StripOptions {
  /** The width to lay out for, in CSS px. */
  width: number;
}

const SEAT_W = 164;
const SEAT_H = 96;
const GAP = 10;
const PAD = 6;
/** A line of the clerk's words, and the width of one of its characters, roughly (12 px sans). */
const LINE_H = 16;
const CHAR_W = 6.6;

/** The words a seat's page says, short enough for the page: the XID it holds, or its snapshot. */
export function pageLabel(s: SeatedSession): string {
  if (s.xactAgeMs === null) return '';
  if (s.xid === null) return 'open, no XID';
  return s.emulated ? `snapshot ~${s.xid}` : `XID ${s.xid}`;
}

/** The page in full words, for the accessible description. */
function pageWords(s: SeatedSession): string {
  if (s.xactAgeMs === null) return '';
  if (s.xid === null) return 'a transaction open that holds no XID';
  return s.emulated
    ? `a snapshot, stood in for by XID ${s.xid} (emulated)`
    : `a transaction holding XID ${s.xid}`;
}

/** The strip in one sentence, for the svg's accessible name. */
export function describeStrip(strip: LedgerStrip): string {
  const parts = strip.seats.map((s) => {
    const page = pageWords(s);
    const wait = s.waiting ? `, waiting on ${s.waiting}` : '';
    return `${s.name}: ${s.state}${page ? `, ${page}` : ''}${wait}`;
  });
  const horizon = strip.horizon ? ` VACUUM's last removable cutoff: ${strip.horizon.cutoff}.` : '';
  return `${strip.seats.length} seats taken. ${parts.join('; ')}.${horizon}`;
}

/** Draws `strip` into `svg`; call again with the next strip. */
export function drawLedgerStrip(svg: SVGSVGElement, strip: LedgerStrip, options: StripOptions) {
  const perRow = Math.max(1, Math.floor((options.width - PAD * 2 + GAP) / (SEAT_W + GAP)));
  const rows = Math.max(1, Math.ceil(strip.seats.length / perRow));
  const width = Math.max(
    SEAT_W + PAD * 2,
    Math.min(options.width, perRow * (SEAT_W + GAP) + PAD * 2),
  );
  // The clerk speaks once VACUUM has run, on as many lines as the width needs.
  const clerkLines = strip.horizon
    ? wrap(clerkWords(strip.horizon.cutoff), width - PAD * 2 - 22)
    : [];
  const height =
    rows * (SEAT_H + GAP) + PAD * 2 + clerkLines.length * LINE_H + (clerkLines.length ? 8 : 0);
  const root = select(svg)
    .attr('class', 'ledger-strip')
    .attr('role', 'img')
    .attr('aria-label', describeStrip(strip))
    .attr('width', width)
    .attr('height', height)
    .attr('viewBox', `0 0 ${width} ${height}`);

  const seats = root
    .selectAll<SVGGElement, SeatedSession>('g.seat')
    .data(strip.seats, (d) => String(d.pid))
    .join((enter) => {
      const g = enter.append('g').attr('class', 'seat');
      g.append('rect')
        .attr('class', 'chair')
        .attr('width', SEAT_W)
        .attr('height', SEAT_H)
        .attr('rx', 8);
      // The site's one icon set: the seat before the session's name, the page on its page.
      g.append('path')
        .attr('class', 'strip-icon seat-icon')
        .attr('d', icons.seat)
        .attr('transform', 'translate(7,6) scale(0.8125)');
      g.append('text').attr('class', 'seat-name').attr('x', 24).attr('y', 18);
      g.append('text').attr('class', 'seat-state').attr('x', 8).attr('y', 34);
      const page = g.append('g').attr('class', 'page').attr('transform', 'translate(8, 44)');
      page
        .append('rect')
        .attr('width', SEAT_W - 16)
        .attr('height', 24)
        .attr('rx', 3);
      page
        .append('path')
        .attr('class', 'strip-icon page-icon')
        .attr('d', icons.page)
        .attr('transform', 'translate(4,4) scale(1)');
      page.append('text').attr('x', 24).attr('y', 16);
      g.append('text').attr('class', 'seat-wait').attr('x', 8).attr('y', 86);
      return g;
    });

  seats
    .attr('transform', (_d, i) => {
      const col = i % perRow;
      const row = Math.floor(i / perRow);
      return `translate(${PAD + col * (SEAT_W + GAP)}, ${PAD + row * (SEAT_H + GAP)})`;
    })
    .attr('data-state', (d) => d.state)
    .classed('waiting', (d) => d.waiting !== null)
    .classed('holds-horizon', (d) => strip.horizon?.holderPid === d.pid);
  seats.select('.seat-name').text((d) => truncate(d.name, 16));
  seats.select('.seat-state').text((d) => (d.waiting ? `${d.state}, waiting on:` : d.state));
  seats
    .select('.page')
    .attr('display', (d) => (d.xactAgeMs === null ? 'none' : null))
    .classed('emulated', (d) => d.emulated)
    .classed('empty', (d) => d.xid === null)
    .select('text')
    .text((d) => truncate(pageLabel(d), 18));
  seats.select('.seat-wait').text((d) => (d.waiting ? truncate(d.waiting, 21) : ''));

  const top = rows * (SEAT_H + GAP) + PAD;
  root
    .selectAll<SVGPathElement, string>('path.clerk-icon')
    .data(clerkLines.length ? [icons.clerk] : [])
    .join('path')
    .attr('class', 'strip-icon clerk-icon')
    .attr('d', (d) => d)
    .attr('transform', `translate(${PAD},${top + 3})`);
  root
    .selectAll<SVGTextElement, string>('text.clerk')
    .data(clerkLines)
    .join('text')
    .attr('class', 'clerk')
    .attr('x', PAD + 22)
    .attr('y', (_d, i) => top + (i + 1) * LINE_H)
    .text((d) => d);
  return { width, height };
}

/** What the clerk says after VACUUM reported `cutoff`, in the strip's terms. */
export function clerkWords(cutoff: string): string {
  return `Clerk (VACUUM): last removable cutoff XID ${cutoff}. Rows deleted by XID ${cutoff} or later stay until it moves.`;
}

/** `text` in lines of at most `width` px, at the strip's approximate 6.6 px a character. */
function wrap(text: string, width: number): string[] {
  const max = Math.max(12, Math.floor(width / CHAR_W));
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > max) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
