// The embed builder on a demo's page: the form follows the presets and the teacher's
// edits, the snippet and the live preview follow the form, a bad number is named and not
// used, and the counter's seats are checked before the link is shared.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite } from './site';

async function openBuilder(page: Page, url: string) {
  await page.goto(url);
  const builder = page.locator('[data-embed-builder]');
  await builder.scrollIntoViewIfNeeded();
  // Hydrated: the presets respond.
  await page.getByRole('button', { name: 'Show the live preview' }).waitFor();
  await expect
    .poll(() => builder.evaluate((b) => b.closest('astro-island')?.hasAttribute('ssr')))
    .toBe(false);
  return builder;
}

const snippet = (page: Page) => page.locator('[data-snippet]').innerText();

describe('the embed builder', () => {
  let site: Awaited<ReturnType<typeof startSite>>;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site?.close());

  it('says when the counter’s workers leave the API without a seat, and a preset fixes it', async () => {
    const page = await site.newPage();
    const builder = await openBuilder(page, `${site.url}demos/counter/`);
    await builder.getByLabel('workers', { exact: true }).fill('33');
    await builder.getByLabel('connections', { exact: true }).fill('3');
    const seats = builder.locator('[data-seat-verdicts]');
    await expect.poll(() => seats.getAttribute('data-seat-verdicts')).toContain('api-without-seat');
    expect(await snippet(page)).toContain('workers=33&amp;connections=3');

    await builder.getByRole('button', { name: 'The article’s deployment' }).click();
    await expect
      .poll(() => seats.getAttribute('data-seat-verdicts'))
      .not.toContain('api-without-seat');
    expect(await builder.getByLabel('workers', { exact: true }).inputValue()).toBe('30');
    expect(await snippet(page)).toContain(`${site.url}embed/counter/?workers=30&amp;connections=3`);
    await page.close();
  });

  it('names a number out of range and keeps the last good one in the snippet', async () => {
    const page = await site.newPage();
    const builder = await openBuilder(page, `${site.url}demos/slots/`);
    const workers = builder.getByLabel('workers', { exact: true });
    await workers.fill('12');
    await expect.poll(() => snippet(page)).toContain('workers=12');
    await workers.fill('99');
    expect(await workers.getAttribute('aria-invalid')).toBe('true');
    expect(await builder.locator('.builder-error').innerText()).toContain('0–40');
    expect(await snippet(page)).toContain('workers=12');
    await page.close();
  });

  it('previews a scenario at the step and choice set, and follows the form', async () => {
    const page = await site.newPage();
    const builder = await openBuilder(page, `${site.url}demos/skip-locked/`);
    await builder.getByRole('button', { name: 'Plain FOR UPDATE' }).click();
    await builder.getByLabel('step', { exact: true }).fill('2');
    await builder.getByRole('button', { name: 'Show the live preview' }).click();
    const preview = page.frameLocator('iframe[title^="Preview"]');
    await preview.locator('[data-demo="skip-locked"][data-step="2"]').waitFor({ timeout: 120_000 });
    expect(await preview.getByRole('radio', { name: /no SKIP LOCKED/ }).isChecked()).toBe(true);
    // The preview's height follows the demo, as the snippet's script would set it.
    const height = await page
      .locator('iframe[title^="Preview"]')
      .evaluate((f) => parseInt(f.style.height));
    expect(height).toBeGreaterThan(600);

    await builder.getByLabel('step', { exact: true }).fill('1');
    await preview.locator('[data-demo="skip-locked"][data-step="1"]').waitFor({ timeout: 120_000 });
    expect(await snippet(page)).toContain('lock=wait&amp;step=1');
    await page.close();
  });
});
