/**
 * The counter picture in words: the summary a screen reader hears as the picture's
 * label, and the short sentence of what changed for a throttled `aria-live` region.
 * Pure functions of `CounterPicture`, so they are tested without a DOM.
 */
import type { CounterPicture, RefusedSession, SeatRole, SeatedSession } from './counter-picture';

/** `1234567` → `1,234,567`, the same in every locale so tests and readers agree. */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * A transaction's age as the page shows it: `<1 s`, `42 s`, `3 min`, `2 h`. Whole
 * seconds, so a page's text changes once a second, not on every frame.
 */
export function formatAge(ms: number): string {
  if (ms < 1000) return '<1 s';
  if (ms < 60_000) return `${Math.floor(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min`;
  return `${Math.floor(ms / 3_600_000)} h`;
}

/** Compares XIDs as numbers; the picture's XIDs are far from wraparound. */
export function xidNumber(xid: string): number {
  return Number(xid);
}

/** The open transaction with the smallest XID, or `null` when none holds an XID. */
export function oldestXidHolder(seats: readonly SeatedSession[]): SeatedSession | null {
  let oldest: SeatedSession | null = null;
  for (const s of seats) {
    if (s.xid === null || s.xactAgeMs === null) continue;
    if (oldest === null || xidNumber(s.xid) < xidNumber(oldest.xid!)) oldest = s;
  }
  return oldest;
}

const nouns: Record<SeatRole, [string, string]> = {
  worker: ['worker connection', 'worker connections'],
  api: ['API connection', 'API connections'],
  sweeper: ['sweeper connection', 'sweeper connections'],
  clerk: ['VACUUM session', 'VACUUM sessions'],
  you: ['your session', 'your sessions'],
  other: ['other connection', 'other connections'],
};
const roleOrder: SeatRole[] = ['worker', 'api', 'sweeper', 'clerk', 'you', 'other'];

const counted = (n: number, [one, many]: [string, string]) =>
  `${formatCount(n)} ${n === 1 ? one : many}`;

/** Open ledger pages in words: `2 ledger pages open (oldest XID 750, 4 s)`. */
function pagesPhrase(p: CounterPicture): string {
  const open = p.seats.filter((s) => s.xactAgeMs !== null);
  if (open.length === 0) return 'no ledger pages open';
  const oldest = oldestXidHolder(p.seats);
  const what = counted(open.length, ['ledger page open', 'ledger pages open']);
  if (oldest === null) return `${what} (none holds an XID)`;
  return `${what} (oldest XID ${oldest.xid}, ${formatAge(oldest.xactAgeMs!)})`;
}

const waitingCount = (p: CounterPicture) => p.seats.filter((s) => s.waiting !== null).length;

function waitingPhrase(n: number): string {
  return n === 0 ? 'no one waiting on a lock' : `${formatCount(n)} waiting on a lock`;
}

function jobsPhrase(p: CounterPicture): string {
  const { queued, running, done } = p.jobs;
  return `jobs ${formatCount(queued)} queued, ${formatCount(running)} running, ${formatCount(done)} done`;
}

function vacuumPhrase(p: CounterPicture): string | null {
  const v = p.clerk.lastVacuum;
  if (v === null) return null;
  const cutoff = v.cutoff === null ? '' : `, cutoff XID ${v.cutoff}`;
  return `VACUUM on ${v.table}: ${formatCount(v.removed)} removed, ${formatCount(v.notYetRemovable)} not yet removable${cutoff}`;
}

function horizonPhrase(p: CounterPicture): string {
  const { horizonXid, horizonPid } = p.clerk;
  if (horizonXid === null) return 'nothing holds the horizon';
  return horizonPid === null
    ? `horizon at XID ${horizonXid}`
    : `horizon at XID ${horizonXid}, held by pid ${horizonPid}`;
}

/** Seats actually drawn: at most `maxConnections` sessions. */
export function seatedCount(p: CounterPicture): number {
  return Math.min(p.seats.length, p.maxConnections);
}

