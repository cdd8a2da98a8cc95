// A wait the session layer's checks cannot see coming: an INSERT of a key that a parked
// transaction inserted. PGlite spins on it; the watchdog replaces the worker, rebuilds
// every session from the journal, and shows the statement waiting, as a server would
// (tests/fidelity/session-claims.test.ts checks the server's side).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  badgeShows,
  errorAfter,
  startRun,
  newSession,
  runSql,
  tab,
  waitForEngine,
} from './console-driver';
import { expectResponsive, measureFrames } from './frames';
import { startSite } from './site';

describe('the watchdog: a wait no check foresaw', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let page: Page;

  beforeAll(async () => {
    site = await startSite();
    page = await site.newPage();
    await page.goto(`${site.url}lab/`);
    await waitForEngine(page);
    await runSql(page, 'CREATE TABLE uploads (name text PRIMARY KEY);');
    await newSession(page, 'session 2');
    await runSql(page, "BEGIN;\nINSERT INTO uploads VALUES ('cat.png');");
    await newSession(page, 'session 3');
  });
  afterAll(() => site?.close());

  it('shows the INSERT waiting on the holder, keeps every session, and gives 23505 after COMMIT', async () => {
    const measure = await measureFrames(page);
    const before = await startRun(page, "INSERT INTO uploads VALUES ('cat.png');");
    const badge = await badgeShows(page, 'session 3', 'Lock/transactionid', 30_000);
    expect(badge).toMatch(
      /^active · XID \d+ \(emulated: snapshot held\) · waiting: Lock\/transactionid on pid \d+ \(found by the watchdog\)$/,
    );
    await page.getByText('Waiting for a lock…').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel' }).isVisible()).toBe(true);
    // The stuck worker keeps one core busy until it is replaced, and a 2-core test machine
    // shares the other between this page, the browser and the test runner: frames there
    // have come 100–330 ms apart. The page's own tasks are what is held (frames.ts).
    const frames = await measure.stop();

    // The holder still has its transaction and XID; the first tab still works.
    expect(await badgeShows(page, 'session 2', /XID \d+/)).toMatch(
      /^idle in transaction · XID \d+$/,
    );
    await tab(page, 'you').click();
    expect(await runSql(page, 'SELECT count(*) AS committed FROM uploads;')).toContain('0');

    await tab(page, 'session 2').click();
    expect(await runSql(page, 'COMMIT;')).toContain('COMMIT');
    await tab(page, 'session 3').click();
    // Two runs in the other tabs finished since; the INSERT's is the third.
    const error = await errorAfter(page, before + 2, 60_000);
    expect(error).toContain('SQLSTATE: 23505');
    expect(error).toContain('duplicate key value violates unique constraint "uploads_pkey"');
    expectResponsive(frames, 'while the watchdog replaced the worker');
  });

  it('Cancel ends the stuck statement with 57014 and the holder can still commit', async () => {
    await tab(page, 'session 2').click();
    await runSql(page, "BEGIN;\nINSERT INTO uploads VALUES ('dog.png');");
    await tab(page, 'session 3').click();
    const before = await startRun(page, "INSERT INTO uploads VALUES ('dog.png');");
    await badgeShows(page, 'session 3', 'found by the watchdog', 30_000);
    await page.getByRole('button', { name: 'Cancel' }).click();
    const error = await errorAfter(page, before, 60_000);
    expect(error).toContain('SQLSTATE: 57014');
    expect(error).toContain('canceling statement due to user request');

    await tab(page, 'session 2').click();
    expect(await runSql(page, 'COMMIT;')).toContain('COMMIT');
    expect(await runSql(page, 'SELECT name FROM uploads ORDER BY name;')).toMatch(
      /cat\.png[\s\S]*dog\.png/,
    );
  });
});
