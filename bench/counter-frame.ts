// Counter picture figures, measured in Chromium: src/viz bundled by esbuild into a bare
// page, then a busy scene (40 workers × 3 connections, 4 API processes × 15 and three
// more sessions, for 100 seats of which 3 reserved) that changes on every animation
// frame for five seconds: per frame one session leaves and one asks for a seat (and is
// seated or refused at the door), six sessions move on a state (XIDs appear, pages
// close), ages grow, dead tuples pile up, VACUUM runs now and then. Prints the p95 gap
// between animation frames (smooth is 16.7 ms), the p95 cost of `drawCounter` alone,
// and the renderer's main-thread CPU time per frame, which other load on a shared
// machine inflates far less than the gaps; at 1280 px and at a 360 px phone width.
// Run alone with `node bench/counter-frame.ts [--churn N] [--changes N]`.
import { build } from 'esbuild';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { chromiumLaunchOptions } from '../tests/support/browser.ts';
import { serveStatic } from '../tests/support/static-server.ts';
import { frameGapP95 } from './counter-demo.ts';
import type { CounterPicture, SeatedSession } from '../src/viz/counter-picture.ts';
import type { drawCounter } from '../src/viz/counter.ts';

interface SceneParams {
  seconds: number;
  width: number;
  reducedMotion: boolean;
  /** Sessions that leave, and sessions that try to take a seat, per frame. */
  churn: number;
  /** Seated sessions whose state moves on (idle → active → idle in transaction → …) per frame. */
  changes: number;
}

/**
 * Runs in the page: animates the scene with requestAnimationFrame and returns the gaps
 * between frames and the time each draw took, in ms. Self-contained, since Playwright
 * sends it as source text; its randomness is seeded so every run draws the same scene.
 */
