// Chromium or Chrome driven by playwright-core, found by find-chromium.ts: never a
// browser downloaded by Playwright.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type LaunchOptions } from 'playwright-core';
import { findChromium } from './find-chromium.ts';

/** How every test and benchmark starts Chromium: nothing it does reaches out by itself. */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launch options for playwright-core: the browser found, its environment, the arguments. */
export function chromiumLaunchOptions(): Required<Pick<LaunchOptions, 'executablePath' | 'args'>> &
  Pick<LaunchOptions, 'env'> {
  const { executablePath, env } = findChromium();
  return {
    executablePath,
    args: chromiumArgs,
    ...(env ? { env: { ...process.env, ...env } } : {}),
  };
}

/** Starts headless Chromium with a new empty profile; `close` removes the profile. */
export async function launchChromium(): Promise<{
  context: BrowserContext;
  close(): Promise<void>;
}> {
  const options = chromiumLaunchOptions();
  const profile = await mkdtemp(join(tmpdir(), 'seat-ledger-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { ...options, headless: true });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
