/// <reference lib="webworker" />
// The service worker (built into sw.js at the site's base by integration.ts): the site works
// offline after a demo has run once. Installing keeps every page and asset of this build;
// the engine's files are kept as a page fetches them through the worker, or, on the first
// visit, when the page says it fetched them before the worker answered for it (register.ts).
// Pages come from the network first, so a new build shows at once; this build's copies
// answer offline. A new build's worker takes over once no tab of the old one is open, then
// deletes the old build's caches.
import {
  cacheNames,
  routeFor,
  staleCaches,
  type FetchedMessage,
  type OfflineManifest,
  type OfflineStatusMessage,
  type Route,
} from './plan';

declare const self: ServiceWorkerGlobalScope;
declare const __OFFLINE_MANIFEST__: OfflineManifest;

const manifest = __OFFLINE_MANIFEST__;
const names = cacheNames(manifest);

/** How long a page waits for the network before this build's copy answers (a bad connection). */
const PAGE_NETWORK_MS = 4000;

/**
 * A request for `url` to keep: files whose address carries a hash of their content (built
 * assets, the data directory's `?v=`) may come from the HTTP cache; pages are asked for
 * again, since a stale copy would not match this build's assets.
 */
function fresh(url: string): Request {
  const hashed = url.includes('/_astro/') || url.includes('?v=');
  return new Request(url, { cache: hashed ? 'default' : 'no-cache' });
}

/** Whether `response` may be kept: complete, from this origin, and a success. */
function keepable(response: Response): boolean {
  return response.ok && response.status === 200 && response.type === 'basic';
}

/** Keeps the engine's files among `urls` that are not kept yet (one that fails is left out). */
async function keepEngineFiles(urls: readonly string[]): Promise<void> {
  const cache = await caches.open(names.engine);
  await Promise.all(
    urls.map(async (url) => {
      if (await cache.match(url)) return;
      const response = await fetch(fresh(url)).catch(() => undefined);
      if (response && keepable(response)) await cache.put(url, response);
    }),
  );
}

/** What is kept now, for a page that asks. */
async function status(): Promise<OfflineStatusMessage> {
  const [site, engine] = await Promise.all(
    [
      [names.site, manifest.site],
      [names.engine, manifest.engine],
    ].map(async ([name, urls]) => {
      const cache = await caches.open(name as string);
      const kept = await Promise.all((urls as string[]).map((url) => cache.match(url)));
      return kept.every(Boolean);
    }),
  );
  return { type: 'seat-ledger:offline', site: site!, engine: engine! };
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(names.site);
      // All or nothing: a failed install is tried again on the next visit.
      await cache.addAll(manifest.site.map(fresh));
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      await Promise.all(staleCaches(manifest, await caches.keys()).map((n) => caches.delete(n)));
      // The page that registered the worker is answered by it from now on, without a reload.
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('message', (event) => {
  const data = event.data as FetchedMessage | { type?: unknown } | null;
  if (data?.type !== 'seat-ledger:fetched') return;
  const fetched = new Set(
    (data as FetchedMessage).urls.map((url) => {
      const parsed = new URL(url, self.location.href);
      return parsed.pathname + parsed.search;
    }),
  );
  const source = event.source;
  event.waitUntil(
    (async () => {
      await keepEngineFiles(manifest.engine.filter((url) => fetched.has(url)));
      source?.postMessage(await status());
    })(),
  );
});

/** A short page for an address this build has not kept, when the network does not answer. */
function notKeptPage(): Response {
  const home = manifest.base;
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Offline · Seat &amp; Ledger</title></head><body><main><h1>You are offline</h1><p>This page was not saved for reading offline. The chapters and demos were: <a href="${home}">start from the home page</a>.</p></main></body></html>`;
  return new Response(body, {
    status: 503,
    headers: { 'content-type': 'text/html; charset=utf-8' },
  });
}

/** The network's answer, or undefined after `ms` or on a network error. */
async function network(request: Request, ms?: number): Promise<Response | undefined> {
  const answer = fetch(request).catch(() => undefined);
  if (ms === undefined) return answer;
  let timer: number | undefined;
  const late = new Promise<undefined>((resolve) => (timer = self.setTimeout(resolve, ms)));
  try {
    return await Promise.race([answer, late]);
  } finally {
    self.clearTimeout(timer);
  }
}

async function answer(route: Route, event: FetchEvent): Promise<Response> {
  const request = event.request;
  switch (route.kind) {
    case 'page': {
      const kept = await caches.match(route.key, { cacheName: names.site });
      const response = await network(request, kept ? PAGE_NETWORK_MS : undefined);
      return response ?? kept ?? Response.error();
    }
    case 'unknown-page':
      return (await network(request)) ?? notKeptPage();
    case 'site': {
      const kept = await caches.match(route.key, { cacheName: names.site });
      return kept ?? fetch(request);
    }
    case 'engine': {
      const cache = await caches.open(names.engine);
      const kept = await cache.match(route.key);
      if (kept) return kept;
      const response = await fetch(request);
      // Kept as it streams past: the page compiles the WASM and counts bytes meanwhile.
      if (keepable(response)) event.waitUntil(cache.put(route.key, response.clone()));
      return response;
    }
    case 'pass':
      return fetch(request);
  }
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  const route = routeFor(
    manifest,
    url,
    event.request.method,
    event.request.mode,
    self.location.origin,
  );
  if (route.kind === 'pass') return;
  event.respondWith(answer(route, event));
});
