import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
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
import {
  EngineGoneError,
  PgError,
  type PgErrorFields,
  type QueryResult,
  type Session,
  type StatementResult,
} from '../engine/types';
import { DemoShell, describeProgress, type DemoContext } from './DemoShell';
import { runScript } from './run-script';
import { sqlHighlightStyle } from './sql-highlight';
import { commandTag, messageLines, noticeText, summarise, summariseError } from './console-text';
import { formatErrorPointer, locateErrorPosition } from './error-position';
import { emptyHistory, remember, step, type StatementHistory } from './statement-history';

/** Rows drawn per result; more would make the page slow without teaching anything. */
const ROW_LIMIT = 500;

const STARTING_SQL = `-- Ctrl+Enter (⌘+Enter on a Mac) runs everything in this box.
CREATE TABLE IF NOT EXISTS jobs (
  id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind  text NOT NULL,
  state text NOT NULL DEFAULT 'queued'
);
INSERT INTO jobs (kind) VALUES ('convert'), ('email'), ('thumbnail');
SELECT id, kind, state FROM jobs ORDER BY id;`;

/** What the console shows below the editor after a run. */
type Outcome =
  | { kind: 'done'; result: QueryResult }
  | { kind: 'pg-error'; query: string; error: PgErrorFields; partial: QueryResult }
  | { kind: 'gone'; message: string }
  | { kind: 'unexpected' };

/** The SQL console demo (`console`): an editor, Run and Reset, and PostgreSQL's answers. */
export function Console({ embed = false }: { embed?: boolean }) {
  return (
    <DemoShell demo="console" embed={embed}>
      {(context) => <ConsoleBody {...context} />}
    </DemoShell>
  );
}

export default Console;

function ConsoleBody({ engine, state, progress, restart, setRootData }: DemoContext) {
  const editorRef = useRef<HTMLDivElement>(null);
  const viewRef = useRef<EditorView | null>(null);
  const sessionRef = useRef<Promise<Session> | null>(null);
  const [serverVersion, setServerVersion] = useState<string | null>(null);
  const historyRef = useRef<StatementHistory>(emptyHistory());
  // Each run and each reset takes a new generation; an answer from an older one is dropped.
  const generationRef = useRef(0);
  const runRef = useRef<() => void>(() => {});
  const [running, setRunning] = useState(false);
  const [resetting, setResetting] = useState(false);
  const [status, setStatus] = useState('Ready. Nothing has run yet.');
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  // Runs that finished with an answer (rows, an error, or the engine gone): `data-runs`.
  const [finishedRuns, setFinishedRuns] = useState(0);
  const hintId = useId();

  // The session being opened or open; one promise, so a Run during the open waits for it.
  const openSession = useCallback((): Promise<Session> => {
    sessionRef.current ??= (async () => {
      const session = await engine.openSession({ applicationName: 'console' });
      const { results } = await session.query('SELECT version()');
      performance.mark('seat-ledger:first-result');
      setServerVersion(results[0]?.rows[0]?.[0] ?? null);
      return session;
    })();
    const opening = sessionRef.current;
    // A failed open is retried by the next Run, which reports what went wrong.
    opening.catch(() => {
      if (sessionRef.current === opening) sessionRef.current = null;
    });
    return opening;
  }, [engine]);

  useEffect(() => {
    openSession().catch(() => {});
  }, [openSession]);

  const runQuery = useCallback(async () => {
    const view = viewRef.current;
    if (!view || running || resetting) return;
    const query = view.state.doc.toString();
    historyRef.current = remember(historyRef.current, query);
    const generation = ++generationRef.current;
    setRunning(true);
    setStatus('Running…');
    let next: Outcome;
    try {
      const session = await openSession();
      next = { kind: 'done', result: await runScript(session, query) };
    } catch (error) {
      next = toOutcome(error, query);
      if (error instanceof EngineGoneError) sessionRef.current = null;
    }
    if (generation !== generationRef.current) return;
    setOutcome(next);
    setStatus(statusFor(next));
    setRunning(false);
    setFinishedRuns((count) => count + 1);
  }, [openSession, running, resetting]);

  useEffect(() => {
    runRef.current = () => void runQuery();
  }, [runQuery]);

  useEffect(() => {
    setRootData({ runs: String(finishedRuns) });
  }, [finishedRuns, setRootData]);

  const reset = useCallback(async () => {
    const generation = ++generationRef.current;
    sessionRef.current = null;
    setRunning(false);
    setResetting(true);
    setOutcome(null);
    setStatus('Restarting PostgreSQL…');
    await restart();
    try {
      await openSession();
      if (generation === generationRef.current) setStatus('Engine restarted: a fresh database.');
    } catch {
      if (generation === generationRef.current) {
        setStatus('The engine restarted, but no session could be opened. Try Reset again.');
      }
    } finally {
      setResetting(false);
    }
  }, [openSession, restart]);

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
        doc: STARTING_SQL,
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

  const busy = running || resetting;
  const liveStatus = state === 'loading' ? `Restarting: ${describeProgress(progress)}` : status;

  return (
    <div className="console">
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
            if (!resetting) void reset();
          }}
        >
          Reset
        </button>
        {running ? <span className="console-running">Running…</span> : null}
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
        {outcome ? <OutcomeView outcome={outcome} /> : null}
      </div>
      {outcome ? <NoticesView outcome={outcome} /> : null}
    </div>
  );
}

