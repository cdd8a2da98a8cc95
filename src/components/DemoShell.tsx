import {
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type CSSProperties,
  type ReactNode,
} from 'react';
import { getPageEngine, type PageEngine, type StartProgress } from '../engine/page';
import { AddressProblems } from './AddressProblems';
import { placeholderStyle } from './demo-heights';
import { readEmbedParams } from './embed-params';
import { postToParent } from './embed-messages';
import { describeParamProblem } from './url-params';

/** The engine's state as a demo shows it; mirrored in the root's `data-engine`. */
export type EngineState = 'idle' | 'loading' | 'ready' | 'error';

/** What a demo's body gets from its shell once the engine has started. */
export interface DemoContext {
  engine: PageEngine;
  /** `loading` while a restart is under way; the body stays mounted through it. */
  state: EngineState;
  /** Progress of a restart under way, for the body to show. */
  progress: StartProgress | null;
  /** Replaces the page's engine with a fresh one; resolves when it is ready. */
  restart: () => Promise<void>;
  /**
   * Sets `data-*` attributes on the demo root, for state that tests and embedding pages
   * read (e.g. `{ runs: '3' }` becomes `data-runs="3"`).
   */
  setRootData: (data: Record<string, string>) => void;
  /**
   * Tells an embedding page, once, that the demo can be used. Opening the first session
   * does it; a demo that shows a recording, and opens none, calls this itself.
   */
  announceReady: () => void;
  /** Presenter mode (`present=1`): keys that step the demo work anywhere on the page. */
  present: boolean;
}

/** Tells the embedding page, if there is one, that `demo` (e.g. an exercise) is solved. */
export function tellSolved(demo: string): void {
  postToParent({ type: 'seat-ledger:solved', demo });
}

interface DemoShellProps {
  /** The demo's stable id, e.g. `console`: it is also its `/embed/<id>/` URL. */
  demo: string;
  /** Rendered inside an iframe: report height changes to the parent page. */
  embed?: boolean;
  /** Shown at the top whatever the engine's state, e.g. an exercise's goal. */
  intro?: ReactNode;
  children: (context: DemoContext) => ReactNode;
}

/** How close to the viewport a demo must come before the engine starts downloading. */
const START_MARGIN = '200px';

/**
 * What the engine downloads before it is ready (PGlite's WASM and file bundle and the data
 * directory), measured from the files by astro.config.mjs; 0 when unknown.
 */
const ENGINE_BYTES = typeof __ENGINE_BYTES__ === 'number' ? __ENGINE_BYTES__ : 0;

/** The page's address: nothing on the server, so the first render matches its HTML. */
const subscribeToNothing = () => () => {};
const clientSearch = () => location.search;
const serverSearch = () => null;

/**
 * The root of every demo: starts the page's engine only when the demo nears the viewport
 * (or, with `load=click`, when the reader presses Start), holds the demo's place with a
 * same-size placeholder that shows progress meanwhile, offers Retry when the start fails,
 * applies presentation mode (`present=1`), names the shared URL parameters it could not
 * use, and in an embed tells the parent page its height and when it is ready.
 */