/** The picture's accessible name: every count it shows, in one paragraph. */
export function summarise(p: CounterPicture): string {
  const parts = [
    `Bank counter (seats and door modelled): ${formatCount(seatedCount(p))} of ${formatCount(p.maxConnections)} seats taken (${formatCount(p.superuserReserved)} reserved for superusers)`,
    pagesPhrase(p),
    waitingPhrase(waitingCount(p)),
    `${formatCount(p.door.length)} refused at the door`,
    p.clerk.deadTuples === null
      ? 'dead tuples not read yet'
      : counted(p.clerk.deadTuples, ['dead tuple', 'dead tuples']),
    horizonPhrase(p),
  ];
  const vacuum = vacuumPhrase(p);
  if (vacuum !== null) parts.push(vacuum);
  parts.push(jobsPhrase(p));
  return `${parts.join('; ')}.`;
}

function byRole<T extends { role: SeatRole }>(items: readonly T[]): Map<SeatRole, number> {
  const counts = new Map<SeatRole, number>();
  for (const item of items) counts.set(item.role, (counts.get(item.role) ?? 0) + 1);
  return counts;
}

const doorKey = (r: RefusedSession) => `${r.name}\u0000${r.message}`;

/**
 * What changed between two moments, in one short sentence for an `aria-live` region;
 * the empty string when nothing worth saying did (ages growing alone are not news).
 * With no previous moment it is the full summary.
 */
export function describeChange(prev: CounterPicture | null, next: CounterPicture): string {
  if (prev === null) return summarise(next);
  const parts: string[] = [];

  if (
    prev.maxConnections !== next.maxConnections ||
    prev.superuserReserved !== next.superuserReserved
  ) {
    parts.push(
      `${formatCount(next.maxConnections)} seats (${formatCount(next.superuserReserved)} reserved)`,
    );
  }

  const before = new Set(prev.seats.map((s) => s.pid));
  const after = new Set(next.seats.map((s) => s.pid));
  const arrived = byRole(next.seats.filter((s) => !before.has(s.pid)));
  const left = byRole(prev.seats.filter((s) => !after.has(s.pid)));
  for (const role of roleOrder) {
    const n = arrived.get(role);
    if (n) parts.push(`${counted(n, nouns[role])} seated`);
  }
  for (const role of roleOrder) {
    const n = left.get(role);
    if (n) parts.push(`${counted(n, nouns[role])} left`);
  }

  const openCount = (p: CounterPicture) => p.seats.filter((s) => s.xactAgeMs !== null).length;
  if (
    openCount(prev) !== openCount(next) ||
    oldestXidHolder(prev.seats)?.xid !== oldestXidHolder(next.seats)?.xid
  ) {
    parts.push(pagesPhrase(next));
  }

  if (waitingCount(prev) !== waitingCount(next)) parts.push(waitingPhrase(waitingCount(next)));

  const wasAtDoor = new Set(prev.door.map(doorKey));
  const refused = next.door.filter((r) => !wasAtDoor.has(doorKey(r))).length;
  if (refused > 0) parts.push(`${formatCount(refused)} refused at the door`);
  else if (next.door.length === 0 && prev.door.length > 0) parts.push('no one at the door');

  if (
    prev.clerk.horizonXid !== next.clerk.horizonXid ||
    prev.clerk.horizonPid !== next.clerk.horizonPid
  ) {
    parts.push(horizonPhrase(next));
  }

  const dead = next.clerk.deadTuples;
  if (dead !== null && dead !== prev.clerk.deadTuples) {
    parts.push(counted(dead, ['dead tuple', 'dead tuples']));
  }

  const vacuum = vacuumPhrase(next);
  if (vacuum !== null && vacuum !== vacuumPhrase(prev)) parts.push(vacuum);

  if (jobsPhrase(prev) !== jobsPhrase(next)) parts.push(jobsPhrase(next));

  return parts.length === 0 ? '' : `${parts.join(', ')}.`;
}
