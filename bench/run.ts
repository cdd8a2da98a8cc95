// `npm run bench`: builds the site and a bare page that starts PGlite the plain way, then
// measures both in one Chromium run and prints `name: value` lines. The machine is shared
// and noisy, so ratios measured side by side matter more than absolute times.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../tests/support/browser.ts';
import { findChromiumOrExit } from '../tests/support/find-chromium.ts';
import { serveStatic } from '../tests/support/static-server.ts';
import { benchChapters } from './chapters.ts';
import { benchCounterDemo } from './counter-demo.ts';
import { benchCounterFrame } from './counter-frame.ts';
import { benchCounterSim } from './counter-sim.ts';
import { bytesOf, fetchedBeforeFirstPaint } from './first-paint.ts';
import { benchScenarioSteps } from './scenario-steps.ts';
import { benchLongRun } from './long-run.ts';
import { benchSessionLayer } from './session-layer.ts';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const bin = (name: string) => join('node_modules', '.bin', name);

/**
 * The parts of the bench to run: all by default, or those `BENCH_ONLY` names, e.g.
 * `BENCH_ONLY=engine-start,repeat-visit,first-paint` (see `parts` below).
 */
const only = process.env.BENCH_ONLY?.split(',').map((p) => p.trim());
const parts = [
  'session-layer',
  'long-run',
  'counter-sim',
  'engine-start',
  'repeat-visit',
  'first-paint',
  'lab',
  'counter',
  'scenario-steps',
  'chapters',
  'conformance',
] as const;
const unknown = only?.filter((p) => !(parts as readonly string[]).includes(p)) ?? [];
if (unknown.length)
  throw new Error(`BENCH_ONLY: no part ${unknown.join(', ')} (${parts.join(', ')})`);
const part = (name: (typeof parts)[number]) => !only || only.includes(name);

function build(command: string, args: string[]): void {
  const { status } = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (status !== 0) throw new Error(`${command} ${args.join(' ')} failed`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Waits for a performance mark the page sets and returns its time. */
async function markTime(page: Page, name: string, timeout = 120_000): Promise<number> {
  await page.waitForFunction((n) => performance.getEntriesByName(n).length > 0, name, {
    timeout,
  });
  return page.evaluate((n) => performance.getEntriesByName(n)[0]!.startTime, name);
}

/** One start of the console's engine at /lab/, in ms from its demo coming into view. */
interface LabStart {
  /** To the console's first result. */
  total: number;
  /** To the end of each phase (client.ts, worker-engine.ts). */
  downloaded: number;
  compiled: number;
  booted: number;
  /** The boot inside the worker alone. */
  bootInWorker: number;
}

async function labEngineStart(page: Page, siteUrl: string): Promise<LabStart> {
  await page.goto(`${siteUrl}lab/`);
  const visible = await markTime(page, 'seat-ledger:demo-visible');
  const since = async (mark: string) => (await markTime(page, `seat-ledger:${mark}`)) - visible;
  return {
    total: await since('first-result'),
    downloaded: await since('downloaded'),
    compiled: await since('compiled'),
    booted: await since('booted'),
    bootInWorker: await page.evaluate(
      () =>
        (performance.getEntriesByName('seat-ledger:booted')[0] as PerformanceMark).detail
          .bootMs as number,
    ),
  };
}

/** `name: median  (runs: …)` lines for each phase of `starts`, named `prefix-<phase>-ms`. */
function phaseLines(prefix: string, starts: LabStart[]): void {
  for (const phase of ['downloaded', 'compiled', 'booted'] as const) {
    console.log(`${prefix}-${phase}-ms: ${median(starts.map((s) => s[phase])).toFixed(0)}`);
  }
}

async function freshPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  return context.newPage();
}

/** Resident memory of the renderer processes under `browserPid`, in MB (largest one). */
function rendererMemoryMb(browserPid: number): number {
  const children = new Map<number, number[]>();
  const info = new Map<number, { cmd: string; rssKb: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const ppid = Number(/PPid:\s+(\d+)/.exec(status)?.[1]);
      const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      info.set(Number(entry), { cmd, rssKb });
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const renderers: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (info.get(child)?.cmd.includes('--type=renderer')) renderers.push(info.get(child)!.rssKb);
      walk(child);
    }
  };
  walk(browserPid);
  return Math.max(0, ...renderers) / 1024;
}

