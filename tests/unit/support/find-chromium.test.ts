import { describe, expect, it } from 'vitest';
import {
  chooseBrowser,
  installPlaces,
  noBrowserLine,
  type Machine,
} from '../../support/find-chromium';

/** A machine where only `files` exist. */
function machine(over: Partial<Machine> & { files?: string[] } = {}): Machine {
  const files = new Set(over.files ?? []);
  return {
    env: {},
    platform: 'linux',
    arch: 'x64',
    home: '/home/reader',
    exists: (path) => files.has(path),
    ...over,
  };
}

const mac = {
  chrome: '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  chromium: '/Applications/Chromium.app/Contents/MacOS/Chromium',
};

describe('chooseBrowser', () => {
  it('takes CHROMIUM_PATH first, even when a browser is installed', () => {
    const choice = chooseBrowser(
      machine({
        env: { CHROMIUM_PATH: '/opt/mine/chrome', CHROME_PATH: '/opt/other/chrome' },
        files: ['/opt/mine/chrome', '/opt/other/chrome', '/usr/bin/chromium'],
      }),
    );
    expect(choice).toEqual({
      kind: 'variable',
      variable: 'CHROMIUM_PATH',
      path: '/opt/mine/chrome',
    });
  });

  it('takes CHROME_PATH when CHROMIUM_PATH is not set', () => {
    const choice = chooseBrowser(
      machine({ env: { CHROME_PATH: '/opt/other/chrome' }, files: ['/opt/other/chrome'] }),
    );
    expect(choice).toMatchObject({ kind: 'variable', variable: 'CHROME_PATH' });
  });

  it('names a variable that points at nothing rather than quietly using another browser', () => {
    const choice = chooseBrowser(
      machine({ env: { CHROMIUM_PATH: '/nowhere/chrome' }, files: ['/usr/bin/chromium'] }),
    );
    expect(choice).toEqual({
      kind: 'variable-missing',
      variable: 'CHROMIUM_PATH',
      path: '/nowhere/chrome',
    });
  });

  it('picks the packaged Chromium when a variable says `packaged`, where it runs', () => {
    const choice = chooseBrowser(
      machine({ env: { CHROMIUM_PATH: 'packaged' }, files: ['/usr/bin/chromium'] }),
    );
    expect(choice).toEqual({ kind: 'packaged' });
    const onMac = machine({
      env: { CHROMIUM_PATH: 'packaged' },
      platform: 'darwin',
      arch: 'arm64',
    });
    expect(chooseBrowser(onMac)).toMatchObject({ kind: 'none', platform: 'darwin' });
  });

  it('then tries the install places on Linux in order', () => {
    const places = installPlaces('linux', '/home/reader');
    expect(places[0]).toBe('/usr/bin/chromium');
    expect(places).toContain('/usr/bin/google-chrome');
    expect(places).toContain('/snap/bin/chromium');
    const choice = chooseBrowser(
      machine({ files: ['/usr/bin/google-chrome', '/snap/bin/chromium'] }),
    );
    expect(choice).toEqual({ kind: 'installed', path: '/usr/bin/google-chrome' });
  });

  it('finds Chrome, then Chromium, in /Applications and then ~/Applications on macOS', () => {
    const darwin = { platform: 'darwin', arch: 'arm64' };
    expect(chooseBrowser(machine({ ...darwin, files: [mac.chromium, mac.chrome] }))).toEqual({
      kind: 'installed',
      path: mac.chrome,
    });
    const own = `/Users/reader/Applications/Chromium.app/Contents/MacOS/Chromium`;
    expect(chooseBrowser(machine({ ...darwin, home: '/Users/reader', files: [own] }))).toEqual({
      kind: 'installed',
      path: own,
    });
  });

  it('falls back to the packaged Chromium on Linux x64 only when nothing is installed', () => {
    expect(chooseBrowser(machine())).toEqual({ kind: 'packaged' });
    expect(chooseBrowser(machine({ files: ['/usr/bin/chromium'] }))).toMatchObject({
      kind: 'installed',
    });
  });

  it('finds none where the package has no build, and says how to get one in one line', () => {
    for (const where of [
      { platform: 'linux', arch: 'arm64' },
      { platform: 'darwin', arch: 'arm64' },
      { platform: 'win32', arch: 'x64' },
    ]) {
      const choice = chooseBrowser(machine(where));
      expect(choice).toEqual({ kind: 'none', ...where });
      if (choice.kind !== 'none') continue;
      const line = noBrowserLine(choice);
      expect(line).not.toContain('\n');
      expect(line).toContain('CHROMIUM_PATH');
    }
  });
});
