import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
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

const CLAIM = "SELECT id FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 2 FOR UPDATE;";

describe('the SQL console: one tab per session', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let page: Page;

  beforeAll(async () => {
    site = await startSite();
    page = await site.newPage();
    await page.goto(`${site.url}lab/`);
    await waitForEngine(page);
  });
  afterAll(() => site?.close());

  it('opens with one tab, "you", selected', async () => {
    expect(await page.getByRole('tab').count()).toBe(1);
    expect(await tab(page, 'you').getAttribute('aria-selected')).toBe('true');
    await badgeShows(page, 'you', 'idle');
  });

  it('a third session waits on worker-07’s row locks, then takes rows 3 and 4', async () => {
    await runSql(
      page,
      "CREATE TABLE jobs (id int PRIMARY KEY, status text);\nINSERT INTO jobs SELECT g, 'queued' FROM generate_series(1, 6) g;",
    );

    await newSession(page, 'session 2');
    await page.getByRole('button', { name: 'Rename' }).click();
    const field = page.getByRole('textbox', { name: 'Tab label' });
    await field.fill('worker-07');
    await field.press('Enter');
    await tab(page, 'worker-07').waitFor();
    expect(await page.getByRole('tab', { name: /^session 2/ }).count()).toBe(0);

    const claimed = await runSql(
      page,
      `BEGIN;\n${CLAIM}\nUPDATE jobs SET status = 'running' WHERE id IN (1, 2);`,
    );
    expect(claimed).toContain('UPDATE 2');
    await badgeShows(page, 'worker-07', 'idle in transaction');

    await newSession(page, 'session 3');
    await runSql(page, 'BEGIN;');
    // Another session used the engine, so worker-07's transaction was parked with its XID.
    expect(await badgeShows(page, 'worker-07', /XID \d+/)).toMatch(
      /^idle in transaction · XID \d+$/,
    );

    const measure = await measureFrames(page);
    const started = Date.now();
    await startRun(page, CLAIM);
    const waiting = await badgeShows(page, 'session 3', 'Lock/transactionid');
    expect(waiting).toMatch(
      /^active · XID \d+ \(emulated: snapshot held\) · waiting: Lock\/transactionid on pid \d+$/,
    );
    await page.getByText('Waiting for a lock…').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel' }).isVisible()).toBe(true);
    // The other tabs keep working while this statement waits.
    await tab(page, 'you').click();
    expect(await runSql(page, 'SELECT count(*) AS queued_now FROM jobs')).toContain('6');
    while (Date.now() - started < 1500) await page.waitForTimeout(100);
    const frames = await measure.stop();

    await tab(page, 'worker-07').click();
    expect(await runSql(page, 'COMMIT;')).toContain('COMMIT');
    await tab(page, 'session 3').click();
    const results = page.getByRole('region', { name: 'Results' });
    await results.getByRole('table').waitFor({ timeout: 10_000 });
    expect(await results.getByRole('cell').allInnerTexts()).toEqual(['3', '4']);
    await badgeShows(page, 'session 3', 'idle in transaction');
    // Held last, so the tests after this one start where they expect to.
    expectResponsive(frames, 'while session 3 waited');
  });

  it('Cancel ends a waiting statement with SQLSTATE 57014', async () => {
    // session 3 still holds rows 3 and 4 FOR UPDATE.
    await tab(page, 'you').click();
    const before = await startRun(page, "UPDATE jobs SET status = 'done' WHERE id = 3;");
    await page.getByText('Waiting for a lock…').waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Cancel' }).click();
    const error = await errorAfter(page, before);
    expect(error).toContain('SQLSTATE: 57014');
    expect(error).toContain('canceling statement due to user request');
  });

  it('a sleeping statement in flight leaves the other tabs free, and Cancel ends it', async () => {
    await tab(page, 'worker-07').click();
    const before = await startRun(page, 'SELECT pg_sleep(60);');
    expect(await badgeShows(page, 'worker-07', 'Timeout/PgSleep')).toMatch(
      /^active · XID \d+ \(emulated: snapshot held\) · waiting: Timeout\/PgSleep$/,
    );
    await page.getByText('Sleeping…').waitFor();
    await tab(page, 'you').click();
    expect(await runSql(page, 'SELECT 1 AS still_here')).toContain('still_here');
    await tab(page, 'worker-07').click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await errorAfter(page, before + 1)).toContain('SQLSTATE: 57014');
    await badgeShows(page, 'worker-07', /^idle$/);
    await tab(page, 'you').click(); // where the next test starts
  });

  it('moves between tabs with the arrow keys and selects with Enter', async () => {
    await tab(page, 'you').focus();
    await page.keyboard.press('ArrowRight');
    expect(await tab(page, 'worker-07').evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await tab(page, 'worker-07').getAttribute('aria-selected')).toBe('false');
    await page.keyboard.press('Enter');
    expect(await tab(page, 'worker-07').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('End');
    await page.keyboard.press('Space');
    expect(await tab(page, 'session 3').getAttribute('aria-selected')).toBe('true');
    expect(await page.getByRole('textbox', { name: 'SQL' }).count()).toBe(1);
  });

  it('Close session rolls its transaction back and leaves the other tabs', async () => {
    await tab(page, 'session 3').click();
    await page.getByRole('button', { name: 'Close session' }).click();
    await page.getByRole('tab').nth(1).waitFor();
    expect(await page.getByRole('tab').count()).toBe(2);
    await tab(page, 'you').click();
    // Rows 3 and 4 are free again: NOWAIT would fail with 55P03 if they were still locked.
    expect(
      await runSql(page, 'SELECT id FROM jobs WHERE id IN (3, 4) FOR UPDATE NOWAIT'),
    ).toContain('SELECT 2');
  });

  it('has no axe violations and fits 360 px with three tabs, one of them waiting', async () => {
    const phone = await site.newPage({ width: 360, height: 740 });
    await phone.goto(`${site.url}lab/`);
    await waitForEngine(phone);
    await runSql(phone, 'CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1);');
    await newSession(phone, 'session 2');
    await runSql(phone, 'BEGIN; UPDATE t SET id = id WHERE id = 1;');
    await newSession(phone, 'session 3');
    await startRun(phone, 'DELETE FROM t WHERE id = 1;');
    await badgeShows(phone, 'session 3', 'Lock/transactionid');
    await phone.getByRole('button', { name: 'Rename' }).click();
    const { violations } = await new AxeBuilder({ page: phone }).analyze();
    expect(violations.map((v) => `${v.id} (${v.nodes.length}) ${v.help}`)).toEqual([]);
    const overflow = await phone.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
    await phone.close();
  });

  it('a deadlock between two tabs ends one statement with 40P01 and names the cycle', async () => {
    await tab(page, 'you').click();
    // Only worker-07's check, deadlock_timeout after its wait began, may find the cycle.
    await runSql(page, "SET deadlock_timeout = '100s'; SELECT pg_advisory_lock(1);");
    await tab(page, 'worker-07').click();
    await runSql(page, 'SELECT pg_advisory_lock(2);');
    await tab(page, 'you').click();
    await startRun(page, 'SELECT pg_advisory_lock(2);');
    expect(await badgeShows(page, 'you', 'Lock/advisory')).toMatch(/waiting: Lock\/advisory/);
    await tab(page, 'worker-07').click();
    const before = await startRun(page, 'SELECT pg_advisory_lock(1);');
    const error = await errorAfter(page, before);
    expect(error).toContain('SQLSTATE: 40P01');
    expect(error).toContain('deadlock detected');
    expect(error).toMatch(
      /Process \d+ waits for ExclusiveLock on advisory lock \[\d+,0,1,1\]; blocked by process \d+\./,
    );
    // Session-level locks outlive the error: "you" waits until worker-07 gives key 2 back
    // (read once the tabs show worker-07 idle after its error).
    await badgeShows(page, 'worker-07', /^idle$/);
    expect(await badgeShows(page, 'you', 'Lock/advisory')).toMatch(/waiting: Lock\/advisory/);
    await runSql(page, 'SELECT pg_advisory_unlock(2);');
    await badgeShows(page, 'you', /^idle$/);
    await tab(page, 'you').click();
    expect(
      await runSql(page, 'SELECT pg_advisory_unlock_all(); RESET deadlock_timeout;'),
    ).toContain('RESET');
  });

  it('Reset gives a single "you" tab on a fresh database', async () => {
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.getByText('Engine restarted: a fresh database.').waitFor({ timeout: 60_000 });
    await waitForEngine(page);
    expect(await page.getByRole('tab').count()).toBe(1);
    await tab(page, 'you').waitFor();
    expect(await runSql(page, "SELECT to_regclass('jobs') IS NULL AS fresh")).toContain('t');
  });
});
