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
import type { CounterPicture, SeatRole, SeatedSession, SessionState } from './counter-picture';
import { formatAge, formatCount, summarise } from './counter-describe';
import {
  assignSeats,
  layoutCounter,
  stripPages,
  textWidth,
  truncateMiddle,
  type CellGeometry,
  type CounterLayout,
  type DoorFigure,
  type LegendItem,
  type SeatBox,
  type TextLine,
} from './counter-layout';

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
/** The motion setting of the previous draw, to stop transitions when it turns off. */
const motionMemory = local<boolean>();

const roleLetter: Record<SeatRole, string> = {
  worker: 'W',
  api: 'A',
  sweeper: 'S',
  clerk: 'V',
  you: 'Y',
  other: 'O',
};

const stateLabel: Record<SessionState, [full: string, compact: string]> = {
  active: ['active', 'act'],
  idle: ['idle', 'idle'],
  'idle in transaction': ['in tx', 'tx'],
  'idle in transaction (aborted)': ['aborted', 'abrt'],
};

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
  ring: SVGCircleElement;
  token: SVGCircleElement;
  letter: SVGTextElement;
  lock: SVGPathElement;
  state: SVGTextElement;
  name: SVGTextElement;
}
const occupantParts = local<OccupantParts>();

/** Where the parts of an occupant go in a cell of this geometry: set once per cell size. */
function shapeOccupant(p: OccupantParts, cell: CellGeometry): void {
  const { page, token, font } = cell;
  setAttr(p.sheet, 'd', pagePath(page.x, page.y, page.width, page.height));
  setAttr(p.strike, 'x1', page.x + 3);
  setAttr(p.strike, 'y1', page.y + page.height - 3);
  setAttr(p.strike, 'x2', page.x + page.width - 3);
  setAttr(p.strike, 'y2', page.y + 3);
  for (const [node, y] of [
    [p.xid, page.y + page.xidY],
    [p.age, page.y + page.ageY],
  ] as const) {
    setAttr(node, 'x', page.x + 3);
    setAttr(node, 'y', y);
    setAttr(node, 'font-size', font);
  }
  for (const [node, r] of [
    [p.token, token.r],
    [p.ring, token.r + 2.5],
  ] as const) {
    setAttr(node, 'cx', token.cx);
    setAttr(node, 'cy', token.cy);
    setAttr(node, 'r', r);
  }
  setAttr(p.lock, 'd', lockPath(token.cx + token.r - 1, token.cy - token.r - 4));
  setAttr(p.letter, 'x', token.cx);
  setAttr(p.letter, 'y', token.cy + font * 0.35);
  setAttr(p.letter, 'font-size', font);
  setAttr(p.state, 'x', cell.state.x);
  setAttr(p.state, 'y', cell.state.y);
  setAttr(p.state, 'font-size', font - 1);
  setAttr(p.name, 'x', cell.chair.x);
  setAttr(p.name, 'y', cell.nameY);
  setAttr(p.name, 'font-size', font);
}

const cellKey = (cell: CellGeometry) => `${cell.width}|${cell.compact}`;

function partsOf(g: SVGGElement): OccupantParts {
  const [title, page, ring, token, letter, lock, state, name] = g.children as unknown as Element[];
  const [sheet, strike, xid, age] = page!.children as unknown as Element[];
  return {
    title,
    page,
    sheet,
    strike,
    xid,
    age,
    ring,
    token,
    letter,
    lock,
    state,
    name,
  } as OccupantParts;
}

/** An empty occupant shaped for `cell`, per svg, cloned for each arriving session. */
const occupantTemplate = local<{ key: string; node: SVGGElement }>();
/** The cell geometry each occupant was last shaped for. */
const shapedFor = local<string>();

