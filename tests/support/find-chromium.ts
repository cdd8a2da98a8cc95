// Which Chromium or Chrome the browser tests, the benchmarks and the scripts drive, found
// the same way everywhere: CHROMIUM_PATH or CHROME_PATH first, then the places Linux and
// macOS installs put one, then (Linux x64 only) the Chromium inside the npm package
// @sparticuz/chromium, a dev dependency unpacked here on first use. Nothing is downloaded.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The variables read, in order; `packaged` as a value picks the packaged Chromium. */
export const browserVariables = ['CHROMIUM_PATH', 'CHROME_PATH'] as const;
type BrowserVariable = (typeof browserVariables)[number];

/** Where a browser was found, or why none was: a kind, turned into words by `noBrowserLine`. */
export type BrowserChoice =
  | { kind: 'variable'; variable: BrowserVariable; path: string }
  | { kind: 'installed'; path: string }
  | { kind: 'packaged' }
  | { kind: 'variable-missing'; variable: BrowserVariable; path: string }
  | { kind: 'none'; platform: string; arch: string };

/** What the choice depends on, passed in so a test can stand in for any machine. */
export interface Machine {
  env: Record<string, string | undefined>;
  platform: string;
  arch: string;
  home: string;
  exists(path: string): boolean;
}

/** The usual install places, in the order they are tried. */
export function installPlaces(platform: string, home: string): string[] {
  if (platform === 'darwin') {
    const apps = [
      'Google Chrome.app/Contents/MacOS/Google Chrome',
      'Chromium.app/Contents/MacOS/Chromium',
      'Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
    ];
    return ['/Applications', join(home, 'Applications')].flatMap((dir) =>
      apps.map((app) => join(dir, app)),
    );
  }
  if (platform === 'linux') {
    return [
      '/usr/bin/chromium', // Debian
      '/usr/bin/chromium-browser', // Ubuntu (a wrapper of the snap), Fedora
      '/usr/bin/google-chrome',
      '/usr/bin/google-chrome-stable',
      '/opt/google/chrome/chrome',
      '/snap/bin/chromium',
    ];
  }
  return [];
}

/** Picks the browser: a variable, else an install place, else the packaged one where it runs. */
export function chooseBrowser(machine: Machine): BrowserChoice {
  for (const variable of browserVariables) {
    const path = machine.env[variable];
    if (!path) continue;
    if (path === 'packaged') return packagedRuns(machine) ? { kind: 'packaged' } : none(machine);
    return machine.exists(path)
      ? { kind: 'variable', variable, path }
      : { kind: 'variable-missing', variable, path };
  }
  const installed = installPlaces(machine.platform, machine.home).find((p) => machine.exists(p));
  if (installed) return { kind: 'installed', path: installed };
  return packagedRuns(machine) ? { kind: 'packaged' } : none(machine);
}

/** Whether the packaged Chromium runs here: @sparticuz/chromium ships one build, Linux on x64. */
function packagedRuns(machine: Machine): boolean {
  return machine.platform === 'linux' && machine.arch === 'x64';
}

function none(machine: Machine): BrowserChoice {
  return { kind: 'none', platform: machine.platform, arch: machine.arch };
}

/** The one line that says how to get a browser, for a choice that found none. */
export function noBrowserLine(
  choice: Extract<BrowserChoice, { kind: 'none' | 'variable-missing' }>,
): string {
  if (choice.kind === 'variable-missing') {
    return `${choice.variable} is ${choice.path}, where there is no file: set it to a Chromium or Chrome executable, or unset it.`;
  }
  const install =
    choice.platform === 'darwin'
      ? 'install Google Chrome or Chromium in /Applications'
      : 'install Chromium or Google Chrome (on Debian or Ubuntu: apt-get install chromium)';
  return `No Chromium or Chrome found for the browser tests on ${choice.platform} ${choice.arch}: ${install}, or set CHROMIUM_PATH to one.`;
}

/** How to start the chosen browser: its executable, and what its environment adds. */
export interface BrowserLaunch {
  executablePath: string;
  env?: Record<string, string>;
  /** Where it came from, for a line in a report. */
  source: string;
}

/** Raised when there is no browser to start; its message is `noBrowserLine`'s one line. */
export class NoBrowserError extends Error {}

let found: BrowserLaunch | undefined;

/** This machine's browser (the packaged one unpacked if chosen); throws `NoBrowserError`. */
export function findChromium(): BrowserLaunch {
  if (found) return found;
  const choice = chooseBrowser({
    env: process.env,
    platform: process.platform,
    arch: process.arch,
    home: process.env.HOME ?? '',
    exists: existsSync,
  });
  switch (choice.kind) {
    case 'variable':
      found = { executablePath: choice.path, source: `${choice.variable}: ${choice.path}` };
      break;
    case 'installed':
      found = { executablePath: choice.path, source: choice.path };
      break;
    case 'packaged':
      found = unpackPackaged();
      break;
    default:
      throw new NoBrowserError(noBrowserLine(choice));
  }
  return found;
}

/**
 * Unpacks @sparticuz/chromium's browser, its NSS libraries and its font into
 * node_modules/.cache once per version, so it runs where no browser nor its libraries
 * were installed. The package unpacks into the temporary folder it is given; that folder
 * is moved into place whole, so a run that meets a half-unpacked copy cannot happen.
 */
function unpackPackaged(): BrowserLaunch {
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = require.resolve('@sparticuz/chromium');
  } catch {
    throw new NoBrowserError(
      'No Chromium found, and @sparticuz/chromium is not installed: run npm ci, or set CHROMIUM_PATH to a Chromium or Chrome executable.',
    );
  }
  const packageDir = join(dirname(entry), '..');
  const { version } = require(join(packageDir, 'package.json')) as { version: string };
  const cache = join(process.cwd(), 'node_modules', '.cache', 'seat-ledger-chromium');
  const home = join(cache, version);
  if (!existsSync(join(home, 'chromium'))) {
    mkdirSync(cache, { recursive: true });
    const staging = mkdtempSync(join(cache, 'unpacking-'));
    const script = `
      const { default: Chromium, inflate } = await import(${JSON.stringify(entry)});
      await Chromium.executablePath();
      await inflate(${JSON.stringify(join(packageDir, 'bin', 'al2023.tar.br'))});`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, TMPDIR: staging },
      encoding: 'utf8',
    });
    if (run.status !== 0) {
      rmSync(staging, { recursive: true, force: true });
      throw new Error(`unpacking @sparticuz/chromium failed: ${run.stderr.trim()}`);
    }
    // Its fonts.conf names /tmp/fonts; this one names where its font is unpacked, and
    // nothing of the system's, so that pages are drawn alike on every machine.
    writeFileSync(
      join(staging, 'fonts', 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(home, 'fonts', 'fonts')}</dir>\n  <cachedir>${join(home, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
    );
    try {
      renameSync(staging, home);
    } catch {
      // Another run moved its copy into place first: use that one.
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return {
    executablePath: join(home, 'chromium'),
    env: {
      LD_LIBRARY_PATH: [join(home, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH]
        .filter(Boolean)
        .join(':'),
      FONTCONFIG_PATH: join(home, 'fonts'),
    },
    source: `@sparticuz/chromium ${version} (packaged)`,
  };
}

/** For a command line: the browser found, or its one line on standard error and exit 1. */
export function findChromiumOrExit(): BrowserLaunch {
  try {
    return findChromium();
  } catch (error) {
    if (!(error instanceof NoBrowserError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
