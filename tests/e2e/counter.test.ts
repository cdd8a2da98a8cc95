// The counter demo in Chromium: 30 hold workers fill the seats until PostgreSQL's
// reserved-slots FATAL turns sessions away at the door; VACUUM run from the page cannot
// remove what died behind a held claim, and can once workers claim, close and record.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstResizeMessage, startSite } from './site';

const RESERVED = 'remaining connection slots are reserved for roles with the SUPERUSER attribute';
/** The VACUUM button names the table it vacuums: the one in its output below. */
const VACUUM = 'VACUUM (VERBOSE) events now';

async function waitForCounter(page: Page): Promise<void> {
  await page
    .locator('[data-demo="counter"][data-engine="ready"][data-phase="running"]')
    .waitFor({ timeout: 120_000 });
}

/** The picture's own summary (its aria-label), once it says `text`. */
async function pictureSays(page: Page, text: string | RegExp): Promise<string> {
  await page.waitForFunction(
    ([source, flags]) =>
      new RegExp(source, flags).test(
        document.querySelector('.counter-frame svg')?.getAttribute('aria-label') ?? '',
      ),
    typeof text === 'string'
      ? [text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), '']
      : [text.source, text.flags],
    { timeout: 60_000 },
  );
  return (await page.locator('.counter-frame svg').getAttribute('aria-label')) ?? '';
}

/**
 * Waits until the door in the picture shows `message` after `FATAL:` (two spaces, as libpq
 * prints it), its wrapped lines read as one.
 */
async function doorSays(page: Page, message: string): Promise<void> {
  await page.waitForFunction(
    (text) =>
      [...document.querySelectorAll('.counter-frame svg text.door-fatal')]
        .map((t) => t.textContent)
        .join(' ')
        .includes(text),
    `FATAL:  ${message}`,
    { timeout: 60_000 },
  );
}

/** The `tuples:` line of the events table in the output of the page's VACUUM button. */
async function vacuumTuples(page: Page, press: () => Promise<void>): Promise<string> {
  const output = page.getByRole('region', { name: 'PostgreSQL output' });
  const before = await page.evaluate(
    () => document.querySelector('.counter-output')?.textContent ?? '',
  );
  await press();
  // A new answer, not the last one still on show.
  await page.waitForFunction(
    (old) => {
      const text = document.querySelector('.counter-output')?.textContent ?? '';
      return text !== old && text.includes('vacuuming "postgres.public.events"');
    },
    before,
    { timeout: 30_000 },
  );
  const text = await output.innerText();
  return /tuples: .*/.exec(text)![0];
}

/** Simulated seconds shown, read from the demo root. */
async function simSeconds(page: Page): Promise<number> {
  return Number(await page.locator('[data-demo="counter"]').getAttribute('data-sim-ms')) / 1000;
}

async function waitSimSeconds(page: Page, seconds: number): Promise<void> {
  const start = await simSeconds(page);
  await page.waitForFunction(
    (until) =>
      Number(document.querySelector('[data-demo="counter"]')?.getAttribute('data-sim-ms')) >=
      until * 1000,
    start + seconds,
    { timeout: 120_000 },
  );
}