const engineFile = /\.(wasm|data)$|pgdata\.tar\.gz(\?|$)|worker/;

/**
 * `engine-start-ratio`: our engine's start (the console's demo in view → its first result,
 * on a first visit) over plain PGlite's (page start → first result), alternating so that
 * drift hits both equally, with the phases of ours.
 */
async function benchEngineStart(
  browser: Browser,
  siteUrl: string,
  plainUrl: string,
): Promise<void> {
  const ours: LabStart[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    const a = await freshPage(browser);
    ours.push(await labEngineStart(a, siteUrl));
    await a.context().close();

    const b = await freshPage(browser);
    await b.goto(plainUrl);
    bare.push(await markTime(b, 'seat-ledger:first-result'));
    await b.context().close();
  }
  const totals = ours.map((s) => s.total);
  const oursMedian = median(totals);
  const bareMedian = median(bare);
  console.log(
    `engine-start-ms-ours: ${oursMedian.toFixed(0)}  (runs: ${totals.map((x) => x.toFixed(0)).join(', ')})`,
  );
  console.log(
    `engine-start-ms-plain: ${bareMedian.toFixed(0)}  (runs: ${bare.map((x) => x.toFixed(0)).join(', ')})`,
  );
  console.log(`engine-start-ratio: ${(oursMedian / bareMedian).toFixed(2)}`);
  phaseLines('engine-start', ours);
  console.log(`engine-boot-in-worker-ms: ${median(ours.map((s) => s.bootInWorker)).toFixed(0)}`);
}

/** A home connection's download rate, in bytes a second (40 Mbit/s), and its round trip. */
const homeNetwork = { downloadThroughput: 5_000_000, uploadThroughput: 1_250_000, latency: 20 };

/** Makes `page`'s own requests go at `homeNetwork`'s pace (those the service worker answers do not). */
async function throttle(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, ...homeNetwork });
}

/**
 * `repeat-visit-engine-start-ms`: the console's engine start on a second visit in the same
 * profile, once the service worker has kept the engine (src/offline/), beside the first
 * visit in the same runs: over loopback (where a download costs next to nothing, as in
 * `engine-start-ratio`), and with the page's requests at a home connection's pace
 * (`homeNetwork`), where what the cache saves shows.
 */
async function benchRepeatVisit(browser: Browser, siteUrl: string): Promise<void> {
  for (const network of ['loopback', 'home'] as const) {
    const first: LabStart[] = [];
    const repeat: LabStart[] = [];
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const visit = await context.newPage();
      if (network === 'home') await throttle(visit);
      first.push(await labEngineStart(visit, siteUrl));
      await visit.locator('html[data-offline="engine"]').waitFor({ timeout: 120_000 });
      await visit.close();
      const again = await context.newPage();
      if (network === 'home') await throttle(again);
      repeat.push(await labEngineStart(again, siteUrl));
      await context.close();
    }
    const [f, r] = [first, repeat].map((starts) => median(starts.map((s) => s.total))) as [
      number,
      number,
    ];
    const list = (starts: LabStart[]) => starts.map((s) => s.total.toFixed(0)).join(', ');
    const suffix = network === 'home' ? '-at-40-mbps' : '';
    console.log(
      `repeat-visit-engine-start-ms${suffix}: ${r.toFixed(0)}  (first visit ${f.toFixed(0)}; runs: ${list(repeat)}; first: ${list(first)})`,
    );
    console.log(`repeat-visit-ratio${suffix}: ${(r / f).toFixed(2)}`);
    phaseLines(`repeat-visit${suffix}`, repeat);
  }
}

