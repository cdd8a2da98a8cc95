// The page's side of reading offline (see service-worker.ts). Once a demo on the page has
// started its engine (and the page has had a moment to show it), this registers the
// service worker, which keeps every page and asset; then it tells the worker which files
// the page fetched before the worker answered for it (the engine's, on a first visit, which
// the engine's download worker marks), so the worker keeps those too. A reader who never
// runs a demo downloads nothing extra.
// <html data-offline="site|engine"> says what is kept. Nothing here runs in `astro dev`,
// which has no sw.js.
import { fetchedByWorkerMark, type FetchedMessage, type OfflineStatusMessage } from './plan';

/** The site's base path, `/` or e.g. `/seat-ledger/`: the service worker's address and scope. */
const base = import.meta.env.BASE_URL.replace(/\/?$/, '/');

/** Calls `then` once a demo on the page reports `data-engine="ready"` (DemoShell). */
function whenAnEngineIsReady(then: () => void): void {
  const ready = () => document.querySelector('[data-engine="ready"]') !== null;
  if (ready()) return then();
  const observer = new MutationObserver(() => {
    if (!ready()) return;
    observer.disconnect();
    then();
  });
  observer.observe(document.documentElement, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['data-engine'],
  });
}

/**
 * Calls `then` once the page has had a moment to itself: the engine reports ready before
 * the demo has drawn and run its first statement, and the worker's downloads should not
 * compete with those.
 */
function whenQuiet(then: () => void): void {
  setTimeout(() => {
    if ('requestIdleCallback' in window) requestIdleCallback(then, { timeout: 3000 });
    else then();
  }, 2000);
}

/** Every same-origin file the page has fetched so far, and as it fetches more. */
function onFetched(report: (urls: string[]) => void): void {
  const observer = new PerformanceObserver((list) => {
    const urls = list
      .getEntries()
      .flatMap((entry) =>
        entry.entryType === 'mark'
          ? entry.name === fetchedByWorkerMark
            ? ((entry as PerformanceMark).detail as { urls: string[] }).urls
            : []
          : [entry.name],
      )
      .filter((url) => url.startsWith(location.origin));
    if (urls.length) report(urls);
  });
  observer.observe({ type: 'resource', buffered: true });
  observer.observe({ type: 'mark', buffered: true });
}

async function keepForOffline(): Promise<void> {
  const container = navigator.serviceWorker;
  container.addEventListener('message', (event: MessageEvent<OfflineStatusMessage>) => {
    if (event.data?.type !== 'seat-ledger:offline') return;
    const { site, engine } = event.data;
    if (site) document.documentElement.dataset.offline = engine ? 'engine' : 'site';
  });
  await container.register(`${base}sw.js`, { scope: base });
  const { active } = await container.ready;
  onFetched((urls) =>
    active?.postMessage({ type: 'seat-ledger:fetched', urls } satisfies FetchedMessage),
  );
}

if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  whenAnEngineIsReady(() =>
    whenQuiet(() => {
      // A frame without its own origin (a sandbox without allow-same-origin) or a browser
      // that refuses workers to third-party frames cannot keep anything: it works online.
      keepForOffline().catch(() => {});
    }),
  );
}