export function DemoShell({ demo, embed = false, intro, children }: DemoShellProps) {
  const rootRef = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<EngineState>('idle');
  const [progress, setProgress] = useState<StartProgress | null>(null);
  const [started, setStarted] = useState(false);
  const [failure, setFailure] = useState<StartFailure | null>(null);
  const [rootData, setRootData] = useState<Record<string, string>>({});
  // When the engine starts while focus is in the placeholder (the reader pressed Start, or
  // tabbed to it and so scrolled it into view), focus follows: to the progress, then the demo.
  const [focusFollows, setFocusFollows] = useState(false);
  const search = useSyncExternalStore(subscribeToNothing, clientSearch, serverSearch);
  const params = useMemo(() => (search === null ? null : readEmbedParams(search)), [search]);

  // In an embed, the parent page hears once that the demo can be used: its engine has
  // started and the demo has opened its first session.
  const announceReady = useMemo(() => readyAnnouncer(demo, embed), [demo, embed]);
  const engine = useMemo(
    () => noticingFirstSession(getPageEngine(), announceReady),
    [announceReady],
  );

  const run = useCallback(async (how: 'start' | 'restart') => {
    setState('loading');
    setFailure(null);
    setProgress(null);
    try {
      const page = getPageEngine();
      await (how === 'start' ? page.start(setProgress) : page.restart(setProgress));
      setStarted(true);
      setState('ready');
    } catch (error) {
      setFailure(startFailure(error, navigator.onLine));
      setState('error');
    } finally {
      setProgress(null);
    }
  }, []);

  // Start is asked for once, whether by coming into view or by the Start button.
  const startAskedRef = useRef(false);
  const start = useCallback(() => {
    if (startAskedRef.current) return;
    startAskedRef.current = true;
    if (rootRef.current?.contains(document.activeElement)) setFocusFollows(true);
    void run('start');
  }, [run]);

  // Start the engine once the root comes within START_MARGIN of the viewport. The island
  // wrapper (<astro-island>) is `display: contents` and has no box, so observe our own root.
  // With `load=click` the reader starts it (see the placeholder).
  useEffect(() => {
    const root = rootRef.current;
    if (!root || !params || params.startOnClick) return;
    if (typeof IntersectionObserver === 'undefined') {
      const timer = setTimeout(start, 0);
      return () => clearTimeout(timer);
    }
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          observer.disconnect();
          performance.mark('seat-ledger:demo-visible');
          start();
        }
      },
      { rootMargin: START_MARGIN },
    );
    observer.observe(root);
    return () => observer.disconnect();
  }, [start, params]);

  useEffect(() => {
    const root = rootRef.current;
    if (!embed || !root || window.parent === window || typeof ResizeObserver === 'undefined') {
      return;
    }
    // The whole embedded page, padding and all: an iframe of this height shows it without
    // scrollbars. (<html> is as tall as its content, whatever the frame's height.)
    const page = document.documentElement;
    let lastHeight = -1;
    const report = () => {
      const height = Math.ceil(page.getBoundingClientRect().height);
      if (height === lastHeight) return;
      lastHeight = height;
      // The message holds only a height, so any embedding page may read it.
      postToParent({ type: 'seat-ledger:resize', demo, height });
    };
    const observer = new ResizeObserver(report);
    observer.observe(page);
    observer.observe(root);
    report();
    return () => observer.disconnect();
  }, [demo, embed]);

  const restart = useCallback(() => run('restart'), [run]);

  const showBody = state === 'ready' || (state === 'loading' && started);

  // A demo started while focus was in its placeholder gets the focus once it is there: the
  // placeholder that held it is gone, and focus would otherwise fall to the page.
  useEffect(() => {
    if (!showBody || !focusFollows) return;
    const root = rootRef.current;
    const active = document.activeElement;
    if (!root || (active && active !== document.body && !root.contains(active))) return;
    root.querySelector<HTMLElement>(FOCUSABLE)?.focus();
  }, [showBody, focusFollows]);

  const waitsForClick = state === 'idle' && params?.startOnClick === true;
  return (
    <div
      ref={rootRef}
      className={params?.present ? 'demo demo-present' : 'demo'}
      style={placeholderStyle(demo) as CSSProperties}
      {...dataAttributes(rootData)}
      data-demo={demo}
      data-engine={state}
    >
      {intro}
      <AddressProblems problems={params?.problems.map(describeParamProblem) ?? []} />
      {showBody ? (
        children({
          engine,
          state,
          progress,
          restart,
          setRootData,
          announceReady,
          present: params?.present === true,
        })
      ) : state === 'error' ? (
        <div className="demo-placeholder demo-error" role="alert">
          <p>
            <strong>PostgreSQL could not start in your browser.</strong>
          </p>
          <p>{failure ? describeStartFailure(failure) : null}</p>
          <p>
            <button type="button" onClick={() => void run('restart')}>
              Retry
            </button>
          </p>
        </div>
      ) : waitsForClick ? (
        <div className="demo-placeholder">
          <p>This demo runs PostgreSQL 18 in your browser. It starts when you ask.</p>
          <p>
            <button type="button" className="button-primary" onClick={start}>
              {startLabel(ENGINE_BYTES)}
            </button>
          </p>
        </div>
      ) : (
        <div className="demo-placeholder">
          <p
            role="status"
            aria-live="polite"
            ref={focusFollows ? focusOnMount : undefined}
            tabIndex={focusFollows ? -1 : undefined}
          >
            {state === 'idle'
              ? 'PostgreSQL 18 starts in your browser when this demo comes into view.'
              : describeProgress(progress)}
          </p>
          {state === 'idle' ? (
            // Tab reaches a demo before it scrolls into view: its reader may start it here.
            <p>
              <button type="button" onClick={start}>
                Start it now
              </button>
            </p>
          ) : null}
          {progress?.step === 'download' && progress.totalBytes > 0 ? (
            <p className="demo-progress">
              <progress
                aria-label="Downloaded"
                max={progress.totalBytes}
                value={progress.loadedBytes}
              />{' '}
              <span>{formatDownload(progress.loadedBytes, progress.totalBytes)}</span>
            </p>
          ) : null}
        </div>
      )}
    </div>
  );
}

