import {
  memo,
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { PostgreSQL, sql } from '@codemirror/lang-sql';
import { bracketMatching, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { EditorState, Prec } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  keymap,
  lineNumbers,
  type Command,
} from '@codemirror/view';
import type { PageEngine } from '../engine/page';
import type { SessionInfo } from '../engine/session-info';
import {
  EngineGoneError,
  NotExpressibleError,
  PgError,
  type PgErrorFields,
  type QueryResult,
  type Session,
} from '../engine/types';
import { DemoShell, describeProgress, type DemoContext } from './DemoShell';
import { runScript } from './run-script';
import { editorTheme, sqlHighlightStyle } from './sql-highlight';
import { sentence, stopWords, summarise, summariseError } from './console-text';
import { ErrorView, NoticeList, ResultList } from './Output';
import { emptyHistory, remember, step, type StatementHistory } from './statement-history';
import {
  describeSession,
  sessionStateKind,
  SessionTabs,
  tabIds,
  type SessionTab,
} from './SessionTabs';

export const STARTING_SQL = `-- Ctrl+Enter (⌘+Enter on a Mac) runs everything in this box.
CREATE TABLE IF NOT EXISTS jobs (
  id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind   text NOT NULL,
  status text NOT NULL DEFAULT 'queued'
);
INSERT INTO jobs (kind) VALUES ('convert'), ('email'), ('thumbnail');
SELECT id, kind, status FROM jobs ORDER BY id;`;

const WHO_HOLDS_WHAT = `SELECT pid, application_name, state, backend_xid, backend_xmin,
       wait_event_type, wait_event
  FROM pg_stat_activity ORDER BY pid;`;

/**
 * What a tab handed over by a demo starts with, for the state the demo left its session in
 * (pg_stat_activity's `state`).
 */
export function adoptedSql(state: string | undefined, pending: boolean): string {
  if (pending)
    return `-- The demo's statement on this session is still waiting. Run is back once it
-- answers (in the demo's lane above), or Cancel it. Meanwhile, another tab can ask:
${WHO_HOLDS_WHAT}`;
  if (state === 'idle in transaction')
    return `-- This session's transaction is still open, as the demo left it.
-- COMMIT or ROLLBACK ends it. First, see what every session holds:
${WHO_HOLDS_WHAT}`;
  if (state === 'idle in transaction (aborted)')
    return `-- This session's transaction failed: only ROLLBACK ends it.
ROLLBACK;`;
  return `-- This session is as the demo left it, with no transaction open. Ask what every
-- session holds, or run anything:
${WHO_HOLDS_WHAT}`;
}

/** What the console shows below the editor after a run. */
type Outcome =
  | { kind: 'done'; result: QueryResult }
  | { kind: 'pg-error'; query: string; error: PgErrorFields; partial: QueryResult }
  | { kind: 'not-expressible'; message: string }
  | { kind: 'gone'; message: string }
  | { kind: 'unexpected' };

/** How often the session badges are refreshed while any tab's statement runs. */
const POLL_MS = 1000;

const FIRST_TAB_NAME = 'you';

/** The SQL console demo (`console`): sessions in tabs, an editor, Run and Reset, and PostgreSQL's answers. */
export function Console({
  embed = false,
  startingSql,
}: {
  embed?: boolean;
  /** What the first tab's editor holds at first, for a page that has its own tables. */
  startingSql?: string;
}) {
  return (
    <DemoShell demo="console" embed={embed}>
      {(context) => <ConsoleBody {...context} startingSql={startingSql} />}
    </DemoShell>
  );
}

export default Console;

/** A session opened elsewhere (a demo's), handed to the console as a tab of its own. */
export interface AdoptedSession {
  label: string;
  applicationName: string;
  session: Session;
  /** Its pg_stat_activity state when it was handed over. */
  state?: string;
  /**
   * A statement the demo sent that has not answered yet: the tab is busy until `done`;
   * `shownIn` says where its answer is shown (the demo's lane, by default).
   */
  pending?: { what: string; done: Promise<void>; shownIn?: string };
  /** What its editor holds at first, instead of the words for its state. */
  sql?: string;
}

/** A run a tab finished, for a page that checks what the reader did (an exercise). */
export interface FinishedRun {
  session: Session;
  /** PostgreSQL's answer: every statement's result; with `errorCode`, those before the error. */
  result: QueryResult | null;
  errorCode?: string;
}

/**
 * The console's tabs, one session each: opens and closes the sessions, keeps the badges
 * current from `listSessions`, counts finished runs in `data-runs`, and resets everything.
 * With `adopt`, it starts with those sessions as its tabs, in whatever state they are.
 */
export function ConsoleBody({
  engine,
  state,
  progress,
  restart,
  setRootData,
  adopt,
  onReset,
  onRan,
  startingSql = STARTING_SQL,
}: DemoContext & {
  startingSql?: string;
  adopt?: AdoptedSession[];
  /** Hears every run a tab finishes, with PostgreSQL's answer. */
  onRan?: (run: FinishedRun) => void;
  /** Replaces Reset (the engine restarted): the demo that handed its sessions over restarts. */
  onReset?: () => Promise<void>;
}) {
  const idBase = useId();
  const rootRef = useRef<HTMLDivElement>(null);
  const [adopted] = useState(() =>
    (adopt ?? []).map((a, key) => ({
      tab: { key, label: a.label, applicationName: a.applicationName },
      session: a.session,
      state: a.state,
      pending: a.pending,
      sql: a.sql,
    })),
  );
  const nextKeyRef = useRef(Math.max(1, adopted.length));
  // The next "session N": the first tab ("you", or each adopted session) counts as one.
  const nextNumberRef = useRef(Math.max(2, adopted.length + 1));
  const [tabs, setTabs] = useState<SessionTab[]>(() =>
    adopted.length
      ? adopted.map((a) => a.tab)
      : [{ key: 0, label: FIRST_TAB_NAME, applicationName: FIRST_TAB_NAME }],
  );
  const [activeKey, setActiveKey] = useState(0);
  // The first tab after a reset shows how the restart went until it runs something.
  const [resetNote, setResetNote] = useState<{ key: number; status: string } | null>(null);
  const [resetting, setResetting] = useState(false);
  const resetGenerationRef = useRef(0);
  const [serverVersion, setServerVersion] = useState<string | null>(null);
  // Each tab's session, opening or open: one promise, so a Run during the open waits for it.
  const sessionsRef = useRef(
    new Map<number, Promise<Session>>(adopted.map((a) => [a.tab.key, Promise.resolve(a.session)])),
  );
  const [sessionIds, setSessionIds] = useState<ReadonlyMap<number, number>>(
    () => new Map(adopted.map((a) => [a.tab.key, a.session.id])),
  );
  const [infos, setInfos] = useState<SessionInfo[]>([]);
  const [runningKeys, setRunningKeys] = useState<ReadonlySet<number>>(new Set());
  // Runs that finished with an answer (rows, an error, or the engine gone), in any tab.
  const [finishedRuns, setFinishedRuns] = useState(0);
  const focusTabRef = useRef<number | null>(null);

  // One listSessions call at a time; a refresh asked for meanwhile runs once it is back.
  const refreshingRef = useRef({ busy: false, again: false });
  const refresh = useCallback(async () => {
    const flags = refreshingRef.current;
    if (flags.busy) {
      flags.again = true;
      return;
    }
    flags.busy = true;
    do {
      flags.again = false;
      try {
        const list = await engine.listSessions();
        setInfos((previous) =>
          JSON.stringify(previous) === JSON.stringify(list) ? previous : list,
        );
      } catch {
        // The engine restarting or gone: the next refresh will tell.
      }
    } while (flags.again);
    flags.busy = false;
  }, [engine]);

  const openTabSession = useCallback(
    (tab: SessionTab, first = false): Promise<Session> => {
      const sessions = sessionsRef.current;
      let opening = sessions.get(tab.key);
      if (opening) return opening;
      opening = (async () => {
        const session = await engine.openSession({ applicationName: tab.applicationName });
        if (first) {
          const { results } = await session.query('SELECT version()');
          performance.mark('seat-ledger:first-result');
          setServerVersion(results[0]?.rows[0]?.[0] ?? null);
        }
        setSessionIds((ids) => new Map(ids).set(tab.key, session.id));
        void refresh();
        return session;
      })();
      sessions.set(tab.key, opening);
      const thisOpening = opening;
      // A failed open is retried by the next Run, which reports what went wrong.
      thisOpening.catch(() => {
        if (sessions.get(tab.key) === thisOpening) sessions.delete(tab.key);
      });
      return thisOpening;
    },
    [engine, refresh],
  );

  useEffect(() => {
    if (adopted.length) {
      engine.listSessions().then(setInfos, () => {});
      return;
    }
    openTabSession({ key: 0, label: FIRST_TAB_NAME, applicationName: FIRST_TAB_NAME }, true).catch(
      () => {},
    );
  }, [openTabSession, adopted, engine]);

  useEffect(() => {
    setRootData({ runs: String(finishedRuns) });
  }, [finishedRuns, setRootData]);

  // Tabs handed over with a demo's statement still waiting, until it answers.
  const [inheritedKeys, setInheritedKeys] = useState<ReadonlySet<number>>(
    () => new Set(adopted.filter((a) => a.pending).map((a) => a.tab.key)),
  );
  useEffect(() => {
    let alive = true;
    for (const a of adopted) {
      void a.pending?.done.then(() => {
        if (!alive) return;
        setInheritedKeys((keys) => new Set([...keys].filter((key) => key !== a.tab.key)));
        void refresh();
      });
    }
    return () => {
      alive = false;
    };
  }, [adopted, refresh]);
  const anyRunning = runningKeys.size > 0 || inheritedKeys.size > 0;
  useEffect(() => {
    if (!anyRunning) return;
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, [anyRunning, refresh]);

  useEffect(() => {
    const key = focusTabRef.current;
    if (key === null) return;
    focusTabRef.current = null;
    rootRef.current
      ?.querySelector<HTMLElement>(`[id="${CSS.escape(tabIds(idBase, key).tab)}"]`)
      ?.focus();
  }, [tabs, activeKey, idBase]);

  const onRunStart = useCallback(
    (key: number) => {
      setRunningKeys((keys) => new Set(keys).add(key));
      void refresh();
    },
    [refresh],
  );

  const onRunEnd = useCallback(
    (key: number) => {
      setRunningKeys((keys) => {
        const next = new Set(keys);
        next.delete(key);
        return next;
      });
      setFinishedRuns((count) => count + 1);
      void refresh();
    },
    [refresh],
  );

  const forgetSession = useCallback((key: number) => {
    sessionsRef.current.delete(key);
  }, []);

  const newSession = useCallback(() => {
    const number = nextNumberRef.current++;
    const name = `session ${number}`;
    const tab: SessionTab = { key: nextKeyRef.current++, label: name, applicationName: name };
    setTabs((current) => [...current, tab]);
    setActiveKey(tab.key);
    focusTabRef.current = tab.key;
    openTabSession(tab).catch(() => {});
  }, [openTabSession]);

  const rename = useCallback((key: number, label: string) => {
    setTabs((current) => current.map((tab) => (tab.key === key ? { ...tab, label } : tab)));
  }, []);

  // Read through refs, so that Close keeps one identity and a tab opening or closing does
  // not draw every other tab's panel again (a reader may open hundreds).
  const tabsRef = useRef({ tabs, activeKey });
  useEffect(() => {
    tabsRef.current = { tabs, activeKey };
  }, [tabs, activeKey]);
  const closeTab = useCallback(
    (key: number) => {
      const { tabs, activeKey } = tabsRef.current;
      if (tabs.length <= 1) return;
      const at = tabs.findIndex((tab) => tab.key === key);
      const rest = tabs.filter((tab) => tab.key !== key);
      setTabs(rest);
      if (key === activeKey) {
        const next = rest[Math.min(at, rest.length - 1)]!.key;
        setActiveKey(next);
        focusTabRef.current = next;
      }
      setRunningKeys((keys) => {
        const next = new Set(keys);
        next.delete(key);
        return next;
      });
      const opening = sessionsRef.current.get(key);
      sessionsRef.current.delete(key);
      // Closing rolls back its open transaction, as a client disconnecting does.
      void opening
        ?.then((session) => session.close())
        .catch(() => {})
        .then(() => refresh());
    },
    [refresh],
  );

  const reset = useCallback(async () => {
    const generation = ++resetGenerationRef.current;
    const tab: SessionTab = {
      key: nextKeyRef.current++,
      label: FIRST_TAB_NAME,
      applicationName: FIRST_TAB_NAME,
    };
    nextNumberRef.current = 2;
    sessionsRef.current.clear();
    setSessionIds(new Map());
    setInfos([]);
    setRunningKeys(new Set());
    setTabs([tab]);
    setActiveKey(tab.key);
    setResetting(true);
    setResetNote({ key: tab.key, status: 'Restarting PostgreSQL…' });
    await restart();
    try {
      await openTabSession(tab, true);
      if (generation === resetGenerationRef.current) {
        setResetNote({ key: tab.key, status: 'Engine restarted: a fresh database.' });
      }
    } catch {
      if (generation === resetGenerationRef.current) {
        setResetNote({
          key: tab.key,
          status: 'The engine restarted, but no session could be opened. Try Reset again.',
        });
      }
    } finally {
      if (generation === resetGenerationRef.current) setResetting(false);
    }
  }, [openTabSession, restart]);

  const badges = useMemo(() => {
    const byId = new Map(infos.map((info) => [info.id, info]));
    return new Map(
      tabs.map((tab) => {
        const id = sessionIds.get(tab.key);
        const info = id === undefined ? undefined : byId.get(id);
        return [tab.key, { text: describeSession(info), state: sessionStateKind(info) }];
      }),
    );
  }, [infos, sessionIds, tabs]);

  const engineStatus = state === 'loading' ? `Restarting: ${describeProgress(progress)}` : null;

  return (
    <div className="console" ref={rootRef}>
      <SessionTabs
        idBase={idBase}
        tabs={tabs}
        activeKey={activeKey}
        badges={badges}
        onSelect={setActiveKey}
        onNew={newSession}
        busy={resetting}
      />
      {tabs.map((tab) => {
        const id = sessionIds.get(tab.key);
        const adoptedTab = adopted.find((a) => a.tab.key === tab.key);
        return (
          <SessionPanel
            key={tab.key}
            idBase={idBase}
            tab={tab}
            active={tab.key === activeKey}
            initialSql={
              adoptedTab
                ? (adoptedTab.sql ?? adoptedSql(adoptedTab.state, !!adoptedTab.pending))
                : !adopted.length && tab.key === tabs[0]?.key
                  ? startingSql
                  : ''
            }
            demoPending={adoptedTab?.pending}
            info={id === undefined ? undefined : infos.find((info) => info.id === id)}
            engine={engine}
            openSession={openTabSession}
            forgetSession={forgetSession}
            resetting={resetting}
            engineStatus={engineStatus}
            resetStatus={resetNote?.key === tab.key ? resetNote.status : null}
            serverVersion={serverVersion}
            canClose={tabs.length > 1}
            onRename={rename}
            onClose={closeTab}
            onReset={onReset ?? reset}
            resetLabel={onReset ? 'Restart the demo' : 'Reset'}
            onRunStart={onRunStart}
            onRunEnd={onRunEnd}
            onRan={onRan}
          />
        );
      })}
    </div>
  );
}

interface SessionPanelProps {
  idBase: string;
  tab: SessionTab;
  /** Only the selected tab's panel is shown, so one editor named "SQL" is visible. */
  active: boolean;
  /** What the editor holds at first: the example script in the console's first tab. */
  initialSql: string;
  info: SessionInfo | undefined;
  engine: PageEngine;
  openSession: (tab: SessionTab) => Promise<Session>;
  forgetSession: (key: number) => void;
  resetting: boolean;
  /** Set while the engine restarts: shown instead of the tab's own status. */
  engineStatus: string | null;
  /** How a reset went, shown until this tab runs something. */
  resetStatus: string | null;
  serverVersion: string | null;
  canClose: boolean;
  onRename: (key: number, label: string) => void;
  onClose: (key: number) => void;
  onReset: () => Promise<void>;
  resetLabel: string;
  /** The demo's statement still waiting on this tab's session, when it was handed over. */
  demoPending?: AdoptedSession['pending'];
  onRunStart: (key: number) => void;
  onRunEnd: (key: number) => void;
  onRan?: (run: FinishedRun) => void;
}

/**
 * A panel is drawn again only when what it shows changes: its session's info is compared
 * by value, since the list of sessions is read afresh every second while anything runs.
 */
const SessionPanel = memo(SessionPanelBody, (before, after) =>
  (Object.keys(after) as (keyof SessionPanelProps)[]).every((name) =>
    name === 'info'
      ? JSON.stringify(before.info) === JSON.stringify(after.info)
      : before[name] === after[name],
  ),
);

/** One session's tab panel: its own editor, history, output and running state. */
function SessionPanelBody({
  idBase,
  tab,
  active,
  initialSql,
  info,
  engine,
  openSession,
  forgetSession,
  resetting,
  engineStatus,
  resetStatus,
  serverVersion,
  canClose,
  onRename,
  onClose,
  onReset,
  resetLabel,
  demoPending,
  onRunStart,
  onRunEnd,
  onRan,
}: SessionPanelProps) {
  const editorRef = useRef<HTMLDivElement>(null);
  const viewRef = useRef<EditorView | null>(null);
  const historyRef = useRef<StatementHistory>(emptyHistory());
  // Each run takes a new generation, and so does unmounting; an older answer is dropped.
  const generationRef = useRef(0);
  /** When the run on show began, until its answer is on screen. */
  const runStartRef = useRef<number | null>(null);
  const runRef = useRef<() => void>(() => {});
  const initialDocRef = useRef(initialSql);
  const [running, setRunning] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  // Busy, as if running, until the demo's statement answers.
  const [inherited, setInherited] = useState(demoPending !== undefined);
  useEffect(() => {
    let alive = true;
    void demoPending?.done.then(() => {
      if (!alive) return;
      setInherited(false);
      setStatus(
        `${capital(demoPending.what)} has answered (its output is ${demoPending.shownIn ?? "in the demo's lane"}).`,
      );
    });
    return () => {
      alive = false;
    };
  }, [demoPending]);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  // What Stop did, when it did more than cancel: shown until the next run.
  const [stopNote, setStopNote] = useState<string | null>(null);
  const [stopping, setStopping] = useState(false);
  const hintId = useId();
  const ids = tabIds(idBase, tab.key);

  useEffect(() => {
    const generation = generationRef;
    return () => {
      generation.current++;
    };
  }, []);

  const runQuery = useCallback(async () => {
    const view = viewRef.current;
    if (!view || running || resetting) return;
    const query = view.state.doc.toString();
    historyRef.current = remember(historyRef.current, query);
    const generation = ++generationRef.current;
    runStartRef.current = performance.now();
    setRunning(true);
    setStopNote(null);
    setStatus('Running…');
    onRunStart(tab.key);
    let next: Outcome;
    let ranOn: Session | undefined;
    try {
      const session = await openSession(tab);
      ranOn = session;
      next = { kind: 'done', result: await runScript(session, query) };
    } catch (error) {
      next = toOutcome(error, query);
      if (error instanceof EngineGoneError) forgetSession(tab.key);
    }
    if (generation !== generationRef.current) return;
    setOutcome(next);
    setStatus(statusFor(next));
    setRunning(false);
    onRunEnd(tab.key);
    if (ranOn) onRan?.(finishedRun(ranOn, next));
  }, [openSession, forgetSession, onRunStart, onRunEnd, onRan, running, resetting, tab]);

  useEffect(() => {
    runRef.current = () => void runQuery();
  }, [runQuery]);

  // Time from Run to the answer on screen, for the benchmark.
  useEffect(() => {
    const start = runStartRef.current;
    if (start === null || !outcome) return;
    runStartRef.current = null;
    performance.measure('seat-ledger:console-run', { start, end: performance.now() });
  }, [outcome]);

  /** Stops this tab's statement, whatever it is doing (Cancel for a wait, Stop otherwise). */
  const stop = useCallback(async () => {
    setStopping(true);
    try {
      setStopNote(stopWords(await engine.stop(await openSession(tab))));
    } catch {
      // The statement ended or the engine went away meanwhile: its answer says which.
    } finally {
      setStopping(false);
    }
  }, [engine, openSession, tab]);

  useEffect(() => {
    const parent = editorRef.current;
    if (!parent) return;
    const recall =
      (direction: -1 | 1): Command =>
      (view) => {
        const selection = view.state.selection.main;
        if (!selection.empty) return false;
        const line = view.state.doc.lineAt(selection.head);
        const edge = direction === -1 ? 1 : view.state.doc.lines;
        if (line.number !== edge) return false;
        const next = step(historyRef.current, direction, view.state.doc.toString());
        if (!next) return false;
        historyRef.current = next.history;
        view.dispatch({
          changes: { from: 0, to: view.state.doc.length, insert: next.text },
          selection: { anchor: next.text.length },
          scrollIntoView: true,
        });
        return true;
      };
    const run: Command = () => {
      runRef.current();
      return true;
    };
    const view = new EditorView({
      parent,
      state: EditorState.create({
        doc: initialDocRef.current,
        extensions: [
          // Tab is left alone on purpose, so it moves focus out of the editor.
          Prec.highest(
            keymap.of([
              { key: 'Mod-Enter', run },
              { key: 'Ctrl-Enter', run },
              { key: 'Meta-Enter', run },
              { key: 'ArrowUp', run: recall(-1) },
              { key: 'ArrowDown', run: recall(1) },
            ]),
          ),
          lineNumbers(),
          highlightActiveLine(),
          drawSelection(),
          history(),
          indentOnInput(),
          bracketMatching(),
          syntaxHighlighting(sqlHighlightStyle),
          editorTheme,
          sql({ dialect: PostgreSQL }),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': 'SQL', 'aria-describedby': hintId }),
          keymap.of([...defaultKeymap, ...historyKeymap]),
        ],
      }),
    });
    viewRef.current = view;
    return () => {
      view.destroy();
      viewRef.current = null;
    };
  }, [hintId]);

  // An editor built while its panel was hidden measures itself again once shown.
  useEffect(() => {
    if (active) viewRef.current?.requestMeasure();
  }, [active]);

  const busy = running || resetting || inherited;
  const waiting = (running || inherited) && info?.state === 'active' && info.waitEventType !== null;
  const sleeping = waiting && info?.waitEvent === 'PgSleep';
  const liveStatus =
    engineStatus ??
    (sleeping
      ? 'Sleeping (pg_sleep). Modelled: other sessions go on meanwhile, and a parked transaction stands in for this statement’s snapshot, pinning the horizon as on a server.'
      : waiting
        ? `Waiting for a lock held by ${info.blockedByPid === null ? 'another session' : `pid ${info.blockedByPid}`}.` +
          (info.watchdog
            ? ' Modelled: PGlite gave no answer while a parked transaction held locks, so the watchdog took this for a lock wait; it runs again when that transaction ends.'
            : '')
        : inherited && demoPending
          ? `${capital(demoPending.what)} is still running.`
          : (status ?? resetStatus ?? 'Ready. Nothing has run yet.'));

  return (
    <div role="tabpanel" id={ids.panel} aria-labelledby={ids.tab} hidden={!active}>
      <div className="console-panel">
        <SessionBar
          tab={tab}
          info={info}
          canClose={canClose}
          onRename={(label) => onRename(tab.key, label)}
          onClose={() => onClose(tab.key)}
        />
        <div className="console-editor" ref={editorRef} />
        <p className="console-hint" id={hintId}>
          Ctrl+Enter or ⌘+Enter runs. ↑ on the first line and ↓ on the last step through statements
          you ran. Escape, then Tab, leaves the editor.
        </p>
        <div className="console-actions">
          <button
            type="button"
            className="button-primary"
            aria-disabled={busy}
            onClick={() => void runQuery()}
          >
            Run
          </button>
          <button
            type="button"
            aria-disabled={resetting}
            onClick={() => {
              if (!resetting) void onReset();
            }}
          >
            {resetLabel}
          </button>
          {waiting ? (
            <>
              <span className="console-running">
                {sleeping ? 'Sleeping…' : 'Waiting for a lock…'}
              </span>
              <button type="button" onClick={() => void stop()}>
                Cancel
              </button>
            </>
          ) : running || inherited ? (
            <>
              <span className="console-running">{stopping ? 'Stopping…' : 'Running…'}</span>
              <button
                type="button"
                aria-disabled={stopping}
                onClick={() => {
                  if (!stopping) void stop();
                }}
              >
                Stop
              </button>
            </>
          ) : null}
        </div>
        <div className="console-output" role="region" aria-label="Results">
          <p className="honesty">
            Output from PostgreSQL 18 running in your browser (PGlite)
            {serverVersion ? (
              <>
                : <span className="server-version">{serverVersion.replace(/ on .*$/, '')}</span>
              </>
            ) : null}
          </p>
          <p className="console-status" role="status" aria-live="polite">
            {liveStatus}
          </p>
          {stopNote ? <p className="console-stopped">{stopNote}</p> : null}
          {outcome ? <OutcomeView outcome={outcome} /> : null}
        </div>
        {outcome ? <NoticesView outcome={outcome} /> : null}
      </div>
    </div>
  );
}

/** A tab's name, its session's pid and application_name, Rename and Close session. */
function SessionBar({
  tab,
  info,
  canClose,
  onRename,
  onClose,
}: {
  tab: SessionTab;
  info: SessionInfo | undefined;
  canClose: boolean;
  onRename: (label: string) => void;
  onClose: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(tab.label);
  const renameRef = useRef<HTMLButtonElement>(null);
  const inputId = useId();

  // Focus returns to Rename in the same commit that removes the field, so a key pressed
  // right after Save reaches Rename, not the page.
  const wasEditing = useRef(false);
  useLayoutEffect(() => {
    if (wasEditing.current && !editing) renameRef.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  const finish = (save: boolean) => {
    const label = draft.trim();
    if (save && label) onRename(label);
    setEditing(false);
  };

  return (
    <div className="session-bar">
      {editing ? (
        <form
          className="session-rename"
          onSubmit={(event) => {
            event.preventDefault();
            finish(true);
          }}
        >
          <label htmlFor={inputId}>Tab label</label>
          <input
            id={inputId}
            type="text"
            value={draft}
            maxLength={40}
            autoFocus
            // The old label is selected, so what the reader types replaces it.
            onFocus={(event) => event.currentTarget.select()}
            onChange={(event) => setDraft(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') {
                event.preventDefault();
                finish(false);
              }
            }}
          />
          <button type="submit">Save label</button>
        </form>
      ) : (
        <p className="session-meta">
          <strong>{tab.label}</strong>: its own connection
          {info ? `, pid ${info.pid}` : ''}, application_name <code>{tab.applicationName}</code> (a
          new label renames the tab only).
        </p>
      )}
      <div className="session-bar-actions">
        {editing ? null : (
          <button
            type="button"
            ref={renameRef}
            onClick={() => {
              setDraft(tab.label);
              setEditing(true);
            }}
          >
            Rename
          </button>
        )}
        {canClose ? (
          <button type="button" onClick={onClose}>
            Close session
          </button>
        ) : null}
      </div>
    </div>
  );
}

function toOutcome(error: unknown, query: string): Outcome {
  if (error instanceof PgError) {
    return { kind: 'pg-error', query, error: error.toFields(), partial: error.partial };
  }
  if (error instanceof NotExpressibleError)
    return { kind: 'not-expressible', message: error.message };
  if (error instanceof EngineGoneError) return { kind: 'gone', message: error.message };
  return { kind: 'unexpected' };
}

function finishedRun(session: Session, outcome: Outcome): FinishedRun {
  if (outcome.kind === 'done') return { session, result: outcome.result };
  if (outcome.kind === 'pg-error')
    return { session, result: outcome.partial, errorCode: outcome.error.code };
  return { session, result: null };
}

function statusFor(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'done':
      return summarise(outcome.result);
    case 'pg-error':
      return summariseError(outcome.error);
    case 'not-expressible':
      return 'Not expressible in the browser: the in-browser engine cannot show this.';
    case 'gone':
      return 'PostgreSQL stopped before the statement finished.';
    case 'unexpected':
      return 'Something went wrong in the console.';
  }
}

function OutcomeView({ outcome }: { outcome: Outcome }) {
  switch (outcome.kind) {
    case 'done':
      return <ResultList results={outcome.result.results} />;
    case 'pg-error':
      return (
        <>
          <ResultList results={outcome.partial.results} />
          <ErrorView query={outcome.query} error={outcome.error} />
        </>
      );
    case 'not-expressible':
      return (
        <div className="console-limit" role="region" aria-label="Limit of the in-browser engine">
          <p>
            {`Not expressible in the browser: ${sentence(outcome.message)}`} This is a limit of the
            in-browser engine (many sessions sharing PGlite’s one backend), not a PostgreSQL error.
          </p>
        </div>
      );
    case 'gone':
      return (
        <div className="console-error" role="region" aria-label="Error">
          <p>
            {`PostgreSQL stopped before the statement finished, so its outcome is unknown ` +
              `(${outcome.message}). Reset starts a fresh database.`}
          </p>
        </div>
      );
    case 'unexpected':
      return (
        <div className="console-error" role="region" aria-label="Error">
          <p>
            Something went wrong in the console, so the statement’s outcome is unknown. Reset starts
            a fresh database.
          </p>
        </div>
      );
  }
}

function NoticesView({ outcome }: { outcome: Outcome }) {
  const notices =
    outcome.kind === 'done'
      ? outcome.result.notices
      : outcome.kind === 'pg-error'
        ? outcome.partial.notices
        : [];
  const omitted =
    outcome.kind === 'done'
      ? outcome.result.noticesOmitted
      : outcome.kind === 'pg-error'
        ? outcome.partial.noticesOmitted
        : undefined;
  return <NoticeList notices={notices} omitted={omitted} />;
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
