/**
 * Where everything in the counter picture goes for a given width: the clerk behind the
 * counter with the door beside him, then the seats in rows, each process's seats together
 * under its name, the free seats as one counted block and the reserved seats last, then
 * the jobs strip and the legend. Each process keeps its places from one draw to the next
 * (`Places`), so while seats are free a session coming or going moves no one else. Pure:
 * text is measured by an estimate per character (every label is either monospace or given
 * room for wide letters), so the same layout comes out under jsdom and in a browser.
 */
import type { CounterPicture, RefusedSession, SeatRole, SeatedSession } from './counter-picture';
import { formatAge, formatCount, seatedCount, xidNumber } from './counter-describe';

/** Outer margin, in px. */
export const PAD = 8;
const SECTION_GAP = 14;
const TITLE_FONT = 13;
const TEXT_FONT = 12;
const LINE = 17;
/** Door figures are this far apart; at most this many rows of them are drawn. */
const DOOR_STEP = 16;
const DOOR_ROWS = 2;

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

/** Sizes inside a seat cell, relative to its row's top; a seat's width is its own. */
export interface CellGeometry {
  /** Narrow pictures (phones) use smaller type and a shorter row. */
  compact: boolean;
  /** Height of one row of the counter, group label to seat label. */
  height: number;
  /** Baseline of a group's label (the process's name). */
  labelY: number;
  page: { y: number; height: number; xidY: number; ageY: number };
  desk: { y: number; height: number };
  chair: { y: number; height: number };
  token: { cy: number; r: number };
  /** Baseline of a seat's own label (the part of its name after the process's). */
  nameY: number;
  /** Font size of the texts in a seat, in px. */
  font: number;
  /** Font size of a group's label, in px. */
  labelFont: number;
}

function cellGeometry(compact: boolean): CellGeometry {
  if (compact) {
    return {
      compact,
      height: 62,
      labelY: 9,
      page: { y: 11, height: 20, xidY: 8, ageY: 17 },
      desk: { y: 33, height: 3 },
      chair: { y: 38, height: 13 },
      token: { cy: 44.5, r: 4.5 },
      nameY: 59,
      font: 7,
      labelFont: 9,
    };
  }
  return {
    compact,
    height: 84,
    labelY: 11,
    page: { y: 15, height: 26, xidY: 10, ageY: 22 },
    desk: { y: 43, height: 4 },
    chair: { y: 49, height: 18 },
    token: { cy: 58, r: 6 },
    nameY: 79,
    font: 10,
    labelFont: 11,
  };
}

/** One seat's place: its cell's top-left corner and width. */
export interface SeatBox {
  /** 0-based; seats `maxConnections - superuserReserved` and up are reserved. */
  index: number;
  x: number;
  y: number;
  width: number;
  reserved: boolean;
  /** What is written under the seat: the session's name after its process's, in full. */
  label: string;
}

/** A free seat in a process's row, where one of its sessions sat (`Places`). */
export interface EmptyPlace extends SeatBox {
  /** The process and the place's position in its row: `worker-07#2`. */
  key: string;
  group: string;
}

/** A process's label over its seats (one per row its seats take). */
export interface GroupLabel {
  key: string;
  x: number;
  y: number;
  width: number;
  text: string;
  role: SeatRole | 'reserved';
  holdsHorizon: boolean;
}

/** A run of free seats, drawn as one block with its count. */
export interface FreeRun {
  x: number;
  y: number;
  width: number;
  count: number;
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
  key:
    | 'reserved'
    | 'free'
    | 'page'
    | 'emulated'
    | 'waiting'
    | 'horizon'
    | 'aborted'
    | 'active'
    | 'worker'
    | 'api'
    | 'sweeper';
  x: number;
  y: number;
  text: string;
}

