/**
 * Where everything in the counter picture goes for a given width: seats wrapped into
 * rows, then the clerk, the door, the jobs strip and the legend, stacked. Pure: text is
 * measured by an estimate per character (every label is either monospace or given room
 * for wide letters), so the same layout comes out under jsdom and in a browser.
 */
import type { CounterPicture, RefusedSession, SeatedSession } from './counter-picture';
import { formatAge, formatCount, seatedCount, xidNumber } from './counter-describe';

/** Outer margin, in px. */
export const PAD = 8;
const SECTION_GAP = 14;
const TITLE_FONT = 13;
const TEXT_FONT = 12;
const LINE = 17;
/** Widest seat cell; a short counter does not stretch its seats. */
const MAX_CELL = 96;
/** Door figures are this far apart; at most this many rows of them are drawn. */
const DOOR_STEP = 16;
const DOOR_ROWS = 3;

/** An estimate of a text's width: generous for proportional fonts, exact for monospace. */
export function textWidth(text: string, fontPx: number): number {
  return text.length * fontPx * 0.6;
}

/** Splits `text` into lines no wider than `maxWidth` (words longer than a line are cut). */
export function wrapText(text: string, maxWidth: number, fontPx: number): string[] {
  const perLine = Math.max(4, Math.floor(maxWidth / (fontPx * 0.6)));
  const lines: string[] = [];
  let line = '';
  for (let word of text.split(/\s+/).filter(Boolean)) {
    while (word.length > perLine) {
      if (line) lines.push(line);
      lines.push(word.slice(0, perLine));
      word = word.slice(perLine);
      line = '';
    }
    if (!line) line = word;
    else if (line.length + 1 + word.length <= perLine) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * Shortens `text` to `maxChars` by cutting near its start, since names such as
 * `worker-12/3` differ at the end.
 */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 1) return '…'.slice(0, maxChars);
  const head = Math.max(1, Math.floor((maxChars - 1) / 3));
  return `${text.slice(0, head)}…${text.slice(text.length - (maxChars - 1 - head))}`;
}

/** Sizes inside one seat cell, relative to its top-left corner. */
export interface CellGeometry {
  /** Narrow cells (phones) use smaller type and shorter state labels. */
  compact: boolean;
  width: number;
  height: number;
  page: { x: number; y: number; width: number; height: number; xidY: number; ageY: number };
  desk: { y: number; height: number };
  chair: { x: number; y: number; width: number; height: number };
  token: { cx: number; cy: number; r: number };
  state: { x: number; y: number; width: number };
  nameY: number;
  /** Font size of the texts in the cell, in px. */
  font: number;
}

function cellGeometry(width: number, compact: boolean): CellGeometry {
  if (compact) {
    return {
      compact,
      width,
      height: 70,
      page: { x: 2, y: 2, width: width - 4, height: 24, xidY: 12, ageY: 22 },
      desk: { y: 28, height: 4 },
      chair: { x: 2, y: 34, width: width - 4, height: 20 },
      token: { cx: 10, cy: 44, r: 6.5 },
      state: { x: 19, y: 47.5, width: width - 21 },
      nameY: 66,
      font: 9,
    };
  }
  return {
    compact,
    width,
    height: 82,
    page: { x: 3, y: 2, width: width - 6, height: 28, xidY: 13, ageY: 25 },
    desk: { y: 32, height: 4 },
    chair: { x: 3, y: 38, width: width - 6, height: 24 },
    token: { cx: 13, cy: 50, r: 8 },
    state: { x: 24, y: 53.5, width: width - 28 },
    nameY: 76,
    font: 10,
  };
}

/** One seat's place: its cell's top-left corner. */
export interface SeatBox {
  /** 0-based; seats `maxConnections - superuserReserved` and up are reserved. */
  index: number;
  x: number;
  y: number;
  reserved: boolean;
}

/** A line of text placed by the layout; `key` keeps it in place across draws. */
export interface TextLine {
  key: string;
  x: number;
  y: number;
  text: string;
  className: string;
  anchor?: 'start' | 'middle' | 'end';
}

