// The list sw.js is built with: every file of a finished build (dist/), sorted into what is
// kept when the service worker installs (pages and what they load) and what is kept once a
// demo has run (the engine's files), with a hash of each part that names its cache. Node only.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { OfflineManifest } from './plan.ts';

/** PGlite's WASM and file bundle (hashed by the build) and the prepared data directory. */
const engineFile = /^_astro\/pglite\.[\w-]+\.(wasm|data)$|^engine\/pgdata\.tar\.gz$/;

/**
 * Files no reader needs offline: the service worker itself, source maps, the data
 * directory's version stamp, the oEmbed files (read by other sites), WebAssembly other
 * than the engine's (PGlite's initdb, which never runs: the engine starts from the
 * prepared data directory), and `_headers`, which is for the host (Netlify and Cloudflare
 * Pages read it and do not serve it, and an install fails if one file of its list does).
 */
const notKept = /^sw\.js$|^_headers$|\.map$|^engine\/pgdata\.version$|^oembed\/|\.(wasm|data)$/;

/** Every file under `dir`, relative to it, with forward slashes. */
function filesUnder(dir: string, root = dir): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      return statSync(full).isDirectory()
        ? filesUnder(full, root)
        : [relative(root, full).split(sep).join('/')];
    });
}

/** The address of a built file: `chapters/x/index.html` is served as `<base>chapters/x/`. */
function address(base: string, file: string): string {
  if (file === 'index.html') return base;
  return base + (file.endsWith('/index.html') ? file.slice(0, -'index.html'.length) : file);
}

/** A short hash of `files` under `dir`: their names and contents. */
function versionOf(dir: string, files: string[]): string {
  const hash = createHash('sha256');
  for (const file of files) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(dir, file)))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 12);
}

/** A short hash of the prepared data directory, for its address (`?v=`), or '' without one. */
export function dataDirVersion(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12);
  } catch {
    return '';
  }
}

/** The lists and versions for the service worker of the build in `dir`, served under `base`. */
export function offlineManifest(
  dir: string,
  base: string,
): OfflineManifest & { bytes: { site: number; engine: number } } {
  const files = filesUnder(dir).filter((file) => !file.startsWith('.'));
  const engine = files.filter((file) => engineFile.test(file));
  const site = files.filter((file) => !engineFile.test(file) && !notKept.test(file));
  const size = (list: string[]) =>
    list.reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
  const dataDir = engine.find((file) => file.startsWith('engine/'));
  const query = dataDir ? dataDirVersion(join(dir, dataDir)) : '';
  return {
    base,
    siteVersion: versionOf(dir, site),
    engineVersion: versionOf(dir, engine),
    site: site.map((file) => address(base, file)),
    engine: engine.map(
      (file) => address(base, file) + (file === dataDir && query ? `?v=${query}` : ''),
    ),
    bytes: { site: size(site), engine: size(engine) },
  };
}