/** The words for a step of the engine's start, as shown in the placeholder. */
export function describeProgress(progress: StartProgress | null): string {
  switch (progress?.step) {
    case 'compile':
      return 'Compiling…';
    case 'boot':
      return 'Booting…';
    case 'ready':
      return 'Ready.';
    case 'download':
    case undefined:
      return 'Starting PostgreSQL 18 in your browser…';
  }
}

/** `3.1 of 12.4 MB`: bytes downloaded so far, in decimal megabytes. */
export function formatDownload(loadedBytes: number, totalBytes: number): string {
  const mb = (bytes: number) => (bytes / 1_000_000).toFixed(1);
  return `${mb(loadedBytes)} of ${mb(totalBytes)} MB`;
}

/** What a demo's first control may be, in document order. */
const FOCUSABLE =
  'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea, [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

function focusOnMount(element: HTMLElement | null): void {
  element?.focus();
}

/** The start button's words, with the download's size when it is known. */
export function startLabel(engineBytes: number): string {
  if (engineBytes <= 0) return 'Start PostgreSQL';
  return `Start PostgreSQL (about ${Math.round(engineBytes / 1_000_000)} MB)`;
}

/** Posts `seat-ledger:ready` to the embedding page the first time it is called. */
function readyAnnouncer(demo: string, embed: boolean): () => void {
  let told = false;
  return () => {
    if (told || !embed || window.parent === window) return;
    told = true;
    postToParent({ type: 'seat-ledger:ready', demo });
  };
}

/**
 * `engine` as a demo sees it: calls `onSession` each time one of its sessions has opened
 * (the announcer above speaks only the first time), and passes everything straight through.
 */
function noticingFirstSession(engine: PageEngine, onSession: () => void): PageEngine {
  return {
    kind: engine.kind,
    start: (onProgress) => engine.start(onProgress),
    restart: (onProgress) => engine.restart(onProgress),
    openSession: async (options) => {
      const session = await engine.openSession(options);
      onSession();
      return session;
    },
    listSessions: () => engine.listSessions(),
    cancel: (session) => engine.cancel(session),
    stop: (session) => engine.stop(session),
    close: () => engine.close(),
  };
}

function dataAttributes(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [`data-${key}`, value]));
}

/** Why the engine did not start, as data; `describeStartFailure` words it. */
export type StartFailure =
  /** No network, and the engine's files were not kept for offline use (src/offline/). */
  { kind: 'offline' } | { kind: 'failed'; detail: string };

/** Sorts a failed start: while the browser is offline, a download could not have worked. */
export function startFailure(error: unknown, online: boolean): StartFailure {
  if (!online) return { kind: 'offline' };
  return { kind: 'failed', detail: error instanceof Error ? error.message : '' };
}

/** The words for a failed start, shown under "PostgreSQL could not start in your browser." */
export function describeStartFailure(failure: StartFailure): string {
  switch (failure.kind) {
    case 'offline':
      return (
        'You are offline, and this demo’s engine has not been saved in this browser yet: it is ' +
        'saved once a demo has run while online. Retry starts it again once you are back online.'
      );
    case 'failed': {
      const detail = failure.detail ? ` (${failure.detail})` : '';
      return (
        'The download may have been interrupted, or this browser may lack WebAssembly or ' +
        `module workers${detail}. Retry starts it again.`
      );
    }
  }
}