/** A refused session's figure at the door. */
export interface DoorFigure {
  key: string;
  x: number;
  y: number;
  session: RefusedSession;
}

/** One legend entry: a glyph kind and its words, placed in a flowing row. */
export interface LegendItem {
  key: 'reserved' | 'page' | 'emulated' | 'waiting' | 'horizon' | 'aborted';
  x: number;
  y: number;
  text: string;
}

/** Everything the drawing places, for one picture at one width. */
export interface CounterLayout {
  width: number;
  height: number;
  columns: number;
  cell: CellGeometry;
  seats: SeatBox[];
  /** The counter itself: one desk per row of seats. */
  desks: { row: number; x: number; y: number; width: number }[];
  seatsTitle: TextLine[];
  clerk: {
    top: number;
    /** Centre of the clerk's token. */
    token: { cx: number; cy: number; r: number };
    /** The dead-tuple pile stands on `bottom`, between `x` and `x + width`. */
    pile: { x: number; bottom: number; width: number; maxHeight: number };
    /** The XID strip: open pages by XID, with the horizon line across it. */
    strip: { x0: number; x1: number; y: number };
    lines: TextLine[];
  };
  door: {
    top: number;
    figures: DoorFigure[];
    lines: TextLine[];
    /** Each figure's place at the door, by key: pass it to the next layout. */
    slots: Map<string, number>;
  };
  jobs: {
    top: number;
    bar: { x: number; y: number; width: number; height: number };
    lines: TextLine[];
  };
  legend: { top: number; items: LegendItem[]; lines: TextLine[] };
}

/** Stacks wrapped lines from `y` (a baseline) and returns them with the next free y. */
function block(
  key: string,
  text: string,
  x: number,
  y: number,
  width: number,
  className: string,
  font = TEXT_FONT,
): { lines: TextLine[]; y: number } {
  const lines = wrapText(text, width, font).map((t, i) => ({
    key: `${key}-${i}`,
    x,
    y: y + i * LINE,
    text: t,
    className,
  }));
  return { lines, y: y + lines.length * LINE };
}

/**
 * Gives every seated session a seat, keeping each in the seat it had (`previous`, by
 * pid). Ordinary roles sit only in unreserved seats. A superuser takes an unreserved
 * seat first and moves out of a reserved one when an unreserved seat frees up, so the
 * free seats drawn always match PostgreSQL's count: an ordinary role is refused exactly
 * when every unreserved seat is taken (`InitPostgres`: fewer than
 * `superuser_reserved_connections` slots free).
 */
export function assignSeats(
  previous: ReadonlyMap<number, number>,
  picture: CounterPicture,
): Map<number, number> {
  const max = Math.max(0, picture.maxConnections);
  const open = Math.max(0, max - Math.max(0, picture.superuserReserved));
  const taken = new Array<number | null>(max).fill(null);
  const seat = new Map<number, number>();
  const sessions = picture.seats;
  const bySeat = (s: SeatedSession) => previous.get(s.pid);
  for (const s of sessions) {
    const at = bySeat(s);
    if (at === undefined || at >= max || taken[at] !== null) continue;
    if (at >= open && !s.superuser) continue;
    taken[at] = s.pid;
    seat.set(s.pid, at);
  }
  const firstFree = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (taken[i] === null) return i;
    return -1;
  };
  for (const s of sessions) {
    if (seat.has(s.pid)) continue;
    let at = firstFree(0, open);
    if (at < 0 && s.superuser) at = firstFree(open, max);
    if (at < 0) continue; // more sessions than seats: not drawn, and counted as such
    taken[at] = s.pid;
    seat.set(s.pid, at);
  }
  for (let r = max - 1; r >= open; r--) {
    const pid = taken[r];
    if (pid === null || pid === undefined) continue;
    const free = firstFree(0, open);
    if (free < 0) break;
    taken[free] = pid;
    taken[r] = null;
    seat.set(pid, free);
  }
  return seat;
}

/**
 * Gives refused sessions a place at the door, keyed by name: each keeps its place, the
 * newly refused take the first free ones, and those beyond the last row are counted,
 * not drawn (the last place then shows `+N`). Places past the rows the crowd needs are
 * given up, so the door shrinks when it empties.
 */