function newOccupant(svg: SVGSVGElement, cell: CellGeometry): SVGGElement {
  let template = occupantTemplate.get(svg);
  if (template?.key !== cellKey(cell)) {
    const sel = select(svg.ownerDocument.createElementNS(svg.namespaceURI, 'g') as SVGGElement);
    sel.attr('class', 'occupant');
    sel.append('title');
    const page = sel.append('g').attr('class', 'page').attr('visibility', 'hidden');
    page.append('path').attr('class', 'page-sheet');
    page.append('line').attr('class', 'page-strike').attr('display', 'none');
    page.append('text').attr('class', 'page-xid').text(' ');
    page.append('text').attr('class', 'page-age').text(' ');
    sel.append('circle').attr('class', 'wait-ring').attr('display', 'none');
    sel.append('circle').attr('class', 'token');
    sel.append('text').attr('class', 'token-letter').attr('text-anchor', 'middle').text(' ');
    sel.append('path').attr('class', 'lock').attr('display', 'none');
    sel.append('text').attr('class', 'state-label').text(' ');
    sel.append('text').attr('class', 'name').text(' ');
    template = { key: cellKey(cell), node: sel.node()! };
    shapeOccupant(partsOf(template.node), cell);
    occupantTemplate.set(svg, template);
  }
  const g = template.node.cloneNode(true) as SVGGElement;
  occupantParts.set(g, partsOf(g));
  shapedFor.set(g, template.key);
  return g;
}

function updateOccupant(g: SVGGElement, o: Occupant, cell: CellGeometry): void {
  const s = o.session;
  const p = occupantParts.get(g)!;
  if (shapedFor.get(g) !== cellKey(cell)) {
    shapeOccupant(p, cell);
    shapedFor.set(g, cellKey(cell));
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
    cellKey(cell),
  ].join('|');
  const { page, font } = cell;
  if (!changed(g, key)) {
    // Most frames only an age moved on: its text and the tooltip, nothing else.
    if (age !== '' && p.age.textContent !== age) fitText(p.age, age, page.width - 8, font);
    return;
  }
  const open = s.xactAgeMs !== null;
  const waiting = s.waiting !== null;
  setAttr(
    g,
    'class',
    `occupant role-${s.role} state-${slug(s.state)}${open ? ' in-transaction' : ''}${waiting ? ' waiting' : ''}${s.emulated ? ' emulated' : ''}${o.holdsHorizon ? ' holds-horizon' : ''}`,
  );
  setAttr(g, 'data-pid', s.pid);
  setText(p.title, occupantTitle(o));

  // Pages open and close often: hiding keeps their layout; rings and locks are rarer.
  setAttr(p.page, 'visibility', open ? null : 'hidden');
  if (open) {
    setAttr(p.strike, 'display', s.state === 'idle in transaction (aborted)' ? null : 'none');
    const xid = s.xid === null ? 'no XID' : cell.compact ? s.xid : `XID ${s.xid}`;
    fitText(p.xid, xid, page.width - 8, font);
    fitText(p.age, age, page.width - 8, font);
  }
  setAttr(p.ring, 'display', waiting ? null : 'none');
  setAttr(p.lock, 'display', waiting ? null : 'none');
  setText(p.letter, roleLetter[s.role]);
  fitText(p.state, stateLabel[s.state][cell.compact ? 1 : 0], cell.state.width, font - 1);

  const nameWidth = cell.width - 6 - (o.seat.reserved ? 10 : 0);
  // A name up to 15% too long is squeezed rather than cut: `worker-12/3` stays whole.
  const chars = Math.floor((nameWidth / (font * 0.6)) * 1.15);
  fitText(p.name, truncateMiddle(s.name, chars), nameWidth, font);
}

function drawDesks(desks: Layer, layout: CounterLayout): void {
  const { cell } = layout;
  desks
    .selectChildren<SVGRectElement, CounterLayout['desks'][number]>('rect.desk')
    .data(layout.desks, (d) => String(d.row))
    .join('rect')
    .each(function (d) {
      setAttr(this, 'class', 'desk');
      setAttr(this, 'x', d.x);
      setAttr(this, 'y', d.y);
      setAttr(this, 'width', d.width);
      setAttr(this, 'height', cell.desk.height);
    });
}

function drawChairs(chairs: Layer, layout: CounterLayout): void {
  const { cell } = layout;
  chairs
    .selectChildren<SVGGElement, SeatBox>('g.seat')
    .data(layout.seats, (d) => String(d.index))
    .join((enter) => {
      const g = enter.append('g');
      g.append('title');
      g.append('rect').attr('class', 'chair').attr('rx', 4);
      g.append('text').attr('class', 'reserved-mark').attr('text-anchor', 'end').text('R');
      return g;
    })
    .each(function (d) {
      setAttr(this, 'class', d.reserved ? 'seat reserved' : 'seat');
      setAttr(this, 'data-seat', d.index);
      setAttr(this, 'transform', translate(d.x, d.y));
      const [title, chair, mark] = this.children as unknown as [Element, Element, Element];
      setText(
        title,
        `Seat ${d.index + 1} of ${layout.seats.length}${d.reserved ? ', reserved for superusers' : ''} (modelled)`,
      );
      setAttr(chair, 'x', cell.chair.x);
      setAttr(chair, 'y', cell.chair.y);
      setAttr(chair, 'width', cell.chair.width);
      setAttr(chair, 'height', cell.chair.height);
      setAttr(mark, 'display', d.reserved ? null : 'none');
      setAttr(mark, 'x', cell.width - 3);
      setAttr(mark, 'y', cell.nameY);
      setAttr(mark, 'font-size', cell.font + 1);
    });
}

