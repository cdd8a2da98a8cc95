// The exercises in Chromium: one solved by keyboard alone in its embed, whose parent page
// hears `seat-ledger:solved`; the others solved on their pages with the reader's moves
// (Cancel on a waiting statement, a query checked on its result, the deployment's
// settings), and a wrong move seen as not solving it.
import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedOnCoursePage, messageArrives, messagesOf } from './course-page';
import { startSite } from './site';

/** Waits until exercise `id` has its sessions in the starting state and has checked once. */
async function waitForExercise(page: Page | Frame, id: string): Promise<void> {
  const root = page.locator(`[data-demo="exercise/${id}"]`);
  await root.and(page.locator('[data-phase="ready"], [data-phase="idle"]')).waitFor({
    timeout: 120_000,
  });
  await root.and(page.locator('[data-checking="no"]')).waitFor({ timeout: 30_000 });
}

/** Presses Tab until the focus is in the SQL editor (at most `limit` times). */
async function tabToEditor(page: Page, frame: Page | Frame, limit = 12): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const inEditor = await frame.evaluate(
      () => document.activeElement?.getAttribute('aria-label') === 'SQL',
    );
    if (inEditor) return;
  }
  throw new Error(`the SQL editor was not reached in ${limit} presses of Tab`);
}

/** Types `sql` into the selected tab's editor and runs it, by keyboard. */
async function runByKeyboard(page: Page, sql: string): Promise<void> {
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(sql);
  await page.keyboard.press('ControlOrMeta+Enter');
}

/** Runs `sql` in session `tab`'s editor with the mouse, and waits for its check. */
async function runIn(page: Page, id: string, tab: string, sql: string): Promise<void> {
  await page.getByRole('tab', { name: new RegExp(`^${tab}\\b`) }).click();
  const panel = page.getByRole('tabpanel', { name: new RegExp(`^${tab}\\b`) });
  const before = await checked(page, id);
  await panel.getByRole('textbox', { name: 'SQL' }).click();
  await runByKeyboard(page, sql);
  await checkedAfter(page, id, before);
}

/** How many checks exercise `id` has completed. */
async function checked(page: Page | Frame, id: string): Promise<number> {
  return Number(await page.locator(`[data-demo="exercise/${id}"]`).getAttribute('data-checked'));
}

/** Waits until exercise `id` has completed more than `before` checks, and none runs. */
async function checkedAfter(page: Page | Frame, id: string, before: number): Promise<void> {
  await page.waitForFunction(
    ({ id, before }) => {
      const el = document.querySelector<HTMLElement>(`[data-demo="exercise/${id}"]`);
      return Number(el?.dataset.checked) > before && el?.dataset.checking === 'no';
    },
    { id, before },
    { timeout: 30_000 },
  );
}

/** The check list's items, each `✓ says. PostgreSQL shows: …` or `✗ …`. */
function checks(page: Page | Frame): Promise<string[]> {
  return page.getByRole('list', { name: 'Checks' }).getByRole('listitem').allInnerTexts();
}

