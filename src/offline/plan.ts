// What the service worker keeps for reading offline, and how it answers each request: plain
// data and functions, shared by the worker (service-worker.ts), the build that writes its
// list (manifest.ts) and the tests. No DOM, no worker globals.

/** The files of one build the service worker knows, written into sw.js at build time. */
export interface OfflineManifest {
  /** The site's base path, `/` or e.g. `/seat-ledger/`: the service worker's scope. */
  base: string;
  /** A hash of every page and asset below, path and content: names this build's cache. */
  siteVersion: string;
  /** The same of the engine's files: its cache outlives builds that leave them unchanged. */
  engineVersion: string;
  /** Every page and the scripts, styles and images they load: kept when the worker installs. */
  site: string[];
  /** PGlite's WASM and file bundle and the prepared data directory: kept once a demo has run. */
  engine: string[];
}

/** The names of a build's two caches, and what every cache of this site under `base` starts with. */
export function cacheNames(manifest: OfflineManifest) {
  const prefix = `seat-ledger ${manifest.base} `;
  return {
    prefix,
    site: `${prefix}site ${manifest.siteVersion}`,
    engine: `${prefix}engine ${manifest.engineVersion}`,
  };
}

/** Caches of this site left by earlier builds: the ones to delete once this build is active. */
export function staleCaches(manifest: OfflineManifest, existing: readonly string[]): string[] {
  const { prefix, site, engine } = cacheNames(manifest);
  return existing.filter((name) => name.startsWith(prefix) && name !== site && name !== engine);
}

/** How the service worker answers a request. */
export type Route =
  /** A page: the network first, so a new build shows at once; this build's copy offline. */
  | { kind: 'page'; key: string }
  /** A file of this build whose name carries its hash: from the cache, it never changes. */
  | { kind: 'site'; key: string }
  /** An engine file: from the cache once kept; fetched and kept on the first request. */
  | { kind: 'engine'; key: string }
  /** A page this build does not have: the network, or a note that says it is not kept. */
  | { kind: 'unknown-page' }
  /** Anything else (another origin, another method, a file not kept): left to the browser. */
  | { kind: 'pass' };

/** How the service worker answers a `method` request for `url` made in `mode`. */
export function routeFor(
  manifest: OfflineManifest,
  url: URL,
  method: string,
  mode: string,
  origin: string,
): Route {
  if (method !== 'GET' || url.origin !== origin || !url.pathname.startsWith(manifest.base)) {
    return { kind: 'pass' };
  }
  const withSearch = url.pathname + url.search;
  if (manifest.engine.includes(withSearch)) return { kind: 'engine', key: withSearch };
  if (mode === 'navigate') {
    // Addresses carry a demo's parameters (`?workers=30`), and every page ends with a slash.
    for (const key of [url.pathname, `${url.pathname}/`]) {
      if (manifest.site.includes(key)) return { kind: 'page', key };
    }
    return { kind: 'unknown-page' };
  }
  if (manifest.site.includes(url.pathname)) {
    return isPage(url.pathname)
      ? { kind: 'page', key: url.pathname }
      : { kind: 'site', key: url.pathname };
  }
  return { kind: 'pass' };
}

/** Whether a path of the list is a page (`/lab/`, `/404.html`) rather than an asset. */
export function isPage(path: string): boolean {
  return path.endsWith('/') || path.endsWith('.html');
}

/** Page → service worker: the files this page fetched before the worker answered for it. */
export interface FetchedMessage {
  type: 'seat-ledger:fetched';
  urls: string[];
}

/**
 * The performance mark a page sets for files one of its workers fetched (the engine's
 * download worker), which the page's own timeline of resources does not list; its detail
 * is `{ urls }`. register.ts reports them with the rest.
 */
export const fetchedByWorkerMark = 'seat-ledger:fetched-by-worker';

/** Service worker → page: what is kept for reading offline now. */
export interface OfflineStatusMessage {
  type: 'seat-ledger:offline';
  /** Every page and asset of this build. */
  site: boolean;
  /** Every engine file: demos start without the network. */
  engine: boolean;
}