export function assignDoorSlots(
  previous: ReadonlyMap<string, number>,
  keys: readonly string[],
  perRow: number,
  capacity: number,
): Map<string, number> {
  const limit = keys.length > capacity ? capacity - 1 : Math.ceil(keys.length / perRow) * perRow;
  const taken = new Set<number>();
  const slots = new Map<string, number>();
  for (const key of keys) {
    const at = previous.get(key);
    if (at === undefined || at >= limit || taken.has(at)) continue;
    taken.add(at);
    slots.set(key, at);
  }
  let free = 0;
  for (const key of keys) {
    if (slots.has(key)) continue;
    while (free < limit && taken.has(free)) free++;
    if (free >= limit) break;
    taken.add(free);
    slots.set(key, free);
  }
  return slots;
}

/**
 * Places the whole picture in `width` px; the height follows from the content.
 * `previousDoor` is the last draw's `doorSlots`, so refused sessions keep their place.
 */
export function layoutCounter(
  picture: CounterPicture,
  width: number,
  previousDoor: ReadonlyMap<string, number> = new Map(),
): CounterLayout {
  width = Math.max(240, Math.floor(width));
  const inner = width - 2 * PAD;
  const compact = width < 520;
  const minCell = compact ? 40 : 64;
  const columns = Math.max(1, Math.floor(inner / minCell));
  const cell = cellGeometry(Math.min(MAX_CELL, inner / columns), compact);
  const rowStep = cell.height + 6;
  const max = Math.max(0, picture.maxConnections);
  const reservedFrom = max - Math.max(0, Math.min(max, picture.superuserReserved));

  // Seats
  let y = PAD + TITLE_FONT;
  const title = block(
    'seats',
    `Seats = connections: ${formatCount(seatedCount(picture))} of ${formatCount(max)} taken, ${formatCount(max - reservedFrom)} reserved (modelled)`,
    PAD,
    y,
    inner,
    'section-title',
    TITLE_FONT,
  );
  y = title.y - LINE + 8;
  const seatsTop = y;
  const seats: SeatBox[] = [];
  for (let i = 0; i < max; i++) {
    const col = i % columns;
    const row = Math.floor(i / columns);
    seats.push({
      index: i,
      x: PAD + col * cell.width,
      y: seatsTop + row * rowStep,
      reserved: i >= reservedFrom,
    });
  }
  const rows = Math.ceil(max / columns);
  const desks = Array.from({ length: rows }, (_, row) => ({
    row,
    x: PAD,
    y: seatsTop + row * rowStep + cell.desk.y,
    width: Math.min(columns, max - row * columns) * cell.width,
  }));
  y = seatsTop + rows * rowStep - 6 + SECTION_GAP;
  const notDrawn = picture.seats.length - seatedCount(picture);
  if (notDrawn > 0) {
    const more = block(
      'seats-over',
      `${formatCount(notDrawn)} more sessions than seats are not drawn.`,
      PAD,
      y + TEXT_FONT,
      inner,
      'note',
    );
    title.lines.push(...more.lines);
    y = more.y + SECTION_GAP - LINE + 4;
  }

  // Clerk
  const clerkTop = y;
  const clerkLines: TextLine[] = [];
  clerkLines.push(
    ...block(
      'clerk-title',
      'Clerk = VACUUM (real: XIDs, n_dead_tup, VACUUM output)',
      PAD,
      clerkTop + TITLE_FONT,
      inner,
      'section-title',
      TITLE_FONT,
    ).lines,
  );
  const band = clerkTop + TITLE_FONT + 8 + (clerkLines.length - 1) * LINE;
  const token = { cx: PAD + 14, cy: band + 22, r: 12 };
  const pile = { x: PAD + 34, bottom: band + 46, width: 24, maxHeight: 40 };
  const strip = { x0: PAD + 70, x1: width - PAD, y: band + 30 };
  let ly = band + 48 + TEXT_FONT + 6;
  const { clerk } = picture;
  const dead =
    clerk.deadTuples === null
      ? 'Dead tuples: n_dead_tup not read yet.'
      : `Dead tuples (n_dead_tup, jobs and events): ${formatCount(clerk.deadTuples)}.`;
  let b = block('clerk-dead', dead, PAD, ly, inner, 'clerk-text');
  clerkLines.push(...b.lines);
  ly = b.y;
  const holder = picture.seats.find((s) => s.pid === clerk.horizonPid) ?? null;
  const horizon =
    clerk.horizonXid === null
      ? 'Nothing holds the horizon: the clerk can file every dead tuple.'
      : `Cannot file behind this page: XID ${clerk.horizonXid}${
          holder
            ? ` (${holder.name}, pid ${holder.pid}${holder.xactAgeMs === null ? '' : `, open ${formatAge(holder.xactAgeMs)}`})`
            : clerk.horizonPid === null
              ? ''
              : ` (pid ${clerk.horizonPid})`
        }.`;
  b = block('clerk-horizon', horizon, PAD, ly, inner, 'clerk-text horizon-text');
  clerkLines.push(...b.lines);
  ly = b.y;
  const v = clerk.lastVacuum;
  const vacuum =
    v === null
      ? 'VACUUM has not run yet.'
      : `Last VACUUM (VERBOSE) ${v.table}: ${formatCount(v.removed)} removed, ${formatCount(v.notYetRemovable)} dead but not yet removable${v.cutoff === null ? '' : `, removable cutoff: ${v.cutoff}`}.`;
  b = block('clerk-vacuum', vacuum, PAD, ly, inner, 'clerk-text');
  clerkLines.push(...b.lines);
  y = b.y - LINE + SECTION_GAP + 6;

  // Door
  const doorTop = y;
  const doorLines: TextLine[] = [];
  b = block(
    'door-title',
    `Door (modelled): ${formatCount(picture.door.length)} refused`,
    PAD,
    doorTop + TITLE_FONT,
    inner,
    'section-title',
    TITLE_FONT,
  );
  doorLines.push(...b.lines);
  let dy = b.y - LINE + 10;
  const perRow = Math.max(1, Math.floor(inner / DOOR_STEP));
  const capacity = perRow * DOOR_ROWS;
  const seen = new Map<string, number>();
  const keys = picture.door.map(({ name }) => {
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    return n === 0 ? name : `${name}#${n}`;
  });
  const doorSlots = assignDoorSlots(previousDoor, keys, perRow, capacity);
  const figures: DoorFigure[] = [];
  picture.door.forEach((session, i) => {
    const slot = doorSlots.get(keys[i]!);
    if (slot === undefined) return;
    figures.push({
      key: keys[i]!,
      x: PAD + (slot % perRow) * DOOR_STEP + DOOR_STEP / 2,
      y: dy + Math.floor(slot / perRow) * DOOR_STEP + DOOR_STEP / 2,
      session,
    });
  });
  if (figures.length < picture.door.length) {
    const i = capacity - 1;
    doorLines.push({
      key: 'door-more',
      x: PAD + (i % perRow) * DOOR_STEP,
      y: dy + Math.floor(i / perRow) * DOOR_STEP + 12,
      text: `+${formatCount(picture.door.length - figures.length)}`,
      className: 'door-more',
    });
  }
  const figureRows = Math.ceil(Math.min(picture.door.length, capacity) / perRow);
  dy += figureRows * DOOR_STEP + TEXT_FONT + 4;
  if (picture.door.length === 0) {
    b = block('door-empty', 'No one has been refused.', PAD, dy, inner, 'door-text');
    doorLines.push(...b.lines);
    dy = b.y;
  }
  const groups = new Map<string, string[]>();
  for (const r of picture.door) groups.set(r.message, [...(groups.get(r.message) ?? []), r.name]);
  let g = 0;
  for (const [message, names] of groups) {
    if (g === 3) {
      b = block(
        'door-groups-more',
        `and ${groups.size - 3} other messages`,
        PAD,
        dy,
        inner,
        'door-text',
      );
      doorLines.push(...b.lines);
      dy = b.y;
      break;
    }
    // libpq prints two spaces after the severity; wrapping would fold them into one.
    b = block(`door-fatal-${g}`, `FATAL: ${message}`, PAD, dy, inner - 8, 'door-fatal');
    b.lines[0]!.text = b.lines[0]!.text.replace(/^FATAL: /, 'FATAL:  ');
    doorLines.push(...b.lines);
    const who = `× ${formatCount(names.length)}: ${names.join(', ')}`;
    const perLine = Math.floor(inner / (TEXT_FONT * 0.6));
    doorLines.push({
      key: `door-who-${g}`,
      x: PAD,
      y: b.y,
      text: who.length > perLine ? `${who.slice(0, perLine - 1)}…` : who,
      className: 'door-text',
    });
    dy = b.y + LINE;
    g++;
  }
  y = dy - LINE + SECTION_GAP + 6;

  // Jobs
  const jobsTop = y;
  const jobLines: TextLine[] = [];
  b = block('jobs-title', 'Jobs table (real)', PAD, jobsTop + TITLE_FONT, inner, 'section-title');
  jobLines.push(...b.lines);
  const bar = { x: PAD, y: b.y - LINE + 8, width: inner, height: 14 };
  const { queued, running, done } = picture.jobs;
  b = block(
    'jobs-counts',
    `queued ${formatCount(queued)} · running ${formatCount(running)} · done ${formatCount(done)}`,
    PAD,
    bar.y + bar.height + TEXT_FONT + 4,
    inner,
    'jobs-text',
  );
  jobLines.push(...b.lines);
  y = b.y - LINE + 8 + SECTION_GAP;

  // Legend
  const legendTop = y;
  const legendItems: LegendItem[] = [];
  const entries: [LegendItem['key'], string][] = [
    ['reserved', 'R reserved seat'],
    ['page', 'ledger page: open transaction, XID, age'],
    ['emulated', 'dotted page: emulated: snapshot held'],
    ['aborted', 'struck page: aborted, awaiting ROLLBACK'],
    ['waiting', 'dashed ring, lock: waiting on a lock'],
    ['horizon', 'thick frame: holds the horizon'],
  ];
  let lx = PAD;
  let lyy = legendTop + 4;
  for (const [key, text] of entries) {
    const w = 24 + textWidth(text, 11) + 12;
    if (lx > PAD && lx + w > width - PAD) {
      lx = PAD;
      lyy += 20;
    }
    legendItems.push({ key, x: lx, y: lyy, text });
    lx += w;
  }
  ly = lyy + 20 + TEXT_FONT;
  const legendLines: TextLine[] = [];
  for (const [key, text] of [
    ['legend-letters', 'Letters: W worker, A API, S sweeper, V VACUUM, Y you, O other.'],
    [
      'legend-states',
      'States: active (filled), idle (hollow), in tx = idle in transaction, aborted.',
    ],
    [
      'legend-honest',
      `Modelled: seats and door, counted from max_connections = ${max} and superuser_reserved_connections = ${max - reservedFrom}; PGlite runs one backend; ledger pages' ages, in simulated time. Real: XIDs, n_dead_tup, VACUUM output.`,
    ],
  ] as const) {
    b = block(key, text, PAD, ly, inner, 'legend-text');
    legendLines.push(...b.lines);
    ly = b.y;
  }

  return {
    width,
    height: Math.ceil(ly - LINE + PAD + 4),
    columns,
    cell,
    seats,
    desks,
    seatsTitle: title.lines,
    clerk: { top: clerkTop, token, pile, strip, lines: clerkLines },
    door: { top: doorTop, figures, lines: doorLines, slots: doorSlots },
    jobs: { top: jobsTop, bar, lines: jobLines },
    legend: { top: legendTop, items: legendItems, lines: legendLines },
  };
}

/** The open ledger pages the XID strip shows, oldest XID first. */
export function stripPages(picture: CounterPicture): SeatedSession[] {
  return picture.seats
    .filter((s) => s.xid !== null && s.xactAgeMs !== null)
    .sort((a, b) => xidNumber(a.xid!) - xidNumber(b.xid!));
}