function drawSeats(
  section: SVGGElement,
  picture: CounterPicture,
  layout: CounterLayout,
  seatOf: Map<number, number>,
  motion: boolean,
  ms: number,
): void {
  const { cell } = layout;
  drawLines(layer(section, 'titles'), layout.seatsTitle);

  // Desks and chairs depend only on the width and the seat counts.
  const frame = `${layout.width}|${layout.seats.length}|${picture.superuserReserved}`;
  const desks = part<SVGGElement>(section, 'g', 'desks');
  if (changed(desks, frame)) drawDesks(select(desks), layout);
  const chairs = part<SVGGElement>(section, 'g', 'chairs');
  if (changed(chairs, frame)) drawChairs(select(chairs), layout);

  const horizonPid = picture.clerk.horizonPid;
  const occupants: Occupant[] = [];
  for (const session of picture.seats) {
    const at = seatOf.get(session.pid);
    if (at === undefined) continue;
    occupants.push({ session, seat: layout.seats[at]!, holdsHorizon: session.pid === horizonPid });
  }
  layer(section, 'occupants')
    .selectChildren<SVGGElement, Occupant>('g.occupant:not(.leaving)')
    .data(occupants, (d) => String(d.session.pid))
    .join(
      (enter) => {
        // An arriving session drops into its seat; moveTo below does the motion. A move
        // is cheaper to draw than a fade, which paints the group apart and blends it.
        const g = enter.append(() => newOccupant(section.ownerSVGElement!, cell));
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
      moveTo(this, d.seat.x, d.seat.y, motion, ms);
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
      setAttr(this, 'data-xid', picture.clerk.horizonXid);
      setAttr(this, 'data-pid', d.session.pid);
      moveTo(this, d.seat.x, d.seat.y, motion, ms);
      const [frame, flag] = this.children as unknown as [Element, Element];
      const { page } = cell;
      setAttr(frame, 'x', page.x - 1.5);
      setAttr(frame, 'y', page.y - 1.5);
      setAttr(frame, 'width', page.width + 3);
      setAttr(frame, 'height', page.height + 3);
      const fx = page.x + page.width / 2;
      setAttr(flag, 'd', `M${fx - 5},${cell.desk.y}h10l-5,5Z`);
    });
}

function drawClerk(
  section: SVGGElement,
  picture: CounterPicture,
  layout: CounterLayout,
  ids: { hatch: string; blocked: string },
): void {
  const { token, pile, strip } = layout.clerk;
  drawLines(layer(section, 'lines'), layout.clerk.lines);

  const clerk = part<SVGGElement>(section, 'g', 'clerk');
  const circle = part<SVGCircleElement>(clerk, 'circle', 'token');
  setAttr(circle, 'cx', token.cx);
  setAttr(circle, 'cy', token.cy);
  setAttr(circle, 'r', token.r);
  const letter = part<SVGTextElement>(clerk, 'text', 'token-letter');
  setAttr(letter, 'x', token.cx);
  setAttr(letter, 'y', token.cy + 4);
  setAttr(letter, 'text-anchor', 'middle');
  setText(letter, 'V');
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
}

function drawDoor(section: SVGGElement, layout: CounterLayout): void {
  drawLines(layer(section, 'lines'), layout.door.lines);
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

  const layout = layoutCounter(picture, options.width, doorMemory.get(svg));
  doorMemory.set(svg, layout.door.slots);
  const seatOf = assignSeats(seatMemory.get(svg) ?? new Map(), picture);
  seatMemory.set(svg, seatOf);

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
  drawSeats(section('seats-section'), picture, layout, seatOf, motion, ms);
  drawClerk(section('clerk-section'), picture, layout, ids);
  drawDoor(section('door-section'), layout);
  drawJobs(section('jobs-section'), picture, layout, ids.hatch);
  drawLegend(section('legend'), layout);
  return layout;
}
