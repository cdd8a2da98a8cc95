/**
 * Draws the bank counter: seats are connections, an open ledger page in front of a seat
 * is a transaction (with its XID and age), the clerk is VACUUM with its pile of dead
 * tuples and the horizon it cannot file behind, the door holds refused sessions with
 * PostgreSQL's FATAL text, and a strip shows the jobs table.
 *
 * `drawCounter` reads a `CounterPicture` and writes SVG, nothing else. Joins are keyed
 * (seated sessions by pid), so a frame that changes a few sessions touches a few nodes;
 * attributes and texts are written only when they change, so a frame where only ages
 * grow costs little more than those texts.
 */
import { local, select, type BaseType, type Selection } from 'd3-selection';
import { scaleLinear, scaleSymlog } from 'd3-scale';
import 'd3-transition';
import type { CounterPicture, SeatedSession } from './counter-picture';
import { formatAge, formatCount, summarise } from './counter-describe';
import {
  layoutCounter,
  stripPages,
  textWidth,
  type CellGeometry,
  type CounterLayout,
  type DoorFigure,
  type EmptyPlace,
  type GroupLabel,
  type LegendItem,
  type Places,
  type SeatBox,
  type TextLine,
} from './counter-layout';
import { icons, type IconName } from './icons';

/** What the drawing needs besides the picture; nothing is read from globals. */
export interface DrawOptions {
  /** The width to lay out for, in CSS px; the height follows from the content. */
  width: number;
  /** `true` (the reader prefers reduced motion): no transitions, every change at once. */
  reducedMotion: boolean;
  /** Length of enter, leave and move transitions, in ms (default 200). */
  durationMs?: number;
  /** Prefix of the ids of this picture's patterns; unique per page (default `counter`). */
  idPrefix?: string;
}

type Layer = Selection<SVGGElement, unknown, null, undefined>;

/** A seated session with the seat it was given. */
interface Occupant {
  session: SeatedSession;
  seat: SeatBox;
  holdsHorizon: boolean;
}

/** Where each session sat last time, per svg: the seats it keeps. */
const seatMemory = local<Map<number, number>>();
/** Where each refused session stood at the door last time, per svg. */
const doorMemory = local<Map<string, number>>();
/** Each process's places on the counter last time, per svg. */
const placeMemory = local<Places>();
/** The motion setting of the previous draw, to stop transitions when it turns off. */
const motionMemory = local<boolean>();

const slug = (text: string) => text.replace(/[^a-z0-9]+/gi, '-').replace(/-$/, '');

/** Sets (or with `null` removes) an attribute, touching the DOM only when it changes. */
function setAttr(node: Element, name: string, value: string | number | null): void {
  if (value === null) {
    if (node.hasAttribute(name)) node.removeAttribute(name);
    return;
  }
  const text = typeof value === 'number' ? String(Math.round(value * 100) / 100) : value;
  if (node.getAttribute(name) !== text) node.setAttribute(name, text);
}

/** What each node was last drawn from, so a node whose inputs did not change is skipped. */
const drawnFrom = local<string>();

/** True (and remembers `key`) when `node` was last drawn from something else. */
function changed(node: Element, key: string): boolean {
  if (drawnFrom.get(node) === key) return false;
  drawnFrom.set(node, key);
  return true;
}

function setText(node: Element, text: string): void {
  // Changing the text node's data in place is cheaper than replacing it.
  const only = node.firstChild;
  if (only !== null && only === node.lastChild && only.nodeType === 3) {
    if ((only as Text).data !== text) (only as Text).data = text;
  } else if (node.textContent !== text) node.textContent = text;
}

/** Squeezes a text into `width` px when the estimate says it would overflow. */
function fitText(node: Element, text: string, width: number, font: number): void {
  setText(node, text);
  const tooWide = textWidth(text, font) > width;
  setAttr(node, 'textLength', tooWide ? width : null);
  setAttr(node, 'lengthAdjust', tooWide ? 'spacingAndGlyphs' : null);
}

const translate = (x: number, y: number) =>
  `translate(${Math.round(x * 100) / 100},${Math.round(y * 100) / 100})`;

