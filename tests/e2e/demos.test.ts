// The scenario demos in Chromium, driven by the keyboard alone on their embeds: each
// step's real output shows up in its session's lane, with the texts the lesson rests on,
// and the page stays accessible and fits a phone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, idle, lane, playByKeyboard, tabTo } from './player-keys';
import { startSite } from './site';

describe('the scenario demos, by keyboard', () => {
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site?.close());

  it('skip-locked, without SKIP LOCKED: B waits on Lock/transactionid, then takes 3 and 4', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/skip-locked/?lock=wait&hold=1`);
    await playByKeyboard(page, 'skip-locked');
    const you = await lane(page, 'you');
    expect(you).toMatch(/worker-b\s+active\s+Lock\s+transactionid/);
    const b = await lane(page, 'worker-b');
    expect(b).toMatch(/Waited, then answered after [\d.]+ s/);
    expect(b).toMatch(/\b3\s+convert/);
    expect(b).toMatch(/\b4\s+convert/);
    expect(await page.locator('.claims li.failed').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('skip-locked, with SKIP LOCKED: B takes 3 and 4 at once, beside the quoted figure', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/skip-locked/`);
    await playByKeyboard(page, 'skip-locked');
    const b = await lane(page, 'worker-b');
    expect(b).toMatch(/\b3\s+convert/);
    expect(b).not.toContain('Waited');
    const quotes = await page.getByRole('complementary', { name: /quoted/ }).innerText();
    expect(quotes).toContain('1.12 ms');
    expect(quotes).toMatch(/Measured in this page: worker-b’s step answered after [\d.]+ ms/);
    await page.close();
  });

  it('horizon, the idle worker: the removable cutoff is the blocker’s XID', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/horizon/?state=rc-update`);
    await playByKeyboard(page, 'horizon');
    const you = await lane(page, 'you');
    const xid = /blocker\s+postgres\s+idle in transaction\s+(\d+)/.exec(you)?.[1];
    expect(xid).toBeDefined();
    const cleaner = await lane(page, 'cleaner');
    expect(cleaner).toContain(`removable cutoff: ${xid},`);
    expect(cleaner).toContain('40 are dead but not yet removable');
    const tally = page.getByRole('region', { name: 'Does it hold the horizon back?' });
    expect(await tally.innerText()).toMatch(
      /UPDATE then idle \(the worker\)\s+holds it \(40 dead rows kept\)/,
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('horizon, REPEATABLE READ: after the DELETE and VACUUM the blocker still counts 100 rows', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/horizon/?state=rr-select`);
    await playByKeyboard(page, 'horizon');
    expect(await lane(page, 'cleaner')).toContain('40 are dead but not yet removable');
    const blocker = await lane(page, 'blocker');
    expect(blocker).toMatch(/count\s+100\b/);
    expect(blocker).not.toMatch(/not expressible/i);
    expect(await page.locator('.claims li.failed').count()).toBe(0);
    await page.close();
  });

  it('horizon, another database: plays PostgreSQL 18’s recorded output, labelled', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/horizon/?state=rr-other-database`);
    await playByKeyboard(page, 'horizon');
    expect(await page.locator('.honesty').first().innerText()).toMatch(
      /Recorded on PostgreSQL 18\.\d+/,
    );
    expect(await lane(page, 'cleaner')).toContain('tuples: 40 removed');
    await page.close();
  });

  it('activity: the backend_xmin filter misses worker-07, the article’s query finds it', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/activity/`);
    await playByKeyboard(page, 'activity');
    await lane(page, 'you'); // opens its earlier steps
    const naive = await page.locator('.step-box[data-step="5"]').innerText();
    const article = await page.locator('.step-box[data-step="6"]').innerText();
    expect(naive).toContain('backend_xmin IS NOT NULL');
    expect(naive).toMatch(/reader-rr\s+idle in transaction/);
    expect(naive).not.toMatch(/worker-07\s+idle in transaction/);
    expect(article).toMatch(/worker-07\s+idle in transaction/);
    await page.close();
  });

  it('idle-timeout: the server ends the worker, which reads 25P03 at its next statement', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/idle-timeout/?timeout=1`);
    await playByKeyboard(page, 'idle-timeout');
    const worker = await lane(page, 'worker-07');
    expect(worker).toContain('FATAL:  terminating connection due to idle-in-transaction timeout');
    expect(worker).toContain('SQLSTATE: 25P03');
    expect(await lane(page, 'cleaner')).toContain('tuples: 40 removed');
    await page.close();
  });

  it('Back replays from the start, and a step= address starts there', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/activity/?step=3`);
    await idle(page, 'activity');
    const root = page.locator('[data-demo="activity"]');
    expect(await root.getAttribute('data-step')).toBe('3');
    await tabTo(page, 'Back');
    await page.keyboard.press('Enter');
    await page.locator('[data-demo="activity"][data-step="2"][data-busy="no"]').waitFor();
    await page.close();
  });

  it('names an address it cannot use, and plays with its defaults', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}embed/skip-locked/?lock=sometimes&hold=99&colour=red`);
    await idle(page, 'skip-locked');
    const note = await page.getByRole('note').innerText();
    expect(note).toContain('lock=sometimes is not one of skip-locked, wait');
    expect(note).toContain('hold=99 is outside 0.5–10');
    expect(note).toContain('unknown parameter colour ignored');
    await page.close();
  });

  it('fits a 360 px wide phone without sideways scrolling', async () => {
    const page = await site.newPage({ width: 360, height: 740 });
    for (const demo of ['skip-locked', 'horizon', 'activity', 'idle-timeout']) {
      await page.goto(`${site.url}embed/${demo}/?step=3`);
      await idle(page, demo);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect({ demo, overflow }).toEqual({ demo, overflow: 0 });
    }
    await page.close();
  });
});