function toOutcome(error: unknown, query: string): Outcome {
  if (error instanceof PgError) {
    return { kind: 'pg-error', query, error: error.toFields(), partial: error.partial };
  }
  if (error instanceof EngineGoneError) return { kind: 'gone', message: error.message };
  return { kind: 'unexpected' };
}

function statusFor(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'done':
      return summarise(outcome.result);
    case 'pg-error':
      return summariseError(outcome.error);
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

function ResultList({ results }: { results: StatementResult[] }) {
  return (
    <>
      {results.map((result, index) => (
        <ResultView key={index} result={result} index={index} />
      ))}
    </>
  );
}

function ResultView({ result, index }: { result: StatementResult; index: number }) {
  const tag = commandTag(result);
  const shown = result.rows.slice(0, ROW_LIMIT);
  return (
    <div className="result">
      <p className="command-tag">{tag}</p>
      {result.fields.length > 0 ? (
        <div
          className="table-scroll"
          tabIndex={0}
          role="group"
          aria-label={`Rows of statement ${index + 1}`}
        >
          <table aria-label={`Statement ${index + 1}: ${tag}`}>
            <thead>
              <tr>
                {result.fields.map((field, column) => (
                  <th key={column} scope="col">
                    {field.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((row, rowIndex) => (
                <tr key={rowIndex}>
                  {result.fields.map((_field, column) => {
                    const value = row[column];
                    return (
                      <td key={column}>
                        {value === null ? <span className="null">NULL</span> : (value ?? '')}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {result.rows.length > ROW_LIMIT ? (
        <p className="row-limit">
          Showing the first {ROW_LIMIT} of {result.rows.length} rows.
        </p>
      ) : null}
    </div>
  );
}

function ErrorView({ query, error }: { query: string; error: PgErrorFields }) {
  const pointer = useMemo(
    () => (error.position === undefined ? null : locateErrorPosition(query, error.position)),
    [query, error.position],
  );
  const lines = [`${error.severity}:  ${error.message}`];
  if (pointer) lines.push(...formatErrorPointer(pointer));
  lines.push(...messageLines(error.severity, error).slice(1), `SQLSTATE: ${error.code}`);
  return (
    <div className="console-error" role="region" aria-label="Error">
      <pre tabIndex={0}>{lines.join('\n')}</pre>
    </div>
  );
}

function NoticesView({ outcome }: { outcome: Outcome }) {
  const notices =
    outcome.kind === 'done'
      ? outcome.result.notices
      : outcome.kind === 'pg-error'
        ? outcome.partial.notices
        : [];
  if (notices.length === 0) return null;
  return (
    <div className="console-notices" role="region" aria-label="Notices">
      <p className="panel-title">Notices</p>
      {notices.map((notice, index) => (
        <pre key={index} className="notice">
          {noticeText(notice)}
        </pre>
      ))}
    </div>
  );
}