async function main(): Promise<void> {
  findChromiumOrExit();
  build(bin('node'), ['scripts/build-datadir.ts']);
  build(bin('astro'), ['build']);
  if (part('session-layer')) await benchSessionLayer();
  if (part('long-run')) await benchLongRun();
  if (part('counter-sim')) await benchCounterSim();
  build(bin('vite'), ['build', '--config', 'bench/plain/vite.config.ts']);
  const site = await serveStatic(join(process.cwd(), 'dist'));
  const plain = await serveStatic(join(process.cwd(), 'bench/.out/plain'));
  const chrome = await chromium.launchServer(chromiumLaunchOptions());
  const browser = await chromium.connect(chrome.wsEndpoint());
  try {
    // (a) demo visible → first query result, alternating so drift hits both equally.
    if (part('engine-start')) await benchEngineStart(browser, site.url, plain.url);

    // (a') a repeat visit: the same browser profile, with the service worker's caches.
    if (part('repeat-visit')) await benchRepeatVisit(browser, site.url);

    // (b) bytes before first paint of `/` (measured as the chapters' are).
    if (part('first-paint')) {
      const home = await freshPage(browser);
      const fetched = await fetchedBeforeFirstPaint(home, site.url);
      console.log(`engine-bytes-before-first-paint: ${bytesOf(fetched, engineFile)}`);
      console.log(`home-bytes-before-first-paint: ${bytesOf(fetched)}  (goal: at most 60000)`);
      await home.context().close();
    }

    // (c) bytes before the engine is ready on /lab/, and renderer memory with the console
    // open and ready.
    if (part('lab')) {
      const lab = await freshPage(browser);
      await lab.goto(`${site.url}lab/`);
      const ready = await markTime(lab, 'seat-ledger:first-result');
      const labBytes = await lab.evaluate((until) => {
        let total = 0;
        for (const r of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) {
          if (r.startTime <= until) total += r.encodedBodySize;
        }
        return total;
      }, ready);
      console.log(`bytes-before-engine-ready: ${labBytes}`);
      const pid = chrome.process().pid;
      if (pid) console.log(`renderer-memory-mb: ${rendererMemoryMb(pid).toFixed(0)}`);
      else console.log('renderer-memory-mb: unavailable (no browser process handle)');
      await lab.context().close();
    }

    // (d) the counter demo as a reader sees it, then its picture under a synthetic churn
    // (sessions coming, going and changing state on every frame).
    if (part('counter')) {
      await benchCounterDemo(browser, site.url);
      await benchCounterFrame(browser);
    }

    // (e) the scenario demos, step by step, beside the console.
    if (part('scenario-steps')) await benchScenarioSteps(browser, site.url);

    // (f) the chapters: bytes before first paint, engines one chapter starts.
    if (part('chapters')) await benchChapters(browser, site.url);
  } finally {
    await browser.close();
    await chrome.close();
    await site.close();
    await plain.close();
  }
}

/**
 * `conformance-seconds`: the wall time of `npm run conformance` (60 specs on both
 * engines). It takes minutes, so BENCH_CONFORMANCE=0 leaves it out.
 */
function benchConformance(): void {
  if (process.env.BENCH_CONFORMANCE === '0' || !part('conformance')) {
    console.log('conformance-seconds: skipped (BENCH_CONFORMANCE=0 or BENCH_ONLY)');
    return;
  }
  const started = performance.now();
  const { status } = spawnSync(bin('node'), ['scripts/conformance.ts'], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `conformance-seconds: ${seconds.toFixed(0)}${status === 0 ? '' : `  (it exited ${status}: run npm run conformance for the table)`}`,
  );
}

await main();
benchConformance();
