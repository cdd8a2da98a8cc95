// The clerk: autovacuum's part, played by a superuser session. Every few simulated
// seconds it runs VACUUM (VERBOSE) on `events` and `jobs` and reads its report from the
// real notices: how many dead tuples it removed, how many are dead but not yet
// removable, and the removable cutoff, the oldest XID someone still holds. It then names
// who holds that XID, from pg_stat_activity.
import type { Notice } from '../engine/types';
import { now, type SimContext } from './context';
import type { VacuumReport } from './events';

export const clerkSeat = {
  name: 'clerk',
  actor: 'clerk',
  purpose: 'clerk',
  role: 'superuser',
} as const;

/** The tables the clerk files, in order. */
export const clerkTables = ['events', 'jobs'] as const;

/**
 * Reads the reports in the notices of VACUUM (VERBOSE): one per table vacuumed, its
 * TOAST table left out. Lines as PostgreSQL 18 prints them (heap_vacuum_rel in
 * src/backend/access/heap/vacuumlazy.c), e.g. `tuples: 0 removed, 5 remain, 3 are dead
 * but not yet removable` and `removable cutoff: 754, which was 1 XIDs old when
 * operation ended`.
 */
export function parseVacuumVerbose(notices: Notice[]): Omit<VacuumReport, 'heldBy'>[] {
  const reports: Omit<VacuumReport, 'heldBy'>[] = [];
  for (const { message } of notices) {
    const head = /^finished vacuuming "[^"]*?\.([^".]+)\.([^".]+)"/.exec(message);
    if (!head || head[1] === 'pg_toast') continue;
    const tuples =
      /^tuples: (\d+) removed, (\d+) remain, (\d+) are dead but not yet removable/m.exec(message);
    const cutoff = /^removable cutoff: (\d+), which was (\d+) XIDs old/m.exec(message);
    if (!tuples || !cutoff) throw new Error(`unexpected VACUUM (VERBOSE) report: ${message}`);
    reports.push({
      table: head[2]!,
      removed: Number(tuples[1]),
      remain: Number(tuples[2]),
      notYetRemovable: Number(tuples[3]),
      cutoff: cutoff[1]!,
      cutoffAge: Number(cutoff[2]),
    });
  }
  return reports;
}

/** Who holds an XID or snapshot, other than the asking session, by application_name. */
const holdersSql = `SELECT backend_xid::text, backend_xmin::text, application_name
  FROM pg_stat_activity
 WHERE datname = current_database() AND pid <> pg_backend_pid()
   AND (backend_xid IS NOT NULL OR backend_xmin IS NOT NULL)
 ORDER BY application_name`;

/** One round of filing; the next is scheduled first, so an error does not end the rounds. */
export async function fileLedgers(ctx: SimContext): Promise<void> {
  ctx.schedule(now(ctx) + ctx.state.settings.vacuumEveryMs, { kind: 'vacuum' });
  const session = ctx.sessions.get(clerkSeat.name);
  if (!session) return;
  const found: Omit<VacuumReport, 'heldBy'>[] = [];
  for (const table of clerkTables) {
    const { notices } = await session.query(`VACUUM (VERBOSE) ${table}`);
    found.push(...parseVacuumVerbose(notices));
  }
  const holders = (await session.query(holdersSql)).results[0]?.rows ?? [];
  const heldBy = (xid: string) =>
    holders.find(([x]) => x === xid)?.[2] ?? holders.find(([, xmin]) => xmin === xid)?.[2] ?? null;
  ctx.state.clerk = found.map((r) => ({ ...r, heldBy: heldBy(r.cutoff) }));
  for (const report of ctx.state.clerk) ctx.emit({ type: 'vacuum', ...report });
}