/** Everything the drawing places, for one picture at one width. */
export interface CounterLayout {
  width: number;
  height: number;
  cell: CellGeometry;
  /** Where each seated session sits, by pid. */
  seatOf: Map<number, SeatBox>;
  /** Each seated session's seat number, by pid: pass it to the next layout. */
  seatIndex: Map<number, number>;
  /** Each process's places: pass them to the next layout. */
  places: Places;
  /** Reserved seats no one sits in. */
  emptyReserved: SeatBox[];
  /** Places in a process's row its sessions left: free seats, kept for its next one. */
  emptyPlaces: EmptyPlace[];
  groups: GroupLabel[];
  free: FreeRun;
  /** The counter itself: one desk per row of seats. */
  desks: { row: number; x: number; y: number; width: number }[];
  seatsTitle: TextLine[];
  /** The seats' area, title to last row, for tests and scrolling. */
  seatsArea: { top: number; bottom: number };
  clerk: {
    top: number;
    bottom: number;
    /** Centre of the clerk's figure. */
    token: { cx: number; cy: number; r: number };
    /** The dead-tuple pile stands on `bottom`, between `x` and `x + width`. */
    pile: { x: number; bottom: number; width: number; maxHeight: number };
    /** The XID strip: open pages by XID, with the horizon line across it. */
    strip: { x0: number; x1: number; y: number };
    lines: TextLine[];
  };
  door: {
    top: number;
    bottom: number;
    /** Where the door's icon stands. */
    icon: { x: number; y: number };
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

/** The process a session belongs to and its own part: `worker-07/claim` → both halves. */
export function splitName(name: string): { group: string; own: string } {
  const at = name.indexOf('/');
  return at <= 0 ? { group: name, own: '' } : { group: name.slice(0, at), own: name.slice(at + 1) };
}

const roleRank: Record<SeatRole, number> = {
  clerk: 0,
  sweeper: 1,
  other: 2,
  worker: 3,
  api: 4,
  you: 5,
};

/** `worker-2` before `worker-10`. */
const naturally = new Intl.Collator('en', { numeric: true }).compare;

/** What the layout flows into rows: a process's seats, the free seats, the reserved ones. */
type Item =
  | { kind: 'group'; key: string; text: string; role: SeatRole | 'reserved'; seats: Seat[] }
  | { kind: 'free'; count: number; width: number };
interface Seat {
  index: number;
  /** Null for a reserved seat no one sits in, or a place its process's session left. */
  pid: number | null;
  width: number;
  label: string;
  reserved: boolean;
}

/** A place in a process's row of seats: who sits there, or who sat there last. */
interface Place {
  pid: number | null;
  label: string;
}

/**
 * Each process's places on the counter, kept from one draw to the next (`previousPlaces`
 * of `layoutCounter`), so that a session leaving or arriving moves no one else: the
 * place it leaves stays, drawn as a free seat in its process's row, for its process's
 * next session. `emptyDraws` counts the draws a process has had no session at all.
 */
export type Places = Map<string, { role: SeatRole; places: Place[]; emptyDraws: number }>;

/** Draws a process with no session keeps its places, in case one comes back. */
export const GHOST_DRAWS = 120;

/**
 * This draw's places, from the last draw's: a session keeps its place, a new one takes
 * its process's first place left empty or a new one at the end. Places left empty are
 * free seats, so together they never outnumber the free seats (`free`); past that, and
 * for processes gone longer than `GHOST_DRAWS`, they are given up, the rows close up,
 * and the free block counts what remains.
 */
export function assignPlaces(
  previous: Places,
  groups: ReadonlyMap<string, { role: SeatRole; sessions: SeatedSession[] }>,
  free: number,
): Places {
  const next: Places = new Map();
  for (const [key, was] of previous) {
    if (groups.has(key) || was.emptyDraws + 1 > GHOST_DRAWS) continue;
    const places = was.places.map(({ label }) => ({ pid: null, label }));
    next.set(key, { role: was.role, places, emptyDraws: was.emptyDraws + 1 });
  }
  for (const [key, { role, sessions }] of groups) {
    const here = new Map(sessions.map((s) => [s.pid, s]));
    const places: Place[] = (previous.get(key)?.places ?? []).map(({ pid, label }) => {
      const s = pid === null ? undefined : here.get(pid);
      return s ? { pid: s.pid, label: splitName(s.name).own } : { pid: null, label };
    });
    const placed = new Set(places.map((p) => p.pid));
    for (const s of [...sessions].sort((a, b) => a.pid - b.pid)) {
      if (placed.has(s.pid)) continue;
      const place = { pid: s.pid, label: splitName(s.name).own };
      const empty = places.findIndex((p) => p.pid === null);
      if (empty >= 0) places[empty] = place;
      else places.push(place);
    }
    next.set(key, { role, places, emptyDraws: 0 });
  }
  // More empty places than free seats: give up whole empty processes first, then the
  // empty places at the ends of rows, last process first.
  let excess = -free;
  for (const { places } of next.values()) excess += places.filter((p) => p.pid === null).length;
  const order = [...next.keys()].sort(byRoleThenName(next)).reverse();
  for (const key of order) {
    if (excess <= 0) break;
    const { places } = next.get(key)!;
    if (places.every((p) => p.pid === null)) {
      next.delete(key);
      excess -= places.length;
    }
  }
  for (const key of order) {
    const group = next.get(key);
    if (!group) continue;
    for (let i = group.places.length - 1; i >= 0 && excess > 0; i--) {
      if (group.places[i]!.pid !== null) continue;
      group.places.splice(i, 1);
      excess--;
    }
  }
  return next;
}

/** Processes in a fixed order: by role, then by name, `worker-2` before `worker-10`. */
const byRoleThenName =
  (groups: ReadonlyMap<string, { role: SeatRole }>) =>
  (a: string, b: string): number =>
    roleRank[groups.get(a)!.role] - roleRank[groups.get(b)!.role] || naturally(a, b);

/** The seats' items: processes in a fixed order (by role, then name), free, reserved. */
function seatItems(
  picture: CounterPicture,
  seatIndex: ReadonlyMap<number, number>,
  open: number,
  max: number,
  cell: CellGeometry,
  previousPlaces: Places,
): { items: Item[]; horizonGroup: string | null; places: Places } {
  const seatWidth = (label: string) =>
    Math.max(
      cell.compact ? 24 : 32,
      Math.ceil(textWidth(label, cell.font)) + (cell.compact ? 4 : 6),
    );
  const groups = new Map<string, { role: SeatRole; sessions: SeatedSession[] }>();
  const reserved: Seat[] = [];
  let horizonGroup: string | null = null;
  for (const s of picture.seats) {
    const index = seatIndex.get(s.pid);
    if (index === undefined) continue;
    if (index >= open) {
      reserved.push({ index, pid: s.pid, width: seatWidth(s.name), label: s.name, reserved: true });
      continue;
    }
    const { group } = splitName(s.name);
    const entry = groups.get(group) ?? { role: s.role, sessions: [] };
    entry.sessions.push(s);
    groups.set(group, entry);
    if (s.pid === picture.clerk.horizonPid) horizonGroup = group;
  }
  const taken = [...groups.values()].reduce((n, g) => n + g.sessions.length, 0);
  const places = assignPlaces(previousPlaces, groups, Math.max(0, open - taken));
  let empty = 0;
  const items: Item[] = [...places.keys()].sort(byRoleThenName(places)).map((key) => ({
    kind: 'group' as const,
    key,
    text: key,
    role: places.get(key)!.role,
    seats: places.get(key)!.places.map(({ pid, label }) => {
      if (pid === null) empty++;
      return {
        // A place left empty has no seat number: it is one of the free seats.
        index: pid === null ? -1 : seatIndex.get(pid)!,
        pid,
        width: seatWidth(label),
        label,
        reserved: false,
      };
    }),
  }));
  const count = Math.max(0, open - taken - empty);
  items.push({
    kind: 'free',
    count,
    width: Math.ceil(textWidth(`${formatCount(count)} free`, cell.font)) + 12,
  });
  const takenReserved = new Set(reserved.map((r) => r.index));
  for (let i = open; i < max; i++) {
    if (!takenReserved.has(i)) {
      reserved.push({ index: i, pid: null, width: seatWidth('R'), label: 'R', reserved: true });
    }
  }
  reserved.sort((a, b) => a.index - b.index);
  if (reserved.length > 0) {
    items.push({
      kind: 'group',
      key: 'reserved',
      text: 'reserved',
      role: 'reserved',
      seats: reserved,
    });
  }
  return { items, horizonGroup, places };
}

/**
 * Places the whole picture in `width` px; the height follows from the content. The clerk
 * stands behind the counter (at the top) with the door beside him when there is room; the
 * seats follow in rows, each process's seats together under its name; the jobs table and
 * the legend close it. `previousDoor` is the last draw's `doorSlots`, so refused sessions
 * keep their place; `previousSeats` the last draw's seat numbers, so sessions keep theirs.
 */
export function layoutCounter(
  picture: CounterPicture,
  width: number,
  previousDoor: ReadonlyMap<string, number> = new Map(),
  previousSeats: ReadonlyMap<number, number> = new Map(),
  previousPlaces: Places = new Map(),
): CounterLayout {
  width = Math.max(240, Math.floor(width));
  const compact = width < 520;
  // A phone's picture uses its edges: three workers' seats fit a 336 px row.
  const pad = compact ? 4 : PAD;
  const inner = width - 2 * pad;
  const wide = width >= 720;
  const cell = cellGeometry(compact);
  const max = Math.max(0, picture.maxConnections);
  const open = max - Math.max(0, Math.min(max, picture.superuserReserved));
  const seatIndex = assignSeats(previousSeats, picture);

  // The clerk, behind the counter; the door beside him on a wide picture, else below.
  const clerkWidth = wide ? Math.floor(inner * 0.56) : inner;
  const top = pad;
  const clerk = layoutClerk(picture, pad, top, clerkWidth);
  const doorX = wide ? pad + clerkWidth + 20 : pad;
  const doorWidth = wide ? width - pad - doorX : inner;
  const door = layoutDoor(
    picture,
    doorX,
    wide ? top : clerk.bottom + SECTION_GAP,
    doorWidth,
    previousDoor,
  );
  let y = Math.max(clerk.bottom, door.bottom) + SECTION_GAP;

  // Seats
  const seatsTop = y;
  const title = block(
    'seats',
    `Seats = connections: ${formatCount(seatedCount(picture))} of ${formatCount(max)} taken, ${formatCount(max - open)} reserved (modelled)`,
    pad,
    y + TITLE_FONT,
    inner,
    'section-title',
    TITLE_FONT,
  );
  y = title.y - LINE + 8;
  const { items, horizonGroup, places } = seatItems(
    picture,
    seatIndex,
    open,
    max,
    cell,
    previousPlaces,
  );
  const seatOf = new Map<number, SeatBox>();
  const emptyReserved: SeatBox[] = [];
  const emptyPlaces: EmptyPlace[] = [];
  const groups: GroupLabel[] = [];
  const desks: CounterLayout['desks'] = [];
  let free: FreeRun = { x: pad, y, width: 0, count: 0 };
  const groupGap = compact ? 5 : 10;
  const seatGap = compact ? 1 : 2;
  const rowStep = cell.height + (compact ? 4 : 8);
  let x = 0;
  let row = 0;
  let rowStart = 0;
  const rowY = () => y + row * rowStep;
  const endRow = () => {
    if (x > rowStart) desks.push({ row, x: pad, y: rowY() + cell.desk.y, width: x - groupGap });
  };
  const wrap = () => {
    endRow();
    row++;
    x = 0;
    rowStart = 0;
  };
  for (const item of items) {
    if (item.kind === 'free') {
      if (x > 0 && x + item.width > inner) wrap();
      free = { x: pad + x, y: rowY(), width: item.width, count: item.count };
      x += item.width + groupGap;
      continue;
    }
    const labelWidth = textWidth(item.text, cell.labelFont) + 14;
    const seatsWidth = item.seats.reduce((w, s) => w + s.width + seatGap, -seatGap);
    const whole = Math.max(labelWidth, seatsWidth);
    if (x > 0 && x + whole > inner && whole <= inner) wrap();
    let labelAt = x;
    let segment = 0;
    const label = (to: number) => {
      groups.push({
        // Keyed by process and part, not by row, so a label moves rather than being redrawn.
        key: segment === 0 ? item.key : `${item.key}#${segment}`,
        x: pad + labelAt,
        y: rowY(),
        width: Math.max(labelWidth, to - labelAt),
        text: item.text,
        role: item.role,
        holdsHorizon: item.key === horizonGroup,
      });
    };
    for (const [i, seat] of item.seats.entries()) {
      if (x > labelAt && x + seat.width > inner) {
        // A process with more seats than a row holds goes on in the next row, named again.
        label(x - seatGap);
        wrap();
        labelAt = 0;
        segment++;
      }
      const box: SeatBox = {
        index: seat.index,
        x: pad + x,
        y: rowY(),
        width: seat.width,
        reserved: seat.reserved,
        label: seat.label,
      };
      if (seat.pid !== null) seatOf.set(seat.pid, box);
      else if (seat.reserved) emptyReserved.push(box);
      else emptyPlaces.push({ ...box, key: `${item.key}#${i}`, group: item.key });
      x += seat.width + seatGap;
    }
    x = Math.max(x - seatGap, labelAt + labelWidth);
    label(x);
    x += groupGap;
  }
  endRow();
  y = rowY() + cell.height;
  const notDrawn = picture.seats.length - seatedCount(picture);
  if (notDrawn > 0) {
    const more = block(
      'seats-over',
      `${formatCount(notDrawn)} more sessions than seats are not drawn.`,
      pad,
      y + TEXT_FONT + 4,
      inner,
      'note',
    );
    title.lines.push(...more.lines);
    y = more.y - LINE + 4;
  }
  const seatsArea = { top: seatsTop, bottom: y };
  y += SECTION_GAP + 4;

  // The jobs table and the legend, side by side when there is room.
  const jobsWidth = wide ? Math.floor(inner * 0.3) : inner;
  const jobs = layoutJobs(picture, pad, y, jobsWidth);
  const legendX = wide ? pad + jobsWidth + 20 : pad;
  const legend = layoutLegend(
    legendX,
    wide ? y : jobs.bottom + SECTION_GAP,
    width - pad - legendX,
    max,
    max - open,
    cell.compact,
  );
  const bottom = Math.max(jobs.bottom, legend.bottom);

  return {
    width,
    height: Math.ceil(bottom + pad),
    cell,
    seatOf,
    seatIndex,
    places,
    emptyReserved,
    emptyPlaces,
    groups,
    free,
    desks,
    seatsTitle: title.lines,
    seatsArea,
    clerk,
    door,
    jobs: { top: jobs.top, bar: jobs.bar, lines: jobs.lines },
    legend: { top: legend.top, items: legend.items, lines: legend.lines },
  };
}

function layoutClerk(
  picture: CounterPicture,
  x0: number,
  top: number,
  width: number,
): CounterLayout['clerk'] {
  const lines: TextLine[] = [];
  let b = block(
    'clerk-title',
    'Clerk = VACUUM (real: XIDs, n_dead_tup, VACUUM output)',
    x0,
    top + TITLE_FONT,
    width,
    'section-title',
    TITLE_FONT,
  );
  lines.push(...b.lines);
  const band = b.y - LINE + 8;
  const token = { cx: x0 + 14, cy: band + 22, r: 12 };
  const pile = { x: x0 + 34, bottom: band + 46, width: 24, maxHeight: 40 };
  const strip = { x0: x0 + 70, x1: x0 + width, y: band + 30 };
  let ly = band + 48 + TEXT_FONT + 6;
  const { clerk } = picture;
  const dead =
    clerk.deadTuples === null
      ? 'Filing pile: n_dead_tup not read yet.'
      : `Filing pile (n_dead_tup, jobs and events): ${formatCount(clerk.deadTuples)} dead tuples.`;
  b = block('clerk-dead', dead, x0, ly, width, 'clerk-text');
  lines.push(...b.lines);
  ly = b.y;
  const holder = picture.seats.find((s) => s.pid === clerk.horizonPid) ?? null;
  const horizon =
    clerk.horizonXid === null
      ? 'Nothing holds the horizon: the clerk can file every dead tuple.'
      : `Cut-off: cannot file behind XID ${clerk.horizonXid}${
          holder
            ? ` (${holder.name}, pid ${holder.pid}${holder.xactAgeMs === null ? '' : `, open ${formatAge(holder.xactAgeMs)}`})`
            : clerk.horizonPid === null
              ? ''
              : ` (pid ${clerk.horizonPid})`
        }.`;
  b = block('clerk-horizon', horizon, x0, ly, width, 'clerk-text horizon-text');
  lines.push(...b.lines);
  ly = b.y;
  const v = clerk.lastVacuum;
  const vacuum =
    v === null
      ? 'VACUUM has not run yet.'
      : `Last VACUUM (VERBOSE) ${v.table}: ${formatCount(v.removed)} removed, ${formatCount(v.notYetRemovable)} dead but not yet removable${v.cutoff === null ? '' : `, removable cutoff: ${v.cutoff}`}.`;
  b = block('clerk-vacuum', vacuum, x0, ly, width, 'clerk-text');
  lines.push(...b.lines);
  return { top, bottom: b.y - LINE + 4, token, pile, strip, lines };
}

function layoutDoor(
  picture: CounterPicture,
  x0: number,
  top: number,
  width: number,
  previous: ReadonlyMap<string, number>,
): CounterLayout['door'] {
  const lines: TextLine[] = [];
  const iconWidth = 22;
  let b = block(
    'door-title',
    `Door (modelled): ${formatCount(picture.door.length)} refused`,
    x0 + iconWidth,
    top + TITLE_FONT,
    width - iconWidth,
    'section-title',
    TITLE_FONT,
  );
  lines.push(...b.lines);
  const icon = { x: x0, y: top };
  let dy = b.y - LINE + 10;
  const qx = x0 + iconWidth;
  const perRow = Math.max(1, Math.floor((width - iconWidth) / DOOR_STEP));
  const capacity = perRow * DOOR_ROWS;
  const seen = new Map<string, number>();
  const keys = picture.door.map(({ name }) => {
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    return n === 0 ? name : `${name}#${n}`;
  });
  const slots = assignDoorSlots(previous, keys, perRow, capacity);
  const figures: DoorFigure[] = [];
  picture.door.forEach((session, i) => {
    const slot = slots.get(keys[i]!);
    if (slot === undefined) return;
    figures.push({
      key: keys[i]!,
      x: qx + (slot % perRow) * DOOR_STEP + DOOR_STEP / 2,
      y: dy + Math.floor(slot / perRow) * DOOR_STEP + DOOR_STEP / 2,
      session,
    });
  });
  if (figures.length < picture.door.length) {
    const i = capacity - 1;
    lines.push({
      key: 'door-more',
      x: qx + (i % perRow) * DOOR_STEP,
      y: dy + Math.floor(i / perRow) * DOOR_STEP + 12,
      text: `+${formatCount(picture.door.length - figures.length)}`,
      className: 'door-more',
    });
  }
  const figureRows = Math.ceil(Math.min(picture.door.length, capacity) / perRow);
  dy += Math.max(figureRows * DOOR_STEP, 12) + TEXT_FONT + 4;
  if (picture.door.length === 0) {
    b = block('door-empty', 'No one has been refused.', x0, dy, width, 'door-text');
    lines.push(...b.lines);
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
        x0,
        dy,
        width,
        'door-text',
      );
      lines.push(...b.lines);
      dy = b.y;
      break;
    }
    // libpq prints two spaces after the severity; wrapping would fold them into one.
    b = block(`door-fatal-${g}`, `FATAL: ${message}`, x0, dy, width - 8, 'door-fatal');
    b.lines[0]!.text = b.lines[0]!.text.replace(/^FATAL: /, 'FATAL:  ');
    lines.push(...b.lines);
    const who = `× ${formatCount(names.length)}: ${names.join(', ')}`;
    const perLine = Math.floor(width / (TEXT_FONT * 0.6));
    lines.push({
      key: `door-who-${g}`,
      x: x0,
      y: b.y,
      text: who.length > perLine ? `${who.slice(0, perLine - 1)}…` : who,
      className: 'door-text',
    });
    dy = b.y + LINE;
    g++;
  }
  return { top, bottom: dy - LINE + 4, icon, figures, lines, slots };
}