function parseTranslate(value: string | null): [number, number] | null {
  const m = /translate\(([-\d.e]+),([-\d.e]+)\)/.exec(value ?? '');
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** The single child `<tag class="cls">` of `parent`, created on first use. */
function part<E extends Element>(parent: Element, tag: string, cls: string): E {
  const children = parent.children;
  for (let i = 0; i < children.length; i++) {
    const c = children[i]!;
    if (c.tagName === tag && c.classList.contains(cls)) return c as E;
  }
  return select(parent).append(tag).attr('class', cls).node() as unknown as E;
}

/** `part` for a group, as a selection to join into. */
const layer = (parent: Element, cls: string): Layer => select(part<SVGGElement>(parent, 'g', cls));

/** Where each group is headed, so a draw during its move does not start it again. */
const headingTo = local<string>();

/** Moves a group to (x, y): a tween from where it is when motion is on, else at once. */
function moveTo(node: SVGGElement, x: number, y: number, motion: boolean, ms: number): void {
  const target = translate(x, y);
  if (headingTo.get(node) === target) return;
  headingTo.set(node, target);
  const current = node.getAttribute('transform');
  if (current === target) return;
  const from = parseTranslate(current);
  if (!motion || from === null) {
    select(node).interrupt('move');
    node.setAttribute('transform', target);
    return;
  }
  select(node)
    .transition('move')
    .duration(ms)
    .attrTween(
      'transform',
      () => (t) => translate(from[0] + (x - from[0]) * t, from[1] + (y - from[1]) * t),
    );
}

/** How far a session rises from its seat as it leaves, and drops as it sits, in px. */
const RISE = 10;

/** A leaving session rises from its seat and is gone; at once without motion. */
function rise<D, P extends BaseType, PD>(
  sel: Selection<SVGGElement, D, P, PD>,
  motion: boolean,
  ms: number,
): void {
  if (!motion) {
    sel.remove();
    return;
  }
  sel
    .classed('leaving', true)
    .transition('move')
    .duration(ms)
    .attrTween('transform', function () {
      const [x, y] = parseTranslate(this.getAttribute('transform')) ?? [0, 0];
      return (t) => translate(x, y - RISE * t);
    })
    .remove();
}

/** Draws `lines` as `<text>` children of `parent`, keyed so unchanged lines stay put. */
function drawLines(parent: Layer, lines: TextLine[]): void {
  parent
    .selectChildren<SVGTextElement, TextLine>('text.line')
    .data(lines, (d) => d.key)
    .join('text')
    .each(function (d) {
      if (!changed(this, `${d.x}|${d.y}|${d.anchor}|${d.className}|${d.text}`)) return;
      setAttr(this, 'class', `line ${d.className}`);
      setAttr(this, 'x', d.x);
      setAttr(this, 'y', d.y);
      setAttr(this, 'text-anchor', d.anchor ?? null);
      setText(this, d.text);
    });
}

function pagePath(x: number, y: number, w: number, h: number): string {
  const f = Math.min(6, w / 4);
  return `M${x},${y}h${w - f}l${f},${f}v${h - f}h${-w}Z`;
}

function lockPath(x: number, y: number): string {
  return `M${x},${y + 4}h7v5h-7ZM${x + 1.5},${y + 4}v-1.5a2,2 0 0 1 4,0v1.5`;
}

/** What a reader hovering a seat reads: the session in pg_stat_activity's words. */
function occupantTitle(o: Occupant): string {
  const s = o.session;
  let text = `${s.name} (pid ${s.pid}${s.superuser ? ', superuser' : ''}), seat ${o.seat.index + 1}: ${s.state}`;
  if (s.xactAgeMs !== null) {
    // No age here: the page shows it, and a tooltip rewritten every 100 ms costs frames.
    text += `; ledger page open, ${s.xid === null ? 'no XID' : `XID ${s.xid}`}`;
    if (s.emulated) text += ' (emulated: snapshot held)';
  }
  if (s.waiting !== null) {
    text += `; waiting ${s.waiting}${s.blockedByPid === null ? '' : ` behind pid ${s.blockedByPid}`}`;
  }
  if (o.holdsHorizon) text += '; holds the horizon: VACUUM cannot file behind this page';
  return text;
}

/** The nodes inside one occupant group, kept so updates need no queries. */
interface OccupantParts {
  title: SVGTitleElement;
  page: SVGGElement;
  sheet: SVGPathElement;
  strike: SVGLineElement;
  xid: SVGTextElement;
  age: SVGTextElement;
  chair: SVGRectElement;
  ring: SVGCircleElement;
  token: SVGCircleElement;
  lock: SVGPathElement;
  name: SVGTextElement;
}
const occupantParts = local<OccupantParts>();

/** Where the parts of a seat go in a cell `width` px wide: set once per size. */
function shapeSeat(p: OccupantParts, cell: CellGeometry, width: number): void {
  const { page, chair, token, font } = cell;
  const pw = width - 4;
  setAttr(p.sheet, 'd', pagePath(2, page.y, pw, page.height));
  setAttr(p.strike, 'x1', 5);
  setAttr(p.strike, 'y1', page.y + page.height - 3);
  setAttr(p.strike, 'x2', pw - 1);
  setAttr(p.strike, 'y2', page.y + 3);
  for (const [node, y] of [
    [p.xid, page.y + page.xidY],
    [p.age, page.y + page.ageY],
  ] as const) {
    setAttr(node, 'x', 5);
    setAttr(node, 'y', y);
    setAttr(node, 'font-size', font);
  }
  setAttr(p.chair, 'x', 1);
  setAttr(p.chair, 'y', chair.y);
  setAttr(p.chair, 'width', width - 2);
  setAttr(p.chair, 'height', chair.height);
  const cx = width / 2;
  for (const [node, r] of [
    [p.token, token.r],
    [p.ring, token.r + 2.5],
  ] as const) {
    setAttr(node, 'cx', cx);
    setAttr(node, 'cy', token.cy);
    setAttr(node, 'r', r);
  }
  setAttr(p.lock, 'd', lockPath(cx + token.r - 1, token.cy - token.r - 4));
  setAttr(p.name, 'x', cx);
  setAttr(p.name, 'y', cell.nameY);
  setAttr(p.name, 'font-size', font);
}

const shapeKey = (cell: CellGeometry, width: number) => `${width}|${cell.compact}`;

function partsOf(g: SVGGElement): OccupantParts {
  const [title, page, chair, ring, token, lock, name] = g.children as unknown as Element[];
  const [sheet, strike, xid, age] = page!.children as unknown as Element[];
  return { title, page, sheet, strike, xid, age, chair, ring, token, lock, name } as OccupantParts;
}

/** Empty occupants shaped per seat size, per svg, cloned for each arriving session. */
const occupantTemplates = local<Map<string, SVGGElement>>();
/** The size each occupant was last shaped for. */
const shapedFor = local<string>();

function newOccupant(svg: SVGSVGElement, cell: CellGeometry, width: number): SVGGElement {
  const templates = occupantTemplates.get(svg) ?? new Map<string, SVGGElement>();
  occupantTemplates.set(svg, templates);
  const key = shapeKey(cell, width);
  let template = templates.get(key);
  if (!template) {
    const sel = select(svg.ownerDocument.createElementNS(svg.namespaceURI, 'g') as SVGGElement);
    sel.attr('class', 'occupant');
    sel.append('title');
    const page = sel.append('g').attr('class', 'page').attr('visibility', 'hidden');
    page.append('path').attr('class', 'page-sheet');
    page.append('line').attr('class', 'page-strike').attr('display', 'none');
    page.append('text').attr('class', 'page-xid').text(' ');
    page.append('text').attr('class', 'page-age').text(' ');
    sel.append('rect').attr('class', 'chair').attr('rx', 3);
    sel.append('circle').attr('class', 'wait-ring').attr('display', 'none');
    sel.append('circle').attr('class', 'token');
    sel.append('path').attr('class', 'lock').attr('display', 'none');
    sel.append('text').attr('class', 'name').attr('text-anchor', 'middle').text(' ');
    template = sel.node()!;
    shapeSeat(partsOf(template), cell, width);
    templates.set(key, template);
  }
  const g = template.cloneNode(true) as SVGGElement;
  occupantParts.set(g, partsOf(g));
  shapedFor.set(g, key);
  return g;
}

function updateOccupant(g: SVGGElement, o: Occupant, cell: CellGeometry): void {
  const s = o.session;
  const p = occupantParts.get(g)!;
  const size = shapeKey(cell, o.seat.width);
  if (shapedFor.get(g) !== size) {
    shapeSeat(p, cell, o.seat.width);
    shapedFor.set(g, size);
    drawnFrom.set(g, '');
  }
  const age = s.xactAgeMs === null ? '' : formatAge(s.xactAgeMs);
  const key = [
    s.name,
    s.role,
    s.superuser,
    s.state,
    s.xid,
    s.xactAgeMs === null,
    s.waiting,
    s.blockedByPid,
    s.emulated,
    o.holdsHorizon,
    o.seat.index,
    o.seat.reserved,
    o.seat.label,
    size,
  ].join('|');
  const { font } = cell;
  const textRoom = o.seat.width - 8;
  if (!changed(g, key)) {
    // Most frames only an age moved on: its text, nothing else.
    if (age !== '' && p.age.textContent !== age) fitText(p.age, age, textRoom, font);
    return;
  }
  const open = s.xactAgeMs !== null;
  const waiting = s.waiting !== null;
  setAttr(
    g,
    'class',
    `occupant role-${s.role} state-${slug(s.state)}${open ? ' in-transaction' : ''}${waiting ? ' waiting' : ''}${s.emulated ? ' emulated' : ''}${o.holdsHorizon ? ' holds-horizon' : ''}${o.seat.reserved ? ' reserved' : ''}`,
  );
  setAttr(g, 'data-pid', s.pid);
  setAttr(g, 'data-seat', o.seat.index);
  setText(p.title, occupantTitle(o));

  // Pages open and close often: hiding keeps their layout; rings and locks are rarer.
  setAttr(p.page, 'visibility', open ? null : 'hidden');
  if (open) {
    setAttr(p.strike, 'display', s.state === 'idle in transaction (aborted)' ? null : 'none');
    const wide = textWidth(`XID ${s.xid ?? ''}`, font) <= textRoom;
    const xid = s.xid === null ? 'no XID' : wide ? `XID ${s.xid}` : s.xid;
    fitText(p.xid, xid, textRoom, font);
    fitText(p.age, age, textRoom, font);
  }
  setAttr(p.ring, 'display', waiting ? null : 'none');
  setAttr(p.lock, 'display', waiting ? null : 'none');
  // The layout made the seat wide enough for its label: it is never cut.
  setText(p.name, o.seat.label);
}

/** The parts of the counter that are not sessions: desks, labels, free and reserved seats. */
function drawCounterFrame(section: SVGGElement, layout: CounterLayout): void {
  const { cell } = layout;
  select(part<SVGGElement>(section, 'g', 'desks'))
    .selectChildren<SVGRectElement, CounterLayout['desks'][number]>('rect.desk')
    .data(layout.desks, (d) => String(d.row))
    .join('rect')
    .each(function (d) {
      if (!changed(this, `${d.x}|${d.y}|${d.width}|${cell.desk.height}`)) return;
      setAttr(this, 'class', 'desk');
      setAttr(this, 'x', d.x);
      setAttr(this, 'y', d.y);
      setAttr(this, 'width', d.width);
      setAttr(this, 'height', cell.desk.height);
    });

  select(part<SVGGElement>(section, 'g', 'group-labels'))
    .selectChildren<SVGGElement, GroupLabel>('g.group-label')
    .data(layout.groups, (d) => d.key)
    .join((enter) => {
      const g = enter.append('g').attr('class', 'group-label');
      g.append('path').attr('class', 'group-icon');
      g.append('text').attr('class', 'group-name');
      g.append('line').attr('class', 'group-rule');
      return g;
    })
    .each(function (d) {
      const key = `${d.x}|${d.y}|${d.width}|${d.text}|${d.role}|${d.holdsHorizon}|${cell.labelFont}`;
      if (!changed(this, key)) return;
      setAttr(this, 'class', `group-label role-${d.role}${d.holdsHorizon ? ' holds-horizon' : ''}`);
      setAttr(this, 'transform', translate(d.x, d.y));
      const [icon, name, rule] = this.children as unknown as [Element, Element, Element];
      const size = cell.labelFont;
      setAttr(icon, 'd', icons[roleIcon[d.role]]);
      setAttr(icon, 'transform', `translate(0,${cell.labelY - size + 1}) scale(${size / 16})`);
      setAttr(name, 'x', size + 3);
      setAttr(name, 'y', cell.labelY);
      setAttr(name, 'font-size', size);
      setText(name, d.text);
      setAttr(rule, 'x1', size + 3 + textWidth(d.text, size) + 4);
      setAttr(rule, 'x2', Math.max(size + 3 + textWidth(d.text, size) + 4, d.width - 2));
      setAttr(rule, 'y1', cell.labelY - size / 3);
      setAttr(rule, 'y2', cell.labelY - size / 3);
    });

  const empty = select(part<SVGGElement>(section, 'g', 'empty-seats'));
  empty
    .selectChildren<SVGGElement, SeatBox>('g.seat')
    .data(layout.emptyReserved, (d) => String(d.index))
    .join((enter) => {
      const g = enter.append('g').attr('class', 'seat reserved');
      g.append('title');
      g.append('rect').attr('class', 'chair').attr('rx', 3);
      g.append('text').attr('class', 'reserved-mark').attr('text-anchor', 'middle').text('R');
      return g;
    })
    .each(function (d) {
      if (!changed(this, `${d.x}|${d.y}|${d.width}|${cell.compact}`)) return;
      setAttr(this, 'data-seat', d.index);
      setAttr(this, 'transform', translate(d.x, d.y));
      const [title, chair, mark] = this.children as unknown as [Element, Element, Element];
      setText(title, `Seat ${d.index + 1}, reserved for superusers, free (modelled)`);
      setAttr(chair, 'x', 1);
      setAttr(chair, 'y', cell.chair.y);
      setAttr(chair, 'width', d.width - 2);
      setAttr(chair, 'height', cell.chair.height);
      setAttr(mark, 'x', d.width / 2);
      setAttr(mark, 'y', cell.chair.y + cell.chair.height / 2 + cell.font * 0.35);
      setAttr(mark, 'font-size', cell.font + 1);
    });

  // A place a process's session left: a free seat in the process's row, kept for its next.
  select(part<SVGGElement>(section, 'g', 'vacant-seats'))
    .selectChildren<SVGGElement, EmptyPlace>('g.vacant')
    .data(layout.emptyPlaces, (d) => d.key)
    .join((enter) => {
      const g = enter.append('g').attr('class', 'vacant');
      g.append('title');
      g.append('rect').attr('class', 'free-block').attr('rx', 3);
      return g;
    })
    .each(function (d) {
      if (!changed(this, `${d.x}|${d.y}|${d.width}|${d.group}|${cell.compact}`)) return;
      setAttr(this, 'transform', translate(d.x, d.y));
      const [title, chair] = this.children as unknown as [Element, Element];
      setText(title, `A free seat, where a session of ${d.group} sat (modelled)`);
      setAttr(chair, 'x', 1);
      setAttr(chair, 'y', cell.chair.y);
      setAttr(chair, 'width', d.width - 2);
      setAttr(chair, 'height', cell.chair.height);
    });

  const free = part<SVGGElement>(section, 'g', 'free-seats');
  const f = layout.free;
  if (changed(free, `${f.x}|${f.y}|${f.width}|${f.count}|${cell.compact}`)) {
    setAttr(free, 'transform', translate(f.x, f.y));
    setAttr(free, 'data-free', f.count);
    setText(
      part<SVGTitleElement>(free, 'title', 'free-title'),
      `${formatCount(f.count)} free seats (modelled)`,
    );
    const block = part<SVGRectElement>(free, 'rect', 'free-block');
    setAttr(block, 'x', 1);
    setAttr(block, 'y', cell.chair.y);
    setAttr(block, 'width', f.width - 2);
    setAttr(block, 'height', cell.chair.height);
    setAttr(block, 'rx', 3);
    const text = part<SVGTextElement>(free, 'text', 'free-count');
    setAttr(text, 'x', f.width / 2);
    setAttr(text, 'y', cell.chair.y + cell.chair.height / 2 + cell.font * 0.35);
    setAttr(text, 'text-anchor', 'middle');
    setAttr(text, 'font-size', cell.font);
    setText(text, `${formatCount(f.count)} free`);
  }
}

const roleIcon: Record<GroupLabel['role'], IconName> = {
  worker: 'worker',
  api: 'api',
  sweeper: 'sweeper',
  clerk: 'clerk',
  you: 'person',
  other: 'person',
  reserved: 'seat',
};

/** Where each session was placed in the last draw, per seats section: `x,y` by pid. */
const placedAt = local<Map<number, string>>();
/** At most this many sessions slide to a new seat in one draw; more go at once. */
const MAX_GLIDES = 8;

function drawSeats(
  section: SVGGElement,
  picture: CounterPicture,
  layout: CounterLayout,
  motion: boolean,
  ms: number,
): void {
  const { cell } = layout;
  drawLines(layer(section, 'titles'), layout.seatsTitle);
  drawCounterFrame(section, layout);

  const horizonPid = picture.clerk.horizonPid;
  const occupants: Occupant[] = [];
  const placed = new Map<number, string>();
  const before = placedAt.get(section) ?? new Map<number, string>();
  let moved = 0;
  for (const session of picture.seats) {
    const seat = layout.seatOf.get(session.pid);
    if (seat === undefined) continue;
    occupants.push({ session, seat, holdsHorizon: session.pid === horizonPid });
    const at = `${seat.x},${seat.y}`;
    placed.set(session.pid, at);
    const was = before.get(session.pid);
    if (was !== undefined && was !== at) moved++;
  }
  placedAt.set(section, placed);
  // A few sessions sliding along read as motion; a whole counter reflowing at once (a
  // process arrived or left early in the order) reads as noise and costs frames: then
  // everyone goes straight to their new seat.
  const glide = motion && moved <= MAX_GLIDES;
  layer(section, 'occupants')
    .selectChildren<SVGGElement, Occupant>('g.occupant:not(.leaving)')
    .data(occupants, (d) => String(d.session.pid))
    .join(
      (enter) => {
        // An arriving session drops into its seat; moveTo below does the motion. A move
        // is cheaper to draw than a fade, which paints the group apart and blends it.
        const g = enter.append((d) => newOccupant(section.ownerSVGElement!, cell, d.seat.width));
        g.each(function (d) {
          this.setAttribute('transform', translate(d.seat.x, d.seat.y - (motion ? RISE : 0)));
        });
        return g;
      },
      (update) => update,
      (exit) => rise(exit, motion, ms),
    )
    .each(function (d) {
      updateOccupant(this, d, cell);
      moveTo(this, d.seat.x, d.seat.y, glide, ms);
    });

  const holder = occupants.find((o) => o.holdsHorizon);
  layer(section, 'horizon')
    .selectChildren<SVGGElement, Occupant>('g.horizon-mark')
    .data(holder ? [holder] : [], () => 'horizon')
    .join((enter) => {
      const g = enter.append('g').attr('class', 'horizon-mark');
      g.append('rect').attr('class', 'horizon-frame').attr('rx', 2);
      g.append('path').attr('class', 'horizon-flag');
      return g;
    })
    .each(function (d) {
      // The frame belongs to a page: when another page becomes the oldest, the frame is
      // on it at once, never floating between seats; it glides only with its own page.
      const samePage = this.getAttribute('data-pid') === String(d.session.pid);
      setAttr(this, 'data-xid', picture.clerk.horizonXid);
      setAttr(this, 'data-pid', d.session.pid);
      moveTo(this, d.seat.x, d.seat.y, glide && samePage, ms);
      const [frame, flag] = this.children as unknown as [Element, Element];
      const { page } = cell;
      setAttr(frame, 'x', 0.5);
      setAttr(frame, 'y', page.y - 1.5);
      setAttr(frame, 'width', d.seat.width - 1);
      setAttr(frame, 'height', page.height + 3);
      const fx = d.seat.width / 2;
      setAttr(flag, 'd', `M${fx - 5},${cell.desk.y}h10l-5,5Z`);
    });
}

function drawClerk(
  section: SVGGElement,
  picture: CounterPicture,
  layout: CounterLayout,
  ids: { hatch: string; blocked: string },
): number | null {
  const { token, pile, strip } = layout.clerk;
  drawLines(layer(section, 'lines'), layout.clerk.lines);

  const clerk = part<SVGGElement>(section, 'g', 'clerk');
  const figure = part<SVGPathElement>(clerk, 'path', 'clerk-icon');
  setAttr(figure, 'd', icons.clerk);
  setAttr(
    figure,
    'transform',
    `translate(${token.cx - token.r},${token.cy - token.r}) scale(${(2 * token.r) / 16})`,
  );
  const title = part<SVGTitleElement>(clerk, 'title', 'clerk-title');
  setText(title, 'The clerk: VACUUM');

  const dead = picture.clerk.deadTuples;
  const height = scaleSymlog().domain([0, 1_000_000]).range([0, pile.maxHeight]).clamp(true)(
    dead ?? 0,
  );
  const heap = part<SVGRectElement>(section, 'rect', 'pile');
  setAttr(heap, 'x', pile.x);
  setAttr(heap, 'y', pile.bottom - height);
  setAttr(heap, 'width', pile.width);
  setAttr(heap, 'height', height);
  setAttr(heap, 'fill', `url(#${ids.hatch})`);
  const heapTitle = part<SVGTitleElement>(heap, 'title', 'pile-title');
  setText(heapTitle, dead === null ? 'n_dead_tup not read yet' : `n_dead_tup ${formatCount(dead)}`);

  const pages = stripPages(picture);
  const horizon = picture.clerk.horizonXid;
  const xids = pages.map((s) => Number(s.xid));
  if (horizon !== null) xids.push(Number(horizon));
  let lo = Math.min(...xids);
  let hi = Math.max(...xids);
  if (!Number.isFinite(lo)) [lo, hi] = [0, 1];
  if (lo === hi) [lo, hi] = [lo - 1, hi + 1];
  // A nice domain moves only when an XID crosses a round number, not on every new XID.
  const x = scaleLinear()
    .domain([lo, hi])
    .nice()
    .range([strip.x0 + 8, strip.x1 - 8]);
  const [from, to] = x.domain() as [number, number];

  const axisNode = part<SVGGElement>(section, 'g', 'xid-strip');
  const axis = select(axisNode);
  const blocked = part<SVGRectElement>(axisNode, 'rect', 'blocked');
  const hx = horizon === null ? null : x(Number(horizon));
  setAttr(blocked, 'display', hx === null ? 'none' : null);
  setAttr(blocked, 'x', hx ?? strip.x1);
  setAttr(blocked, 'y', strip.y - 14);
  setAttr(blocked, 'width', hx === null ? 0 : strip.x1 - hx);
  setAttr(blocked, 'height', 20);
  setAttr(blocked, 'fill', `url(#${ids.blocked})`);
  const line = part<SVGLineElement>(axisNode, 'line', 'axis');
  setAttr(line, 'x1', strip.x0);
  setAttr(line, 'x2', strip.x1);
  setAttr(line, 'y1', strip.y + 6);
  setAttr(line, 'y2', strip.y + 6);
  drawLines(
    layer(axisNode, 'ends'),
    xids.length === 0
      ? [
          {
            key: 'none',
            x: (strip.x0 + strip.x1) / 2,
            y: strip.y + 18,
            text: 'no open XIDs',
            className: 'axis-label',
            anchor: 'middle',
          },
        ]
      : [
          { key: 'lo', x: strip.x0, y: strip.y + 18, text: `XID ${from}`, className: 'axis-label' },
          {
            key: 'hi',
            x: strip.x1,
            y: strip.y + 18,
            text: `XID ${to}`,
            className: 'axis-label',
            anchor: 'end',
          },
        ],
  );

  axis
    .selectChildren<SVGPathElement, SeatedSession>('path.xid-tick')
    .data(pages, (d) => String(d.pid))
    .join((enter) => {
      const p = enter.append('path').attr('class', 'xid-tick');
      p.append('title');
      return p;
    })
    .each(function (d) {
      const tx = x(Number(d.xid));
      if (!changed(this, `${tx}|${strip.y}|${d.xid}|${d.emulated}|${d.name}`)) return;
      setAttr(this, 'class', `xid-tick${d.emulated ? ' emulated' : ''}`);
      setAttr(this, 'data-xid', d.xid);
      setAttr(this, 'd', pagePath(tx - 3.5, strip.y - 8, 7, 9));
      const emulated = d.emulated ? ' (emulated: snapshot held)' : '';
      setText(this.firstChild as Element, `XID ${d.xid}: ${d.name}${emulated}`);
    });

  const mark = axis
    .selectChildren<SVGGElement, string>('g.horizon-line')
    .data(horizon === null ? [] : [horizon], () => 'horizon')
    .join((enter) => {
      const g = enter.append('g').attr('class', 'horizon-line');
      g.append('line');
      g.append('text').attr('class', 'horizon-label');
      return g;
    });
  mark.each(function (xid) {
    const hxv = x(Number(xid));
    setAttr(this, 'data-xid', xid);
    setAttr(this, 'data-x', hxv);
    const [rule, label] = this.children as unknown as [Element, Element];
    setAttr(rule, 'x1', hxv);
    setAttr(rule, 'x2', hxv);
    setAttr(rule, 'y1', strip.y - 18);
    setAttr(rule, 'y2', strip.y + 10);
    const text = `horizon XID ${xid}`;
    const rightSide = hxv + textWidth(text, 11) + 4 <= strip.x1;
    setAttr(label, 'x', rightSide ? hxv + 4 : hxv - 4);
    setAttr(label, 'y', strip.y - 12);
    setAttr(label, 'text-anchor', rightSide ? null : 'end');
    setText(label, text);
  });
  return hx;
}

/**
 * The cut-off line's reach: a dashed line from the horizon on the clerk's strip down to
 * the ledger page that holds it, so the page that stops the filing is unmistakable.
 */
function drawHorizonLink(
  section: SVGGElement,
  picture: CounterPicture,
  layout: CounterLayout,
  hx: number | null,
): void {
  const pid = picture.clerk.horizonPid;
  const seat = pid === null ? undefined : layout.seatOf.get(pid);
  const line = part<SVGPathElement>(section, 'path', 'horizon-reach');
  if (hx === null || seat === undefined) {
    setAttr(line, 'display', 'none');
    return;
  }
  // Down from the cut-off on the strip, under its labels to the left edge, down the
  // margin to the gap over the holder's row, across, and onto its page: through no text
  // and no other seat.
  const r = (v: number) => Math.round(v * 2) / 2;
  const edge = layout.cell.compact ? 1.5 : 3;
  const path = [
    `M${r(hx)},${r(layout.clerk.strip.y + 10)}`,
    `V${r(layout.clerk.strip.y + 23)}`,
    `H${edge}`,
    `V${r(seat.y - 4)}`,
    `H${r(seat.x + seat.width / 2)}`,
    `V${r(seat.y + layout.cell.page.y - 2)}`,
  ].join('');
  setAttr(line, 'display', null);
  setAttr(line, 'data-pid', pid);
  setAttr(line, 'd', path);
}

function drawDoor(section: SVGGElement, layout: CounterLayout): void {
  drawLines(layer(section, 'lines'), layout.door.lines);
  const door = part<SVGPathElement>(section, 'path', 'door-icon');
  setAttr(door, 'd', icons.door);
  setAttr(door, 'transform', `${translate(layout.door.icon.x, layout.door.icon.y)} scale(1.1)`);
  layer(section, 'figures')
    .selectChildren<SVGCircleElement, DoorFigure>('circle.door-figure')
    .data(layout.door.figures, (d) => d.key)
    .join(
      // No fades at the door: it changes often, and a figure is small.
      (enter) => {
        const c = enter.append('circle').attr('r', 6);
        c.append('title');
        return c;
      },
    )
    .each(function (d) {
      const { name, role, message } = d.session;
      if (!changed(this, `${d.x}|${d.y}|${name}|${role}|${message}`)) return;
      setAttr(this, 'class', `door-figure role-${d.session.role}`);
      setAttr(this, 'cx', d.x);
      setAttr(this, 'cy', d.y);
      setText(this.firstChild as Element, `${d.session.name}: FATAL:  ${d.session.message}`);
    });
}

function drawJobs(
  section: SVGGElement,
  picture: CounterPicture,
  layout: CounterLayout,
  hatch: string,
): void {
  const { bar } = layout.jobs;
  drawLines(layer(section, 'lines'), layout.jobs.lines);
  const { queued, running, done } = picture.jobs;
  const total = queued + running + done;
  let at = bar.x;
  const segments = (
    [
      ['queued', queued],
      ['running', running],
      ['done', done],
    ] as const
  ).map(([status, n]) => {
    const w = total === 0 ? 0 : (bar.width * n) / total;
    const seg = { status, n, x: at, w };
    at += w;
    return seg;
  });
  layer(section, 'bar')
    .selectChildren<SVGRectElement, (typeof segments)[number]>('rect.segment')
    .data(segments, (d) => d.status)
    .join((enter) => {
      const r = enter.append('rect');
      r.append('title');
      return r;
    })
    .each(function (d) {
      setAttr(this, 'class', `segment job-${d.status}`);
      setAttr(this, 'x', d.x);
      setAttr(this, 'y', bar.y);
      setAttr(this, 'width', d.w);
      setAttr(this, 'height', bar.height);
      setAttr(this, 'fill', d.status === 'running' ? `url(#${hatch})` : null);
      setText(this.firstChild as Element, `${d.status}: ${formatCount(d.n)}`);
    });
  const outline = part<SVGRectElement>(section, 'rect', 'bar-outline');
  setAttr(outline, 'x', bar.x);
  setAttr(outline, 'y', bar.y);
  setAttr(outline, 'width', bar.width);
  setAttr(outline, 'height', bar.height);
}

/** Draws a legend glyph the same way the picture draws the thing it names. */
function legendGlyph(
  g: Selection<SVGGElement, unknown, null, undefined>,
  key: LegendItem['key'],
): void {
  switch (key) {
    case 'active': {
      const active = g.append('g').attr('class', 'glyph state-active');
      active.append('circle').attr('class', 'token').attr('cx', 5).attr('cy', 9).attr('r', 4.5);
      const idle = g.append('g').attr('class', 'glyph state-idle');
      idle.append('circle').attr('class', 'token').attr('cx', 15).attr('cy', 9).attr('r', 4.5);
      break;
    }
    case 'free':
      g.append('rect')
        .attr('class', 'free-block')
        .attr('x', 0)
        .attr('y', 3)
        .attr('width', 20)
        .attr('height', 12)
        .attr('rx', 3);
      break;
    case 'reserved':
      g.append('rect')
        .attr('class', 'chair')
        .attr('x', 0)
        .attr('y', 1)
        .attr('width', 18)
        .attr('height', 14)
        .attr('rx', 3);
      g.append('text')
        .attr('class', 'reserved-mark')
        .attr('x', 9)
        .attr('y', 12)
        .attr('text-anchor', 'middle')
        .text('R');
      break;
    case 'page':
    case 'emulated':
    case 'aborted': {
      const cls =
        key === 'page'
          ? 'glyph'
          : key === 'emulated'
            ? 'glyph emulated'
            : 'glyph state-idle-in-transaction-aborted';
      const o = g.append('g').attr('class', cls);
      o.append('path')
        .attr('class', 'page-sheet')
        .attr('d', pagePath(2, 0, 14, 16));
      if (key === 'aborted')
        o.append('line')
          .attr('class', 'page-strike')
          .attr('x1', 4)
          .attr('y1', 13)
          .attr('x2', 14)
          .attr('y2', 3);
      break;
    }
    case 'waiting': {
      const o = g.append('g').attr('class', 'glyph waiting');
      o.append('circle').attr('class', 'wait-ring').attr('cx', 8).attr('cy', 9).attr('r', 7);
      o.append('circle').attr('class', 'token').attr('cx', 8).attr('cy', 9).attr('r', 4.5);
      o.append('path').attr('class', 'lock').attr('d', lockPath(12, -2));
      break;
    }
    case 'worker':
    case 'api':
    case 'sweeper':
      // The same icon the picture puts before a process's name.
      g.append('path')
        .attr('class', 'legend-icon')
        .attr('d', icons[key])
        .attr('transform', 'translate(1,1)');
      break;
    case 'horizon':
      g.append('path')
        .attr('class', 'page-sheet')
        .attr('d', pagePath(3, 1, 12, 14));
      g.append('rect')
        .attr('class', 'horizon-frame')
        .attr('x', 1)
        .attr('y', -1)
        .attr('width', 16)
        .attr('height', 18);
      break;
  }
}

function drawLegend(section: SVGGElement, layout: CounterLayout): void {
  layer(section, 'items')
    .selectChildren<SVGGElement, LegendItem>('g.legend-item')
    .data(layout.legend.items, (d) => d.key)
    .join((enter) => {
      const g = enter.append('g').attr('class', 'legend-item');
      g.each(function (d) {
        legendGlyph(select(this), d.key);
      });
      g.append('text').attr('class', 'legend-text').attr('x', 24).attr('y', 12);
      return g;
    })
    .each(function (d) {
      setAttr(this, 'transform', translate(d.x, d.y));
      setText(this.lastChild as Element, d.text);
    });
  drawLines(layer(section, 'lines'), layout.legend.lines);
}

function ensureDefs(svg: SVGSVGElement, prefix: string): { hatch: string; blocked: string } {
  const ids = { hatch: `${prefix}-hatch`, blocked: `${prefix}-blocked` };
  const node = part<SVGDefsElement>(svg, 'defs', 'patterns');
  if (node.getAttribute('data-prefix') !== prefix) {
    node.setAttribute('data-prefix', prefix);
    const defs = select(node);
    defs.selectChildren().remove();
    for (const [id, cls] of [
      [ids.hatch, 'hatch'],
      [ids.blocked, 'blocked-hatch'],
    ] as const) {
      const p = defs
        .append('pattern')
        .attr('id', id)
        .attr('class', cls)
        .attr('width', 6)
        .attr('height', 6)
        .attr('patternUnits', 'userSpaceOnUse')
        .attr('patternTransform', 'rotate(45)');
      p.append('rect').attr('class', 'hatch-ground').attr('width', 6).attr('height', 6);
      p.append('line')
        .attr('class', 'hatch-line')
        .attr('x1', 0)
        .attr('y1', 0)
        .attr('x2', 0)
        .attr('y2', 6);
    }
  }
  return ids;
}

/**
 * Draws `picture` into `svg` at `options.width` and returns the layout used. Call it
 * again with the next picture: sessions keep their seats, and only what changed moves.
 */
export function drawCounter(
  svg: SVGSVGElement,
  picture: CounterPicture,
  options: DrawOptions,
): CounterLayout {
  const motion = !options.reducedMotion;
  const ms = options.durationMs ?? 200;
  const root = select(svg);
  if (motionMemory.get(svg) === true && !motion) {
    root.selectAll('*').interrupt('move').interrupt('fade');
    root.selectAll('.leaving').remove();
    root.selectAll('[opacity]').attr('opacity', null);
    root.selectAll<SVGGElement, unknown>('g').each(function () {
      const target = headingTo.get(this);
      if (target !== undefined) this.setAttribute('transform', target);
    });
  }
  motionMemory.set(svg, motion);

  const layout = layoutCounter(
    picture,
    options.width,
    doorMemory.get(svg),
    seatMemory.get(svg),
    placeMemory.get(svg),
  );
  doorMemory.set(svg, layout.door.slots);
  seatMemory.set(svg, layout.seatIndex);
  placeMemory.set(svg, layout.places);

  const summary = summarise(picture);
  svg.classList.add('counter-picture');
  setAttr(svg, 'role', 'img');
  setAttr(svg, 'aria-label', summary);
  setAttr(svg, 'width', layout.width);
  setAttr(svg, 'height', layout.height);
  setAttr(svg, 'viewBox', `0 0 ${layout.width} ${layout.height}`);
  const title = part<SVGTitleElement>(svg, 'title', 'summary');
  if (svg.firstChild !== title) svg.insertBefore(title, svg.firstChild);
  setText(title, summary);
  const ids = ensureDefs(svg, options.idPrefix ?? 'counter');

  const section = (cls: string) => part<SVGGElement>(svg, 'g', cls);
  drawSeats(section('seats-section'), picture, layout, motion, ms);
  const hx = drawClerk(section('clerk-section'), picture, layout, ids);
  drawHorizonLink(section('horizon-link'), picture, layout, hx);
  drawDoor(section('door-section'), layout);
  drawJobs(section('jobs-section'), picture, layout, ids.hatch);
  drawLegend(section('legend'), layout);
  return layout;
}
