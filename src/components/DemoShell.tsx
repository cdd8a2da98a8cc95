import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { getPageEngine, type PageEngine, type StartProgress } from '../engine/page';

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
}

/** The message an embedded demo sends its parent page whenever its height changes. */
export interface ResizeMessage {
  type: 'seat-ledger:resize';
  demo: string;
  height: number;
}

interface DemoShellProps {
  /** The demo's stable id, e.g. `console`: it is also its `/embed/<id>/` URL. */
  demo: string;
  /** Rendered inside an iframe: report height changes to the parent page. */
  embed?: boolean;
  children: (context: DemoContext) => ReactNode;
}

/** How close to the viewport a demo must come before the engine starts downloading. */
const START_MARGIN = '200px';

/**
 * The root of every demo: starts the page's engine only when the demo nears the viewport,
 * holds the demo's place with a same-size placeholder that shows progress meanwhile, offers
 * Retry when the start fails, and in an embed reports its height to the parent page.
 */
export function DemoShell({ demo, embed = false, children }: DemoShellProps) {
  const rootRef = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<EngineState>('idle');
  const [progress, setProgress] = useState<StartProgress | null>(null);
  const [started, setStarted] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [rootData, setRootData] = useState<Record<string, string>>({});

  const run = useCallback(async (how: 'start' | 'restart') => {
    setState('loading');
    setFailure(null);
    setProgress(null);
    try {
      const engine = getPageEngine();
      await (how === 'start' ? engine.start(setProgress) : engine.restart(setProgress));
      setStarted(true);
      setState('ready');
    } catch (error) {
      setFailure(plainStartFailure(error));
      setState('error');
    } finally {
      setProgress(null);
    }
  }, []);

  // Start the engine once the root comes within START_MARGIN of the viewport. The island
  // wrapper (<astro-island>) is `display: contents` and has no box, so observe our own root.
  useEffect(() => {
    const root = rootRef.current;
    if (!root) return;
    if (typeof IntersectionObserver === 'undefined') {
      const timer = setTimeout(() => void run('start'), 0);
      return () => clearTimeout(timer);
    }
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          observer.disconnect();
          performance.mark('seat-ledger:demo-visible');
          void run('start');
        }
      },
      { rootMargin: START_MARGIN },
    );
    observer.observe(root);
    return () => observer.disconnect();
  }, [run]);

  useEffect(() => {
    const root = rootRef.current;
    if (!embed || !root || window.parent === window || typeof ResizeObserver === 'undefined') {
      return;
    }
    let lastHeight = -1;
    const report = () => {
      const height = Math.ceil(root.getBoundingClientRect().height);
      if (height === lastHeight) return;
      lastHeight = height;
      const message: ResizeMessage = { type: 'seat-ledger:resize', demo, height };
      // The message holds only a height, so any embedding page may read it.
      window.parent.postMessage(message, '*');
    };
    const observer = new ResizeObserver(report);
    observer.observe(root);
    report();
    return () => observer.disconnect();
  }, [demo, embed]);

  const restart = useCallback(() => run('restart'), [run]);

  const showBody = state === 'ready' || (state === 'loading' && started);
  return (
    <div
      ref={rootRef}
      className="demo"
      {...dataAttributes(rootData)}
      data-demo={demo}
      data-engine={state}
    >
      {showBody ? (
        children({ engine: getPageEngine(), state, progress, restart, setRootData })
      ) : state === 'error' ? (
        <div className="demo-placeholder demo-error" role="alert">
          <p>
            <strong>PostgreSQL could not start in your browser.</strong>
          </p>
          <p>{failure}</p>
          <p>
            <button type="button" onClick={() => void run('restart')}>
              Retry
            </button>
          </p>
        </div>
      ) : (
        <div className="demo-placeholder">
          <p role="status" aria-live="polite">
            {state === 'idle'
              ? 'PostgreSQL 18 starts in your browser when this demo comes into view.'
              : describeProgress(progress)}
          </p>
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

function dataAttributes(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [`data-${key}`, value]));
}

function plainStartFailure(error: unknown): string {
  const detail = error instanceof Error && error.message ? ` (${error.message})` : '';
  return (
    'The download may have been interrupted, or this browser may lack WebAssembly or ' +
    `module workers${detail}. Retry starts it again.`
  );
}