describe('the counter demo', () => {
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site?.close());

  it('30 hold workers fill the seats, are refused at the door, and pin VACUUM; claim → close frees it', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/counter/?workers=30&shape=hold&connections=3&api=2`);
    await waitForCounter(page);
    const summary = await pictureSays(page, /9[0-9] of 100 seats taken/);
    expect(summary).toContain('3 reserved for superusers');
    await doorSays(page, RESERVED);

    await pictureSays(page, /ledger pages? open/);
    await waitSimSeconds(page, 3);
    const held = await vacuumTuples(page, () => page.getByRole('button', { name: VACUUM }).click());
    expect(held).toMatch(
      /tuples: \d+ removed, \d+ remain, [1-9]\d* are dead but not yet removable/,
    );

    await page.getByRole('radio', { name: /claim → close/ }).check();
    await waitForCounter(page);
    await waitSimSeconds(page, 3);
    const freed = await vacuumTuples(page, () =>
      page.getByRole('button', { name: VACUUM }).click(),
    );
    expect(freed).toMatch(/tuples: [1-9]\d* removed, \d+ remain, 0 are dead but not yet removable/);
    await page.close();
  });

  it('the same run from the keyboard alone, with focus visible', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/counter/?workers=30&shape=hold&connections=3&api=2`);
    await waitForCounter(page);
    await pictureSays(page, /9[0-9] of 100 seats taken/);
    await doorSays(page, RESERVED);
    /** Moves focus with `key` until `target` has it. */
    const focus = async (target: ReturnType<Page['getByRole']>, key: string) => {
      for (let i = 0; i < 40; i++) {
        if (await target.evaluate((el) => el === document.activeElement)) return;
        await page.keyboard.press(key);
      }
      throw new Error(`${key} never reached the control`);
    };
    const vacuum = page.getByRole('button', { name: VACUUM });
    await focus(vacuum, 'Tab');
    expect(await vacuum.evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe('none');
    await waitSimSeconds(page, 3);
    expect(await vacuumTuples(page, () => page.keyboard.press('Enter'))).toMatch(
      /[1-9]\d* are dead but not yet removable/,
    );
    // Focus stays on the button pressed, not on the page, once its answer is in.
    expect(await vacuum.evaluate((el) => el === document.activeElement)).toBe(true);
    const activity = page.getByRole('button', { name: 'Run the pg_stat_activity query' });
    await focus(activity, 'Tab');
    await page.keyboard.press('Enter');
    await page.locator('.counter-output table').waitFor({ timeout: 30_000 });
    expect(await activity.evaluate((el) => el === document.activeElement)).toBe(true);
    // Back to the shape radios; the arrow key switches the shape and restarts the counter.
    await focus(page.getByRole('radio', { name: /hold the transaction/ }), 'Shift+Tab');
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('radio', { name: /claim → close/ }).isChecked()).toBe(true);
    await waitForCounter(page);
    await waitSimSeconds(page, 3);
    await focus(vacuum, 'Tab');
    expect(await vacuumTuples(page, () => page.keyboard.press('Enter'))).toMatch(
      /tuples: [1-9]\d* removed, \d+ remain, 0 are dead but not yet removable/,
    );
    await page.close();
  });

  it('on /lab/counter/, Tab from the counter reaches the console, whose own statements all run', async () => {
    // A phone held sideways: the console starts below the first screen, out of view.
    const page = await site.newPage({ width: 740, height: 360 });
    await page.goto(`${site.url}lab/counter/?workers=4&api=2`);
    await waitForCounter(page);
    // The sim has run a while: uploads have added rows to its queue, workers claimed some.
    await waitSimSeconds(page, 4);
    const editor = page.getByRole('textbox', { name: 'SQL' });
    // Out of view, the console waits, but its placeholder is in the tab order.
    const lazyConsole = page.locator('[data-demo="console"]');
    expect(await lazyConsole.getAttribute('data-engine')).toBe('idle');
    expect(await lazyConsole.getByRole('button', { name: 'Start it now' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Copy link to this moment' }).focus();
    for (let i = 0; i < 60; i++) {
      if (await editor.count()) {
        if (await editor.evaluate((el) => el === document.activeElement)) break;
      }
      const on = await page.evaluate(() => document.activeElement?.textContent ?? '');
      // The console's placeholder, before it has come into view, offers to start it.
      await page.keyboard.press(on === 'Start it now' ? 'Enter' : 'Tab');
    }
    expect(await editor.evaluate((el) => el === document.activeElement)).toBe(true);

    const sql = await editor.innerText();
    expect(sql).toContain('FROM jobs');
    await page.keyboard.press('ControlOrMeta+Enter');
    await page
      .locator('[data-demo="console"]:not([data-runs="0"])[data-runs]')
      .waitFor({ timeout: 60_000 });
    const results = page.getByRole('region', { name: 'Results' });
    expect(await page.getByRole('region', { name: 'Error' }).count()).toBe(0);
    const statements = sql.split('\n').filter((line) => /^SELECT /.test(line)).length;
    expect(await results.innerText()).toContain(`${statements} statements ran.`);
    expect(await results.innerText()).toMatch(/status\s+jobs/);
    await page.close();
  });

  it('has no axe violations and fits a 360 px phone', async () => {
    for (const path of ['embed/counter/?workers=5', 'lab/counter/']) {
      const page = await site.newPage({ width: 360, height: 740 });
      await page.goto(`${site.url}${path}`);
      await waitForCounter(page);
      await pictureSays(page, /seats taken/);
      // With output on show: its long lines scroll inside their panels, not the page.
      await vacuumTuples(page, () => page.getByRole('button', { name: VACUUM }).click());
      await page.getByRole('button', { name: 'Run the pg_stat_activity query' }).click();
      await page.locator('.counter-output table').waitFor({ timeout: 30_000 });
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.map((v) => `${path}: ${v.id} (${v.nodes.length}) ${v.help}`)).toEqual([]);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect({ path, overflow }).toEqual({ path, overflow: 0 });
      await page.close();
    }
  });

  it('groups its settings in one form, each field labelled and explained in words', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    await page.goto(`${site.url}embed/counter/?workers=2`);
    await waitForCounter(page);
    const form = page.getByRole('form', { name: 'Counter settings' });
    const groups = await form
      .getByRole('group')
      .evaluateAll((els) =>
        els.map((el) => el.querySelector(':scope > legend')?.textContent ?? ''),
      );
    expect(groups).toEqual([
      'Who uses the database',
      'How each worker holds its job',
      'Worker shape',
      "Each API process's pool",
      'Time and trouble',
    ]);
    const fields = [
      ...(await form.getByRole('spinbutton').all()),
      ...(await form.getByRole('radio').all()),
      ...(await form.getByRole('checkbox').all()),
      form.getByRole('combobox', { name: 'Connections per worker' }),
      form.getByRole('combobox', { name: 'Speed' }),
    ];
    expect(fields.length).toBe(10);
    for (const field of fields) {
      const help = await field.evaluate((el) => {
        const label = (el as HTMLInputElement).labels?.[0]?.textContent ?? '';
        const ids = el.getAttribute('aria-describedby')?.split(' ') ?? [];
        return { label, help: ids.map((id) => document.getElementById(id)?.textContent ?? '') };
      });
      expect(help.label, JSON.stringify(help)).not.toBe('');
      expect(help.help.join('').length, JSON.stringify(help)).toBeGreaterThan(20);
    }
    expect(await form.innerText()).toContain('SELECT 1');
    await page.close();
  });

  it('reports a broken parameter in words and starts with the defaults', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/counter/?workers=lots&colour=red`);
    await waitForCounter(page);
    const note = await page.getByRole('note').innerText();
    expect(note).toContain('workers must be a number, not “lots”');
    expect(note).toContain('unknown parameter colour ignored');
    await page.close();
  });

  it('tells a parent page that embeds it its height', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}demos/`);
    const message = await firstResizeMessage(
      page,
      `${site.url}embed/counter/?workers=2`,
      'counter',
    );
    expect(message).toMatchObject({ type: 'seat-ledger:resize', demo: 'counter' });
    await page.close();
  });

  it('kills a worker and says what became of it', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/counter/?workers=2&shape=hold`);
    await waitForCounter(page);
    await page.getByRole('combobox', { name: 'Worker to kill' }).selectOption('worker-02');
    await page.getByRole('button', { name: 'Kill it mid-job' }).click();
    await page.getByText(/worker-02 was killed/).waitFor({ timeout: 30_000 });
    await page.close();
  });

  it('a link to this moment comes back to the same simulated time', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/counter/?workers=4&shape=claim-close&connections=2`);
    await waitForCounter(page);
    await waitSimSeconds(page, 1);
    // A change while it runs is a command in the moment's script, not a starting setting.
    await page.getByRole('spinbutton', { name: 'Workers' }).fill('6');
    await page.getByRole('spinbutton', { name: 'API processes' }).fill('2');
    await waitSimSeconds(page, 1);
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await page.waitForTimeout(500); // the tick under way finishes and is shown
    await page.getByRole('button', { name: 'Copy link to this moment' }).click();
    const link = await page.getByRole('textbox', { name: /Link to this moment/ }).inputValue();
    const at = await simSeconds(page);
    expect(link).toContain('?moment=');
    const again = await site.newPage();
    await again.goto(link);
    await waitForCounter(again);
    expect(await simSeconds(again)).toBe(at);
    expect(await again.getByRole('button', { name: 'Resume' }).isVisible()).toBe(true);
    // The controls show the settings the moment carries, not the defaults.
    expect(await again.getByRole('spinbutton', { name: 'Workers' }).inputValue()).toBe('6');
    expect(await again.getByRole('spinbutton', { name: 'API processes' }).inputValue()).toBe('2');
    expect(await again.getByRole('radio', { name: /claim → close/ }).isChecked()).toBe(true);
    expect(await again.getByRole('combobox', { name: 'Connections per worker' }).inputValue()).toBe(
      '2',
    );
    await again.close();
    await page.close();
  });
});
