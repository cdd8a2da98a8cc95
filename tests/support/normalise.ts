/**
 * Reduces `VACUUM (VERBOSE)` lines to what both engines must agree on: page and tuple
 * counts, dead-but-not-removable counts, frozen pages and index work. XIDs and toast
 * tables' OIDs become placeholders, since their values depend on each server's history;
 * timings, I/O rates, buffer and WAL usage are dropped, since they measure the machine
 * and the build, not the MVCC outcome.
 */
export function normaliseVacuumVerbose(lines: string[]): string[] {
  return lines
    .flatMap((line) => line.split('\n'))
    .map((line) => line.trim())
    .filter(
      (line) =>
        line !== '' &&
        !/^(avg read rate|buffer usage|WAL usage|system usage|memory usage|delay time)/.test(line),
    )
    .map((line) =>
      line
        .replace(/\b(cutoff|relfrozenxid|relminmxid): \d+/g, '$1: <xid>')
        .replace(/\bpg_toast_\d+/g, 'pg_toast_<oid>')
        .replace(
          /which is (?:\d+|…) XIDs ahead of previous value/g,
          'which is <n> XIDs ahead of previous value',
        )
        .replace(
          /which is \d+ MXIDs ahead of previous value/g,
          'which is <n> MXIDs ahead of previous value',
        ),
    );
}
