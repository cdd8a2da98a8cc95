import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { offlineManifest } from '../../../src/offline/manifest';

/** A build directory holding `files` (path → content). */
async function build(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'seat-ledger-dist-'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

const files = {
  'index.html': 'home',
  '404.html': 'not found',
  'chapters/a-job-is-a-row/index.html': 'chapter',
  '_astro/Console.abc.js': 'js',
  '_astro/site.def.css': 'css',
  '_astro/pglite.BsEBqptA.wasm': 'wasm',
  '_astro/pglite.CzS4JRNM.data': 'data',
  '_astro/initdb.CYQaaMmK.wasm': 'initdb',
  'engine/pgdata.tar.gz': 'tar',
  'engine/pgdata.version': '0.5.17',
  'oembed/counter.json': '{}',
  'oembed/counter.png': 'png',
  'sw.js': 'an older worker',
  _headers: "/*\n  Content-Security-Policy: default-src 'self'\n",
};

describe('offlineManifest', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('keeps pages and their assets on install, and the engine’s three files apart', async () => {
    const dir = await build(files);
    dirs.push(dir);
    const manifest = offlineManifest(dir, '/seat-ledger/');
    expect(manifest.site).toEqual([
      '/seat-ledger/404.html',
      '/seat-ledger/_astro/Console.abc.js',
      '/seat-ledger/_astro/site.def.css',
      '/seat-ledger/chapters/a-job-is-a-row/',
      '/seat-ledger/',
    ]);
    expect(manifest.engine).toEqual([
      '/seat-ledger/_astro/pglite.BsEBqptA.wasm',
      '/seat-ledger/_astro/pglite.CzS4JRNM.data',
      expect.stringMatching(/^\/seat-ledger\/engine\/pgdata\.tar\.gz\?v=[0-9a-f]{12}$/),
    ]);
  });

  it('changes the site’s version with any page, and the engine’s only with its files', async () => {
    const a = await build(files);
    const b = await build({ ...files, 'index.html': 'home, reworded' });
    const c = await build({ ...files, 'engine/pgdata.tar.gz': 'another tar' });
    dirs.push(a, b, c);
    const [ma, mb, mc] = [a, b, c].map((dir) => offlineManifest(dir, '/'));
    expect(mb!.siteVersion).not.toBe(ma!.siteVersion);
    expect(mb!.engineVersion).toBe(ma!.engineVersion);
    expect(mc!.engineVersion).not.toBe(ma!.engineVersion);
    expect(mc!.engine[2]).not.toBe(ma!.engine[2]);
    expect(mc!.siteVersion).toBe(ma!.siteVersion);
  });
});
