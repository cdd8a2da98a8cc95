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
import { benchScenarioSteps } from './scenario-steps.ts';
import { benchSessionLayer } from './session-layer.ts';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const bin = (name: string) => join('node_modules', '.bin', name);

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

const engineFile = /\.(wasm|data)$|pgdata\.tar\.gz$|worker/;

async function main(): Promise<void> {
  findChromiumOrExit();
  build(bin('node'), ['scripts/build-datadir.ts']);
  build(bin('astro'), ['build']);
  await benchSessionLayer();
  await benchCounterSim();
  build(bin('vite'), ['build', '--config', 'bench/plain/vite.config.ts']);
  const site = await serveStatic(join(process.cwd(), 'dist'));
  const plain = await serveStatic(join(process.cwd(), 'bench/.out/plain'));
  const chrome = await chromium.launchServer(chromiumLaunchOptions());
  const browser = await chromium.connect(chrome.wsEndpoint());
  try {
    // (a) demo visible → first query result, alternating so drift hits both equally.
    const ours: number[] = [];
    const bare: number[] = [];
    const phases: Record<string, number[]> = { downloaded: [], compiled: [], booted: [] };
    const bootInWorker: number[] = [];
    for (let i = 0; i < runs; i++) {
      const a = await freshPage(browser);
      await a.goto(`${site.url}lab/`);
      const visible = await markTime(a, 'seat-ledger:demo-visible');
      ours.push((await markTime(a, 'seat-ledger:first-result')) - visible);
      for (const [phase, times] of Object.entries(phases)) {
        times.push((await markTime(a, `seat-ledger:${phase}`)) - visible);
      }
      bootInWorker.push(
        await a.evaluate(
          () =>
            (performance.getEntriesByName('seat-ledger:booted')[0] as PerformanceMark).detail
              .bootMs as number,
        ),
      );
      await a.context().close();

      const b = await freshPage(browser);
      await b.goto(plain.url);
      bare.push(await markTime(b, 'seat-ledger:first-result'));
      await b.context().close();
    }
    const oursMedian = median(ours);
    const bareMedian = median(bare);
    console.log(
      `engine-start-ms-ours: ${oursMedian.toFixed(0)}  (runs: ${ours.map((x) => x.toFixed(0)).join(', ')})`,
    );
    console.log(
      `engine-start-ms-plain: ${bareMedian.toFixed(0)}  (runs: ${bare.map((x) => x.toFixed(0)).join(', ')})`,
    );
    console.log(`engine-start-ratio: ${(oursMedian / bareMedian).toFixed(2)}`);
    for (const [phase, times] of Object.entries(phases)) {
      console.log(`engine-start-${phase}-ms: ${median(times).toFixed(0)}`);
    }
    console.log(`engine-boot-in-worker-ms: ${median(bootInWorker).toFixed(0)}`);

    // (b) bytes before first paint of `/`, and before the engine is ready on /lab/.
    const home = await freshPage(browser);
    await home.goto(site.url, { waitUntil: 'load' });
    await home.waitForTimeout(1500);
    const homeBytes = await home.evaluate((pattern) => {
      const paint =
        performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Infinity;
      const re = new RegExp(pattern);
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceResourceTiming;
      let total = nav.encodedBodySize;
      let engine = 0;
      for (const r of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) {
        if (r.startTime >= paint) continue;
        total += r.encodedBodySize;
        if (re.test(r.name)) engine += r.encodedBodySize;
      }
      return { total, engine, paint };
    }, engineFile.source);
    console.log(`engine-bytes-before-first-paint: ${homeBytes.engine}`);
    console.log(`home-bytes-before-first-paint: ${homeBytes.total}`);
    await home.context().close();

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

    // (c) renderer memory with the console open and ready.
    const pid = chrome.process().pid;
    if (pid) console.log(`renderer-memory-mb: ${rendererMemoryMb(pid).toFixed(0)}`);
    else console.log('renderer-memory-mb: unavailable (no browser process handle)');
    await lab.context().close();

    // (d) the counter demo as a reader sees it, then its picture under a synthetic churn
    // (sessions coming, going and changing state on every frame).
    await benchCounterDemo(browser, site.url);
    await benchCounterFrame(browser);

    // (e) the scenario demos, step by step, beside the console.
    await benchScenarioSteps(browser, site.url);

    // (f) the chapters: bytes before first paint, engines one chapter starts.
    await benchChapters(browser, site.url);
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
  if (process.env.BENCH_CONFORMANCE === '0') {
    console.log('conformance-seconds: skipped (BENCH_CONFORMANCE=0)');
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
