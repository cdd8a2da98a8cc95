import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  finishedRuns,
  runsAfter,
  runSql,
  startRun,
  tab,
  typeSql,
  waitForEngine,
} from './console-driver';
import { expectResponsive, measureFrames } from './frames';
import { startSite } from './site';

describe('the SQL console at /lab/', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  let page: Page;

  beforeAll(async () => {
    site = await startSite();
    page = await site.newPage();
    await page.goto(`${site.url}lab/`);
    await waitForEngine(page);
  });
  afterAll(() => site?.close());

  it('runs CREATE, INSERT, DELETE and VACUUM (VERBOSE) and shows the removable cutoff', async () => {
    const results = await runSql(
      page,
      [
        'CREATE TABLE ledger (id int, note text);',
        'INSERT INTO ledger SELECT g, $$page$$ FROM generate_series(1, 1000) g;',
        'DELETE FROM ledger WHERE id <= 300;',
        'VACUUM (VERBOSE) ledger;',
      ].join('\n'),
    );
    expect(results).toContain('INSERT 0 1000');
    expect(results).toContain('DELETE 300');
    const notices = await page.getByRole('region', { name: 'Notices' }).innerText();
    expect(notices).toMatch(/removable cutoff: \d+/);
    expect(notices).toContain('tuples: 300 removed, 700 remain, 0 are dead but not yet removable');
  });

  it('shows a value that looks like HTML as text', async () => {
    await runSql(page, `SELECT '<img src=x onerror="document.title=1">' AS html`);
    const cell = page.getByRole('cell', { name: '<img src=x onerror="document.title=1">' });
    await cell.waitFor();
    expect(await page.locator('.console img').count()).toBe(0);
  });

  it('runs with Ctrl+Enter', async () => {
    const results = await runSql(page, 'SELECT 6 * 7 AS answer', 'keyboard');
    expect(results).toContain('42');
  });

  it('reports a syntax error with SQLSTATE and a caret, then keeps working', async () => {
    await runSql(page, 'SELECT 1;\nSELEC 2;');
    const error = await page.getByRole('region', { name: 'Error' }).innerText();
    expect(error).toContain('ERROR:  syntax error at or near "SELEC"');
    expect(error).toContain('SQLSTATE: 42601');
    expect(error).toMatch(/SELEC 2;\n\s*\^/);
    expect(await runSql(page, 'SELECT 2 AS two')).toContain('SELECT 1');
  });

  it('refuses a 1 MB statement with words naming the cap, without echoing it', async () => {
    const huge = `SELECT '${'x'.repeat(1024 * 1024)}' FROM nowhere_at_all`;
    await runSql(page, huge);
    const limit = await page
      .getByRole('region', { name: 'Limit of the in-browser engine' })
      .innerText();
    expect(limit).toMatch(/this statement is 1,048,6\d\d bytes long/);
    expect(limit).toContain('statements of up to 100,000 bytes');
    expect(limit.length).toBeLessThan(2000);
    expect(await runSql(page, 'SELECT 3 AS three')).toContain('three');
  });

  it('Stop ends a statement PostgreSQL is busy with, with 57014, and says how', async () => {
    const measure = await measureFrames(page);
    const before = await startRun(page, 'SELECT count(*) FROM generate_series(1, 2000000000)');
    await page.getByRole('button', { name: 'Stop' }).click();
    await runsAfter(page, before, 60_000);
    const error = await page.getByRole('region', { name: 'Error' }).innerText();
    expect(error).toContain('ERROR:  canceling statement due to user request');
    expect(error).toContain('SQLSTATE: 57014');
    expect(await page.locator('.console-stopped').innerText()).toMatch(
      /cannot be interrupted, so the engine’s worker was replaced and every session rebuilt/,
    );
    const frames = await measure.stop();
    expect(await runSql(page, 'SELECT 5 AS five')).toContain('five');
    expectResponsive(frames, 'while Stop replaced the worker');
  });

  it('says a transaction is aborted after an error in it, and recovers after ROLLBACK', async () => {
    await runSql(page, 'BEGIN; SELECT 1/0;');
    expect(await page.getByRole('region', { name: 'Error' }).innerText()).toContain(
      'SQLSTATE: 22012',
    );
    await runSql(page, 'SELECT 1;');
    const aborted = await page.getByRole('region', { name: 'Error' }).innerText();
    expect(aborted).toContain(
      'current transaction is aborted, commands ignored until end of transaction block',
    );
    expect(aborted).toContain('SQLSTATE: 25P02');
    await runSql(page, 'ROLLBACK;');
    expect(await runSql(page, 'SELECT 4 AS four')).toContain('four');
  });

  it('recalls earlier statements with the arrow keys', async () => {
    await runSql(page, 'SELECT 10 AS ten');
    await runSql(page, 'SELECT 20 AS twenty');
    await typeSql(page, '');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await page.getByRole('textbox', { name: 'SQL' }).innerText()).toBe('SELECT 10 AS ten');
    await page.keyboard.press('ArrowDown');
    expect(await page.getByRole('textbox', { name: 'SQL' }).innerText()).toBe(
      'SELECT 20 AS twenty',
    );
  });

  it('Rename replaces the tab’s label with what the reader types', async () => {
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.keyboard.type('ledger');
    await page.keyboard.press('Enter');
    await tab(page, 'ledger').waitFor();
    expect(await page.getByRole('tab').first().locator('.session-tab-label').innerText()).toBe(
      'ledger',
    );
    // Focus is back on Rename, and a second rename replaces this label in turn.
    await page.keyboard.press('Enter');
    await page.keyboard.type('you');
    await page.keyboard.press('Enter');
    await tab(page, 'you').waitFor();
  });

  it('stays responsive while a 300k-row insert runs in the worker', async () => {
    const measure = await measureFrames(page);
    const started = Date.now();
    const results = await runSql(
      page,
      'CREATE TABLE big (id int, note text); INSERT INTO big SELECT g, md5(g::text) FROM generate_series(1, 300000) g;',
    );
    const elapsed = Date.now() - started;
    const frames = await measure.stop();
    expect(results).toContain('INSERT 0 300000');
    expect(elapsed).toBeGreaterThan(200); // long enough for the measure to mean something
    expectResponsive(frames, 'while the insert ran');
  });

  it('Reset ends SELECT pg_sleep(600) at once and gives a fresh, working database', async () => {
    const before = await finishedRuns(page);
    await typeSql(page, 'SELECT pg_sleep(600)');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText('Running…').first().waitFor();
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.getByText('Engine restarted: a fresh database.').waitFor({ timeout: 60_000 });
    await waitForEngine(page);
    expect(await finishedRuns(page)).toBeGreaterThanOrEqual(before);
    expect(await runSql(page, "SELECT to_regclass('ledger') IS NULL AS fresh")).toContain('t');
  });
});
