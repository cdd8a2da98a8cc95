// Your own scenario in Chromium: written in the lab, its problems named by line, checked
// in the browser (a step PGlite cannot show is named with its refusal's kind), carried
// through the URL into an embed that plays it to the end and posts the player's messages;
// and a changed, oversized or invalid link says so and fetches nothing of the engine.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeScenarioLink } from '../../src/components/scenario-link';
import { embedOnCoursePage, messageArrives, messagesOf } from './course-page';
import { playToEnd } from './player-driver';
import { goesOnSource } from '../support/custom-scenarios';
import { startSite } from './site';

const template = readFileSync(
  path.join(import.meta.dirname, '../../src/components/scenario-lab/template.yaml'),
  'utf8',
);

const engineFile = /\.wasm$|\.data$|pgdata\.tar\.gz(\?|$)/;

/** Replaces the lab editor's text with `text`, as typing would. */
async function setSource(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Scenario (YAML)' }).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** Opens `url` and records every engine file it asks for. */
async function engineRequestsOf(page: Page, url: string): Promise<string[]> {
  const requests: string[] = [];
  page.on('request', (r) => {
    if (engineFile.test(r.url())) requests.push(r.url());
  });
  await page.goto(url, { waitUntil: 'load' });
  return requests;
}

describe('your own scenario', () => {
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site?.close());

  it('goes from the lab through its link into an embed that plays it to the end', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}lab/scenario/`);
    const title = 'Alice and Bob, one row, from a link';
    await setSource(page, template.replace('title: Two sessions, one row', `title: ${title}`));
    await page
      .getByRole('region', { name: 'Problems' })
      .getByText(`“${title}” has 3 sessions`)
      .waitFor();
    const playLink = page.getByLabel('Link that plays it (and embeds it)');
    await playLink.waitFor();
    const url = await playLink.inputValue();
    expect(url).toMatch(/\/embed\/scenario\/#s=1\.[A-Za-z0-9_-]+$/);

    // A course page on its own, with the link in an iframe.
    const frame = await embedOnCoursePage(page, url);
    await frame.getByRole('heading', { name: title }).waitFor({ timeout: 120_000 });
    await frame
      .locator('[data-demo="scenario"][data-engine="ready"][data-busy="no"]')
      .waitFor({ timeout: 120_000 });
    const next = frame.getByRole('button', { name: 'Next', exact: true });
    const steps = await playToEnd(frame as unknown as Page, 'scenario', () => next.click());
    expect(steps).toBe(5);
    await messageArrives(page, 'seat-ledger:solved', 'scenario');
    const messages = await messagesOf(page);
    expect(messages).toContainEqual({ type: 'seat-ledger:step', demo: 'scenario', step: 5, of: 5 });
    expect(messages.some((m) => m.type === 'seat-ledger:resize' && m.demo === 'scenario')).toBe(
      true,
    );
    expect(messages.some((m) => m.type === 'seat-ledger:ready' && m.demo === 'scenario')).toBe(
      true,
    );
    await page.close();
  });

  it('opens a link in the lab with its text in the editor', async () => {
    const encoded = await encodeScenarioLink(template.replace('Two sessions, one row', 'Opened'));
    if (!encoded.ok) throw new Error('no link');
    const page = await site.newPage();
    await page.goto(`${site.url}lab/scenario/#${encoded.fragment}`);
    await page.getByText('Opened from the link.').waitFor();
    await page
      .getByRole('region', { name: 'Problems' })
      .getByText('“Opened” has 3 sessions')
      .waitFor();
    await page.close();
  });

  it('names each problem with its line, and takes the cursor there', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}lab/scenario/`);
    await setSource(page, template.replace('  - session: bob\n', '  - session: bobby\n'));
    const problems = page.getByRole('region', { name: 'Problems' });
    const line = template.split('\n').findIndex((l) => l === '  - session: bob') + 1;
    await problems.getByText('step 2, session: no session is named bobby').waitFor();
    await problems.getByRole('button', { name: `Line ${line}` }).click();
    const cursorLine = await page.evaluate(() => {
      const active = document.querySelector('.lab-editor .cm-activeLine');
      const lines = [...document.querySelectorAll('.lab-editor .cm-line')];
      return lines.indexOf(active!) + 1;
    });
    expect(cursorLine).toBe(line);
    expect(await page.getByLabel('Link that plays it (and embeds it)').count()).toBe(0);
    await page.close();
  });

  it('says before sharing which step the browser cannot show, and why', async () => {
    const page = await site.newPage();
    await page.goto(`${site.url}lab/scenario/`);
    await setSource(page, goesOnSource);
    await page.getByRole('button', { name: 'Check every step in the browser' }).click();
    await page
      .locator('[data-demo="scenario-check"][data-checked="yes"]')
      .waitFor({ timeout: 120_000 });
    const found = page.getByRole('region', { name: 'What the check found' });
    await expect
      .poll(() => found.innerText())
      .toMatch(
        /alice-reads=yes: step 3 \(alice\) cannot be shown truthfully in the browser: .+\(parked-goes-on\)/,
      );
    await page.getByText('some runs need a look').waitFor();
    await page.close();
  });

  it.each([
    [
      'a changed link',
      'damaged',
      async (f: string) => f.slice(0, 60) + (f[60] === 'A' ? 'B' : 'A') + f.slice(61),
    ],
    ['a link cut short', 'damaged', async (f: string) => f.slice(0, f.length - 20)],
    ['an oversized link', 'too-long', async () => `s=1.${'A'.repeat(9000)}`],
    ['a link of another version', 'version', async (f: string) => f.replace('s=1.', 's=7.')],
    [
      'a link whose scenario is invalid',
      'invalid',
      async () => {
        const encoded = await encodeScenarioLink(template.replace(/^title:.*\n/m, ''));
        if (!encoded.ok) throw new Error('no link');
        return encoded.fragment;
      },
    ],
  ])('explains %s in words and fetches nothing of the engine', async (_what, kind, make) => {
    const encoded = await encodeScenarioLink(template);
    if (!encoded.ok) throw new Error('no link');
    const page = await site.newPage();
    const requests = await engineRequestsOf(
      page,
      `${site.url}embed/scenario/#${await make(encoded.fragment)}`,
    );
    const root = page.locator(`[data-demo="scenario"][data-link="${kind}"]`);
    await root.waitFor({ timeout: 30_000 });
    const alert = await page.getByRole('alert').innerText();
    expect(alert).toContain('This scenario cannot be played.');
    expect(alert).toContain('Nothing was started.');
    if (kind === 'invalid') expect(alert).toContain('title: is missing');
    await page.waitForTimeout(1500);
    expect(requests).toEqual([]);
    expect(await root.getAttribute('data-engine')).toBe('idle');
    await page.close();
  });
});
