// The article's claims as isolation specs (tests/fidelity/specs/), run on PGlite through
// the session layer and on a real PostgreSQL 18; the two outputs must agree once the
// parts that depend on each server's history are normalised.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodePgliteEngine } from '../../src/engine/pglite/node';
import { startTestServer, type TestServer } from '../../src/engine/server/server';
import type { Engine } from '../../src/engine/types';
import { regressSettings } from '../../src/spec/run';
import { runSpecFile } from '../support/spec-file';

const dir = path.join(import.meta.dirname, 'specs');
const specs = readdirSync(dir)
  .filter((f) => f.endsWith('.spec'))
  .map((f) => f.slice(0, -'.spec'.length))
  .sort();

/**
 * XIDs become <xid1>, <xid2>… in order of first appearance, so equal XIDs stay equal;
 * machine-dependent VACUUM lines (timings, buffers, WAL) go; toast OIDs become <oid>.
 * "which was N XIDs old" becomes <n>: where PGlite's stand-in for a snapshot spent an XID in
 * what it counts, PGlite leaves the count out ("…", spent-xids.test.ts checks the rest).
 */
export function normaliseOut(out: string): string {
  const xids = new Map<string, string>();
  const xid = (n: string) => {
    if (!xids.has(n)) xids.set(n, `<xid${xids.size + 1}>`);
    return xids.get(n)!;
  };
  return out
    .split('\n')
    .filter((line) => !/^(avg read rate|buffer usage|WAL usage|system usage)/.test(line))
    .join('\n')
    .replace(
      /\b(xid=|cutoff: |relfrozenxid: )(\d+)/g,
      (_m, label: string, n: string) => label + xid(n),
    )
    .replace(/pg_toast_\d+/g, 'pg_toast_<oid>')
    .replace(/which was (?:\d+|…) XIDs old/g, 'which was <n> XIDs old')
    .replace(/which is (?:\d+|…) XIDs ahead/g, 'which is <n> XIDs ahead');
}

async function run(name: string, engine: Engine): Promise<string> {
  return (await runSpecFile(path.join(dir, `${name}.spec`), engine, { testName: name })).out;
}

describe('the article’s claims on PGlite and on PostgreSQL 18', () => {
  let server: TestServer;
  const outputs = new Map<string, { server: string; pglite: string }>();

  beforeAll(async () => {
    server = await startTestServer(regressSettings);
    for (const name of specs) {
      const pglite = await createNodePgliteEngine(regressSettings);
      outputs.set(name, {
        server: await run(name, server.engine),
        pglite: await run(name, pglite),
      });
      await pglite.close();
    }
  });
  afterAll(() => server?.stop());

  it.each(specs)('%s.spec gives the same output on both engines', (name) => {
    const { server: onServer, pglite } = outputs.get(name)!;
    expect(normaliseOut(pglite)).toBe(normaliseOut(onServer));
  });

  it('SKIP LOCKED: B gets 3 and 4 without waiting', () => {
    const out = outputs.get('skip-locked-claim')!.server;
    expect(out).not.toContain('<waiting');
    expect(out).toMatch(/step b_claim: .*\nid\n--\n 3\n 4\n\(2 rows\)/);
  });

  it('plain FOR UPDATE: B waits on Lock/transactionid, then gets 3 and 4', () => {
    const out = outputs.get('for-update-wait')!.server;
    expect(out).toContain('<waiting ...>');
    expect(out).toMatch(/isolation\/for-update-wait\/b\|active\s*\|Lock\s*\|transactionid/);
    expect(out).toMatch(/step b_claim: <\.\.\. completed>\nid\n--\n 3\n 4\n/);
  });

  it('pg_stat_activity: the idle writer is found by backend_xid and missed by backend_xmin', () => {
    const out = outputs.get('activity')!.server;
    const [article, xminOnly] = out.split('step r_xmin_only');
    expect(article).toMatch(/isolation\/activity\/writer\|idle in transaction/);
    expect(xminOnly!.split('step w_commit')[0]).not.toContain('writer');
  });

  it('enqueue: neither the upload row nor the job row survives the failed transaction', () => {
    expect(outputs.get('enqueue')!.server).toMatch(/uploads\|jobs\n-------\+----\n {6}0\| {3}0/);
  });

  it('idle timeout: the writer is ended with 25P03 and VACUUM then removes what it could not', () => {
    const out = outputs.get('idle-timeout')!.server;
    const tuples = out.split('\n').filter((line) => line.startsWith('tuples:'));
    expect(tuples).toEqual([
      'tuples: 0 removed, 50 remain, 20 are dead but not yet removable',
      'tuples: 20 removed, 30 remain, 0 are dead but not yet removable',
    ]);
    expect(out).toMatch(
      /step w_next: SELECT 1;\nFATAL: {2}terminating connection due to idle-in-transaction timeout/,
    );
  });

  it('horizon: only states holding an XID or a snapshot keep dead tuples, cut off at the blocker', () => {
    const perms = outputs.get('horizon')!.server.split('starting permutation: ').slice(1);
    const kept = perms.map((p) => /[1-9]\d* are dead but not yet removable/.test(p));
    // delete vacuum | rc begin | rc read | rc write | rc cursor | rr read | ser read | in flight
    expect(kept).toEqual([false, false, false, true, true, true, true, true]);
    const write = normaliseOut(perms[3]!);
    const blocker = /xid=(<xid\d+>)/.exec(write)![1];
    expect(write).toContain(`removable cutoff: ${blocker},`);
  });

  it('deadlocks: the session whose check finds the cycle fails; session-level locks outlive it', () => {
    const advisory = outputs.get('deadlock-advisory')!.server;
    expect(advisory).toMatch(/step b1: <\.\.\. completed>\nERROR: {2}deadlock detected\n/);
    // a still waits for key 2 until b gives it back.
    expect(advisory.indexOf('step a2: <... completed>')).toBeGreaterThan(
      advisory.indexOf('step b_unlock:'),
    );
    const jobLock = outputs.get('deadlock-job-lock')!.server;
    expect(jobLock).toMatch(
      /step s_lock: <\.\.\. completed>\nERROR: {2}deadlock detected\nstep w_done: <\.\.\. completed>/,
    );
    expect(jobLock).toMatch(/ 1\|done {2}\n/);
    // a waited first, but its check ran before b asked: b's check found the cycle.
    expect(outputs.get('deadlock-late')!.server).toMatch(
      /step b1: <\.\.\. completed>\nERROR: {2}deadlock detected\n/,
    );
  });

  it('a waiting UPDATE holds its own XID, newer than its holder’s, and a snapshot', () => {
    expect(outputs.get('activity-waiter')!.server).toMatch(
      /isolation\/activity-waiter\/claimer\|active\s*\|transactionid\|t\s*\|t\s*\|t/,
    );
  });
});
