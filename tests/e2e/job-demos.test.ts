// The job and connection demos in Chromium, by keyboard alone on their embeds: lost-task,
// enqueue, fix, pre-ping and slots. Each shows PostgreSQL's real output, labels what it
// models, passes axe and fits a phone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, idle, lane, playByKeyboard, tabTo } from './player-keys';
import { startSite } from './site';

describe('the job and connection demos, by keyboard', () => {
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site?.close());

  it('lost-task, a background task: the upload says converting for good, and no job row exists', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/lost-task/?design=background&event=deploy`);
    await playByKeyboard(page, 'lost-task');
    const api = await lane(page, 'api');
    expect(api).toContain('modelled');
    expect(api).toContain('The deploy: the process ends, and its connection closes with it.');
    const you = await lane(page, 'you');
    expect(you).toMatch(/1\s+converting/);
    expect(you).toMatch(/job_rows\s+0/);
    expect(await page.locator('.honesty').first().innerText()).toContain('Modelled:');
    expect(await page.locator('.claims li.failed').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('lost-task, a job row: the sweeper puts it back and worker-2 finishes it, attempt 2', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/lost-task/?design=job-row&event=oom&stale=1`);
    await playByKeyboard(page, 'lost-task');
    expect(await lane(page, 'sweeper')).toMatch(/1\s+queued\s+1/);
    expect(await lane(page, 'you')).toMatch(/1\s+converted\s+done\s+2\s+worker-2/);
    expect(await page.locator('.claims li.failed').count()).toBe(0);
    await page.close();
  });

  it('enqueue, publish then commit, failing between: the worker’s job names a missing row', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/enqueue/?write=publish-then-commit&failure=between`);
    await playByKeyboard(page, 'enqueue');
    expect(await lane(page, 'api')).toContain('ROLLBACK');
    expect(await lane(page, 'worker')).toContain('UPDATE 0');
    const tally = page.getByRole('region', { name: 'What did your last run leave behind?' });
    expect(await tally.innerText()).toMatch(/before the upload commits\s+a broken pair \(1\)/);
    // The decision table, by keyboard: four answers, one column.
    const decide = page.getByRole('region', { name: 'Who owns the status of this job?' });
    for (let i = 0; i < 4; i++) await decide.getByRole('radio', { name: 'Yes' }).nth(i).check();
    expect(await decide.getByRole('status').innerText()).toContain('Your answers are split');
    await decide.getByRole('radio', { name: 'No' }).nth(2).check();
    expect(await decide.getByRole('status').innerText()).toContain(
      'You are in: PostgreSQL, as a jobs row.',
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('fix, claim-close live: VACUUM removes the 100 rows; hold plays PostgreSQL 18’s recording', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/fix/?shape=claim-close`);
    await playByKeyboard(page, 'fix');
    expect(await lane(page, 'cleaner')).toContain('tuples: 100 removed');
    expect(await page.locator('.player-code').innerText()).toContain('line 13');
    await page.goto(`${site.url}embed/fix/?shape=hold`);
    await playByKeyboard(page, 'fix');
    expect(await page.locator('.honesty').first().innerText()).toMatch(
      /Recorded on PostgreSQL 18\.\d+/,
    );
    expect(await lane(page, 'cleaner')).toContain('100 are dead but not yet removable');
    const tally = page.getByRole('region', { name: /How many dead rows/ });
    expect(await tally.innerText()).toMatch(
      /Hold the transaction while working \(recorded\)\s+100 kept/,
    );
    expect(await tally.innerText()).toMatch(/Claim, close, work, record\s+none/);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('pre-ping: without it the record fails with 57P01; with it the pid changes', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/pre-ping/?pre-ping=off`);
    await playByKeyboard(page, 'pre-ping');
    const off = await lane(page, 'pooled');
    expect(off).toContain('FATAL:  terminating connection due to administrator command');
    expect(off).toContain('SQLSTATE: 57P01');
    await page.goto(`${site.url}embed/pre-ping/?pre-ping=on`);
    await playByKeyboard(page, 'pre-ping');
    const on = await lane(page, 'pooled');
    expect(on).toContain('The pool throws the connection away and opens a new one.');
    expect(await page.locator('.claims li.failed').count()).toBe(0);
    expect(await page.locator('.claims li.held').count()).toBeGreaterThan(3);
    expect(await page.locator('.player-timeline').innerText()).toContain('2100 s:');
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('slots: the 98th ordinary seat is refused with the reserved-slots text, a superuser three seats later', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/slots/`);
    await idle(page, 'slots');
    expect(await page.locator('.slots-sum').innerText()).toMatch(
      /= 120 connections asked for; max_connections 100 − superuser_reserved_connections 3 = 97 seats/,
    );
    await tabTo(page, 'Start everything');
    await page.keyboard.press('Enter');
    await page.locator('[data-demo="slots"][data-busy="no"][data-seats="97"]').waitFor();
    const first = await page.getByRole('region', { name: 'The first refusal' }).innerText();
    expect(first).toContain('api-2');
    expect(first).toContain(
      'FATAL: remaining connection slots are reserved for roles with the SUPERUSER attribute',
    );
    expect(first).toContain('SQLSTATE 53300');
    await tabTo(page, 'A superuser walks in');
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Enter');
      await page.locator(`[data-demo="slots"][data-refused="${i < 3 ? 23 : 24}"]`).waitFor();
    }
    const su = await page.getByRole('region', { name: 'The superuser’s refusal' }).innerText();
    expect(su).toContain('let 3 superusers in');
    expect(su).toContain('FATAL: sorry, too many clients already');
    expect(await axeViolations(page)).toEqual([]);
    await tabTo(page, 'Reset');
    await page.keyboard.press('Enter');
    await page.locator('[data-demo="slots"][data-busy="no"][data-seats="0"]').waitFor();
    await page.close();
  });

  it('fit a 360 px wide phone without sideways scrolling', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    for (const demo of ['lost-task', 'enqueue', 'fix', 'pre-ping', 'slots']) {
      await page.goto(`${site.url}embed/${demo}/${demo === 'slots' ? '' : '?step=3'}`);
      await idle(page, demo);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect({ demo, overflow }).toEqual({ demo, overflow: 0 });
    }
    await page.close();
  });
});