async function runScene({ seconds, width, reducedMotion, churn, changes }: SceneParams) {
  const draw = (window as unknown as { counterViz: { drawCounter: typeof drawCounter } }).counterViz
    .drawCounter;
  const svg = document.getElementById('picture') as unknown as SVGSVGElement;
  let seed = 42;
  const random = () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(random() * xs.length)];

  interface Client {
    name: string;
    role: SeatedSession['role'];
    superuser: boolean;
    pid: number | null;
    state: SeatedSession['state'];
    xid: string | null;
    xactStart: number | null;
    waiting: string | null;
    emulated: boolean;
  }
  const clients: Client[] = [];
  const client = (name: string, role: Client['role'], superuser = false) =>
    clients.push({
      name,
      role,
      superuser,
      pid: null,
      state: 'idle',
      xid: null,
      xactStart: null,
      waiting: null,
      emulated: false,
    });
  for (let w = 1; w <= 40; w++) for (let c = 1; c <= 3; c++) client(`worker-${w}/${c}`, 'worker');
  for (let p = 1; p <= 4; p++) for (let c = 1; c <= 15; c++) client(`api-${p}/${c}`, 'api');
  client('sweeper', 'sweeper');
  client('psql', 'you', true);
  client('vacuum', 'clerk', true);

  const maxConnections = 100;
  const reserved = 3;
  let nextPid = 4000;
  let nextXid = 750;
  let door: CounterPicture['door'] = [];
  let deadTuples = 0;
  let lastVacuum: CounterPicture['clerk']['lastVacuum'] = null;
  const jobs = { queued: 5000, running: 0, done: 0 };

  const connected = () => clients.filter((c) => c.pid !== null);
  const connect = (c: Client) => {
    const used = connected().length;
    const free = maxConnections - used;
    door = door.filter((d) => d.name !== c.name);
    if (free <= 0 || (!c.superuser && free <= reserved)) {
      door.push({
        name: c.name,
        role: c.role,
        message:
          free <= 0
            ? 'sorry, too many clients already'
            : 'remaining connection slots are reserved for roles with the SUPERUSER attribute',
      });
      return;
    }
    c.pid = nextPid++;
    c.state = 'idle';
  };
  const disconnect = (c: Client) => {
    Object.assign(c, { pid: null, xid: null, xactStart: null, waiting: null, state: 'idle' });
  };
  for (const c of clients) connect(c);

  const step = (now: number) => {
    for (let i = 0; i < churn; i++) {
      const c = pick(connected().filter((x) => !x.superuser));
      if (c) disconnect(c);
    }
    for (let i = 0; i < churn; i++) {
      const c = pick(clients.filter((x) => x.pid === null));
      if (c) connect(c);
    }
    for (let i = 0; i < changes; i++) {
      const c = pick(connected());
      if (!c) continue;
      const r = random();
      if (c.state === 'idle') {
        c.state = 'active';
        c.xactStart = now;
        if (r < 0.7) c.xid = String(nextXid++);
        c.emulated = c.xid !== null && r < 0.1;
      } else if (c.state === 'active') {
        c.state = r < 0.5 ? 'idle in transaction' : 'idle';
        if (c.state === 'idle') Object.assign(c, { xid: null, xactStart: null, emulated: false });
        c.waiting = r > 0.9 ? 'Lock: transactionid' : null;
      } else if (c.state === 'idle in transaction') {
        if (r < 0.05) c.state = 'idle in transaction (aborted)';
        else if (r < 0.6) {
          Object.assign(c, { state: 'idle', xid: null, xactStart: null, waiting: null });
          deadTuples += 1 + Math.floor(random() * 20);
          jobs.running = Math.max(0, jobs.running - 1);
          jobs.done++;
        }
      } else {
        Object.assign(c, { state: 'idle', xid: null, xactStart: null });
      }
      if (c.state === 'active' && jobs.queued > 0 && r < 0.3) {
        jobs.queued--;
        jobs.running++;
      }
    }
    if (random() < 0.01) {
      const holders = connected().filter((c) => c.xid !== null);
      const kept = Math.floor(deadTuples * (holders.length > 0 ? 0.8 : 0));
      lastVacuum = {
        table: 'jobs',
        removed: deadTuples - kept,
        notYetRemovable: kept,
        cutoff: holders.length > 0 ? String(Math.min(...holders.map((c) => Number(c.xid)))) : null,
      };
      deadTuples = kept;
    }
  };

  const picture = (now: number): CounterPicture => {
    const seats: SeatedSession[] = connected().map((c) => ({
      pid: c.pid!,
      name: c.name,
      role: c.role,
      superuser: c.superuser,
      state: c.state,
      xid: c.xid,
      xactAgeMs: c.xactStart === null ? null : now - c.xactStart,
      waiting: c.waiting,
      blockedByPid: null,
      emulated: c.emulated,
    }));
    const oldest = seats
      .filter((s) => s.xid !== null)
      .sort((a, b) => Number(a.xid) - Number(b.xid))[0];
    return {
      maxConnections,
      superuserReserved: reserved,
      seats,
      door: [...door],
      clerk: {
        deadTuples,
        horizonXid: oldest?.xid ?? null,
        horizonPid: oldest?.pid ?? null,
        lastVacuum,
      },
      jobs: { ...jobs },
    };
  };

  const frames: number[] = [];
  const draws: number[] = [];
  draw(svg, picture(performance.now()), { width, reducedMotion });
  await new Promise<void>((resolve) => {
    const start = performance.now();
    let last = start;
    const tick = (now: number) => {
      frames.push(now - last);
      last = now;
      step(now);
      const before = performance.now();
      draw(svg, picture(now), { width, reducedMotion });
      draws.push(performance.now() - before);
      if (now - start < seconds * 1000) requestAnimationFrame(tick);
      else resolve();
    };
    requestAnimationFrame(tick);
  });
  // The first gap includes the first draw's layout of a new page; it is not a frame.
  return { frames: frames.slice(1), draws, nodes: svg.getElementsByTagName('*').length };
}