describe('the exercises in the browser', () => {
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site?.close());

  it('solves free-dead-tuples by keyboard in its embed, and the parent hears seat-ledger:solved', async () => {
    const page = await site.newPage({ width: 1000, height: 900 });
    const frame = await embedOnCoursePage(page, `${site.url}embed/exercise/free-dead-tuples/`);
    await waitForExercise(frame, 'free-dead-tuples');
    expect(await frame.locator('[data-solved]').first().getAttribute('data-solved')).toBe('no');
    expect((await checks(frame))[0]).toMatch(/^✗.*40 are dead but not yet removable/s);

    // A hint, by keyboard: one at a time.
    await frame.getByRole('button', { name: 'Show a hint (1 of 3)' }).focus();
    await page.keyboard.press('Enter');
    await frame.getByRole('button', { name: 'Show a hint (2 of 3)' }).waitFor();

    // worker-07's tab, by the tab list's arrow keys, then into its editor.
    await frame.getByRole('tab', { name: /^you\b/ }).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    expect(
      await frame.getByRole('tab', { name: /^worker-07\b/ }).getAttribute('aria-selected'),
    ).toBe('true');
    await tabToEditor(page, frame);
    await runByKeyboard(page, 'COMMIT;');

    await frame.locator('[data-solved="yes"]').waitFor({ timeout: 30_000 });
    expect((await checks(frame)).every((c) => c.startsWith('✓'))).toBe(true);
    await frame.getByRole('note').filter({ hasText: 'Solved.' }).waitFor();
    await messageArrives(page, 'seat-ledger:solved', 'exercise/free-dead-tuples');
    const messages = await messagesOf(page);
    expect(messages.filter((m) => m.type === 'seat-ledger:solved')).toHaveLength(1);
    expect(messages.some((m) => m.type === 'seat-ledger:resize')).toBe(true);
    await page.close();
  });

  it('solves skip-waiting with Cancel on worker-b’s waiting claim, then SKIP LOCKED', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}exercises/skip-waiting/`);
    await waitForExercise(page, 'skip-waiting');
    expect(await checks(page)).toEqual([
      expect.stringMatching(/^✗.*worker-b waits/s),
      expect.stringMatching(/^✓.*worker-a holds jobs 1, 2/s),
      expect.stringMatching(/^✗/),
    ]);
    await page.getByRole('tab', { name: /^worker-b\b/ }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('status').filter({ hasText: '57014' }).first().waitFor();
    await runIn(page, 'skip-waiting', 'worker-b', 'ROLLBACK;');
    await runIn(
      page,
      'skip-waiting',
      'worker-b',
      `BEGIN;
UPDATE jobs SET status = 'running' WHERE id IN
  (SELECT id FROM jobs WHERE status = 'queued' ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 2)
RETURNING id;`,
    );
    await page.locator('[data-solved="yes"]').waitFor({ timeout: 30_000 });
    expect((await checks(page))[2]).toMatch(/worker-b holds jobs 3, 4/);
    await page.close();
  });

  it('checks find-horizon on the result of the reader’s own query', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}exercises/find-horizon/`);
    await waitForExercise(page, 'find-horizon');
    await runIn(
      page,
      'find-horizon',
      'you',
      'SELECT pid, application_name FROM pg_stat_activity WHERE backend_xmin IS NOT NULL;',
    );
    expect((await checks(page))[1]).toMatch(
      /^✗.*worker-07 \(pid \d+\) holds it; your result does not name it/s,
    );
    expect(await page.locator('[data-solved]').first().getAttribute('data-solved')).toBe('no');
    await runIn(
      page,
      'find-horizon',
      'you',
      'SELECT application_name FROM pg_stat_activity WHERE backend_xid IS NOT NULL;',
    );
    await page.locator('[data-solved="yes"]').waitFor({ timeout: 30_000 });
    await page.close();
  });

  it('solves api-seat with fewer connections per worker, and not with smaller pools', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}exercises/api-seat/`);
    await waitForExercise(page, 'api-seat');
    const root = page.locator('[data-demo="exercise/api-seat"]');
    const start = async () => {
      await page.getByRole('button', { name: /^Start (the deployment|it again)$/ }).click();
      // Each Start checks afresh, from 0.
      await page.waitForFunction(
        () =>
          document.querySelector<HTMLElement>('[data-demo="exercise/api-seat"]')?.dataset.phase ===
            'done' &&
          Number(
            document.querySelector<HTMLElement>('[data-demo="exercise/api-seat"]')?.dataset.checked,
          ) > 0 &&
          document.querySelector<HTMLElement>('[data-demo="exercise/api-seat"]')?.dataset
            .checking === 'no',
        undefined,
        { timeout: 120_000 },
      );
    };
    await page.getByLabel('max_overflow').fill('0');
    await start();
    expect((await checks(page))[1]).toMatch(/^✗.*no API process holds a seat/s);
    expect(await page.getByLabel('Workers').isEditable()).toBe(false);

    await page.getByLabel('Connections per worker').fill('2');
    await start();
    await root.and(page.locator('[data-solved="yes"]')).waitFor();
    expect((await checks(page))[0]).toMatch(/33 workers hold seats/);
    await page.close();
  });
});