function layoutJobs(picture: CounterPicture, x0: number, top: number, width: number) {
  const lines: TextLine[] = [];
  let b = block('jobs-title', 'Jobs table (real)', x0, top + TITLE_FONT, width, 'section-title');
  lines.push(...b.lines);
  const bar = { x: x0, y: b.y - LINE + 8, width, height: 14 };
  const { queued, running, done } = picture.jobs;
  b = block(
    'jobs-counts',
    `queued ${formatCount(queued)} · running ${formatCount(running)} · done ${formatCount(done)}`,
    x0,
    bar.y + bar.height + TEXT_FONT + 4,
    width,
    'jobs-text',
  );
  lines.push(...b.lines);
  return { top, bottom: b.y - LINE + 4, bar, lines };
}

function layoutLegend(
  x0: number,
  top: number,
  width: number,
  max: number,
  reserved: number,
  compact: boolean,
) {
  const items: LegendItem[] = [];
  const entries: [LegendItem['key'], string][] = [
    ['active', 'filled: active; hollow: idle'],
    ['page', 'ledger page: open transaction, XID, age'],
    ['horizon', 'thick frame: holds the horizon'],
    ['waiting', 'dashed ring, lock: waiting on a lock'],
    ['emulated', 'dotted page: emulated: snapshot held'],
    ['aborted', 'struck page: aborted, awaiting ROLLBACK'],
    ['free', 'free seats'],
    ['reserved', 'R: reserved for superusers'],
    ['worker', 'worker'],
    ['api', 'API process'],
    ['sweeper', 'sweeper'],
  ];
  let lx = x0;
  let ly = top + 4;
  const step = compact ? 18 : 20;
  for (const [key, text] of entries) {
    const w = 24 + textWidth(text, 11) + 12;
    if (lx > x0 && lx + w > x0 + width) {
      lx = x0;
      ly += step;
    }
    items.push({ key, x: lx, y: ly, text });
    lx += w;
  }
  const honest = block(
    'legend-honest',
    `Modelled: seats and door, counted from max_connections = ${max} and superuser_reserved_connections = ${reserved}${compact ? '' : ' (PGlite runs one backend)'}; ledger pages' ages, in simulated time. Real: states, XIDs, n_dead_tup, VACUUM output.`,
    x0,
    ly + step + TEXT_FONT,
    width,
    'legend-text',
  );
  return { top, bottom: honest.y - LINE + 4, items, lines: honest.lines };
}

/** The open ledger pages the XID strip shows, oldest XID first. */
export function stripPages(picture: CounterPicture): SeatedSession[] {
  return picture.seats
    .filter((s) => s.xid !== null && s.xactAgeMs !== null)
    .sort((a, b) => xidNumber(a.xid!) - xidNumber(b.xid!));
}