const root = fileURLToPath(new URL('..', import.meta.url));

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] ?? NaN;

/** Builds the page into a temporary folder: the bundled picture, its CSS, one svg. */
async function buildPage(dir: string): Promise<void> {
  const bundle = await build({
    stdin: {
      contents: "export { drawCounter } from './src/viz/counter.ts';",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    globalName: 'counterViz',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
  });
  await writeFile(join(dir, 'counter.js'), bundle.outputFiles[0]!.contents);
  await writeFile(join(dir, 'counter.css'), await readFile(join(root, 'src/viz/counter.css')));
  await writeFile(
    join(dir, 'index.html'),
    '<!doctype html><html lang="en"><meta charset="utf-8"><title>counter frame bench</title>' +
      '<link rel="stylesheet" href="counter.css"><body style="margin:0">' +
      '<svg id="picture"></svg><script src="counter.js"></script></body></html>',
  );
}

/**
 * Prints `counter-churn-frame-p95-ms` (gaps between animation frames) and its ratio to a blank
 * page's, `counter-churn-frame-over-blank`, `counter-churn-draw-p95-ms`
 * (drawCounter alone), `counter-churn-frame-cpu-ms` (renderer main-thread CPU time per frame),
 * each also at a 360 px phone width with the suffix `-phone`.
 */
export async function benchCounterFrame(
  browser: Browser,
  { seconds = 5, churn = 1, changes = 6 } = {},
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'seat-ledger-counter-'));
  await buildPage(dir).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  const server = await serveStatic(dir);
  try {
    for (const [suffix, width, height] of [
      ['', 1280, 800],
      ['-phone', 360, 740],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      // The machine's own frame rhythm, in the same browser, just before the scene.
      await page.setContent('<p>blank</p>');
      const blank = await frameGapP95(page, seconds * 1000);
      await page.goto(server.url);
      // CPU time, unlike the gaps between frames, hardly grows when other processes
      // share the machine: it says how much of a 16.7 ms frame the picture itself uses.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');
      const cpu = async () => {
        const { metrics } = await cdp.send('Performance.getMetrics');
        const get = (name: string) => metrics.find((m) => m.name === name)?.value ?? NaN;
        return { main: get('ThreadTime'), renderer: get('ProcessTime') };
      };
      const before = await cpu();
      const { frames, draws, nodes } = await page.evaluate(runScene, {
        seconds,
        width,
        reducedMotion: false,
        churn,
        changes,
      });
      const after = await cpu();
      await context.close();
      const perFrame = (s: number) => ((s * 1000) / (frames.length + 1)).toFixed(1);
      console.log(
        `counter-churn-frame-p95-ms${suffix}: ${p95(frames).toFixed(1)}  (per frame ${churn} leave, ${churn} ask, ${changes} change state; frames: ${frames.length}, max ${Math.max(...frames).toFixed(1)}, svg nodes: ${nodes})`,
      );
      console.log(
        `counter-churn-frame-over-blank${suffix}: ${(p95(frames) / blank.p95).toFixed(2)}  (blank page p95 ${blank.p95.toFixed(1)} ms)`,
      );
      console.log(`counter-churn-draw-p95-ms${suffix}: ${p95(draws).toFixed(2)}`);
      console.log(
        `counter-churn-frame-cpu-ms${suffix}: ${perFrame(after.main - before.main)}  (renderer process, all threads: ${perFrame(after.renderer - before.renderer)})`,
      );
    }
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { churn: { type: 'string' }, changes: { type: 'string' } },
  });
  const browser = await chromium.launch(chromiumLaunchOptions());
  try {
    await benchCounterFrame(browser, {
      churn: values.churn === undefined ? undefined : Number(values.churn),
      changes: values.changes === undefined ? undefined : Number(values.changes),
    });
  } finally {
    await browser.close();
  }
}
