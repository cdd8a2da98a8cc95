// Your own scenario (`/lab/scenario/`): write one in the built-in scenarios' format (from
// a template or a copy of a built-in one), see its problems with their lines, play it in
// the step-through player, check every run in the browser, and get a link that carries
// it in its fragment. The text is kept in this browser as it is typed, so nothing is lost.
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { Scenario } from '../scenario/schema';
import ScenarioPlayer from './ScenarioPlayer';
import { decodeScenarioLink, describeLinkProblem } from './scenario-link';
import { readScenarioSource, scenarioIdFor } from './scenario-source';
import { DryRunPanel } from './scenario-lab/DryRunPanel';
import type { RunResult } from './scenario-lab/dry-run';
import { LinkPanel, type CheckState } from './scenario-lab/LinkPanel';
import { SourceEditor, type SourceEditorApi } from './scenario-lab/SourceEditor';
import templateText from './scenario-lab/template.yaml?raw';
import '../styles/lab-scenario.css';

/** Where the text is kept between visits. */
const DRAFT_KEY = 'seat-ledger:lab-scenario';

/** The built-in scenarios' files, each loaded when the reader asks for a copy. */
const builtInFiles = import.meta.glob<string>('../../content/scenarios/*.yaml', {
  query: '?raw',
  import: 'default',
});

type Mode =
  | { kind: 'edit' }
  | { kind: 'play'; scenario: Scenario; key: number }
  | { kind: 'check'; scenario: Scenario; source: string; key: number };

export function ScenarioLab({ builtIns }: { builtIns: { id: string; title: string }[] }) {
  const [start, setStart] = useState<{ text: string; note: string | null } | null>(null);
  useEffect(() => {
    void firstText().then(setStart);
  }, []);
  if (!start)
    return (
      <p className="lab-loading" role="status">
        Reading your scenario…
      </p>
    );
  return <LabBody builtIns={builtIns} initial={start.text} note={start.note} />;
}

export default ScenarioLab;

/** The text the lab opens with: a link's, the draft kept in this browser, or the template. */
async function firstText(): Promise<{ text: string; note: string | null }> {
  let draft: string | null = null;
  try {
    draft = localStorage.getItem(DRAFT_KEY);
  } catch {
    // storage refused: the template it is
  }
  const fallback = draft ?? templateText;
  if (!/(^#|&)s=/.test(location.hash)) return { text: fallback, note: null };
  const read = await decodeScenarioLink(location.hash);
  if (read.ok) return { text: read.source, note: 'Opened from the link.' };
  return {
    text: fallback,
    note: `${describeLinkProblem(read.problem)} ${draft ? 'Your last text is here instead.' : 'The template is here instead.'}`,
  };
}

function LabBody({
  builtIns,
  initial,
  note,
}: {
  builtIns: { id: string; title: string }[];
  initial: string;
  note: string | null;
}) {
  const ids = useId();
  const editorRef = useRef<SourceEditorApi>(null);
  const [text, setText] = useState(initial);
  const [mode, setMode] = useState<Mode>({ kind: 'edit' });
  const [checked, setChecked] = useState<{ source: string; results: RunResult[] } | null>(null);
  const [copyFrom, setCopyFrom] = useState('template');
  const [loadNote, setLoadNote] = useState<string | null>(note);
  const keyRef = useRef(0);

  const reading = useMemo(() => readScenarioSource(text, scenarioIdFor(text)), [text]);
  const problemLines = useMemo(
    () => (reading.ok ? [] : reading.problems.flatMap((p) => (p.line ? [p.line] : []))),
    [reading],
  );

  // The draft follows the text, so a reload or a closed tab loses nothing.
  useEffect(() => {
    const timer = setTimeout(() => {
      try {
        localStorage.setItem(DRAFT_KEY, text);
      } catch {
        // storage refused: the text lasts as long as the page
      }
    }, 400);
    return () => clearTimeout(timer);
  }, [text]);

  const load = useCallback(async () => {
    const source =
      copyFrom === 'template'
        ? templateText
        : await Object.entries(builtInFiles)
            .find(([file]) => file.endsWith(`/${copyFrom}.yaml`))?.[1]()
            .catch(() => null);
    if (!source) {
      setLoadNote('That scenario could not be loaded; your text is as it was.');
      return;
    }
    editorRef.current?.replace(source);
    setLoadNote(
      `${copyFrom === 'template' ? 'The template' : `A copy of “${builtIns.find((b) => b.id === copyFrom)?.title}”`} replaced your text. Ctrl+Z (⌘+Z) in the editor brings yours back.`,
    );
  }, [copyFrom, builtIns]);

  const play = () => {
    if (reading.ok) setMode({ kind: 'play', scenario: reading.scenario, key: ++keyRef.current });
  };
  const check = () => {
    if (reading.ok)
      setMode({
        kind: 'check',
        scenario: checkCopy(reading.scenario),
        source: text,
        key: ++keyRef.current,
      });
  };
  const checkState: CheckState =
    checked?.source !== text
      ? 'unchecked'
      : checked.results.every((r) => r.outcome.kind === 'truthful')
        ? 'truthful'
        : 'problems';

  return (
    <div className="lab-scenario">
      <section aria-labelledby={`${ids}-write`}>
        <h2 id={`${ids}-write`}>Write it</h2>
        <div className="lab-start">
          <label htmlFor={`${ids}-from`}>Start from</label>
          <select id={`${ids}-from`} value={copyFrom} onChange={(e) => setCopyFrom(e.target.value)}>
            <option value="template">the template (two sessions, one row)</option>
            {builtIns.map((b) => (
              <option key={b.id} value={b.id}>
                a copy of “{b.title}”
              </option>
            ))}
          </select>
          <button type="button" onClick={() => void load()}>
            Load it
          </button>
        </div>
        {loadNote ? (
          <p className="lab-note" role="status">
            {loadNote}
          </p>
        ) : null}
        <p className="hint" id={`${ids}-editor-hint`}>
          YAML, indented with spaces. Every field is the built-in scenarios’ (described in
          src/scenario/schema.ts). Escape, then Tab, leaves the editor.
        </p>
        <SourceEditor
          ref={editorRef}
          initial={initial}
          onChange={setText}
          lines={problemLines}
          describedBy={`${ids}-editor-hint`}
        />
        <div className="lab-problems" role="region" aria-label="Problems" aria-live="polite">
          {reading.ok ? (
            <p className="lab-ok">
              No problems: “{reading.scenario.title}” has {reading.scenario.sessions.length}{' '}
              sessions and {reading.scenario.steps.length} steps.
            </p>
          ) : (
            <>
              <p>
                {reading.problems.length === 1
                  ? 'One problem'
                  : `${reading.problems.length} problems`}{' '}
                to fix before it can play:
              </p>
              <ul>
                {reading.problems.map((p, i) => (
                  <li key={i}>
                    {p.line ? (
                      <button
                        type="button"
                        className="lab-line"
                        onClick={() => editorRef.current?.goTo(p.line!)}
                      >
                        Line {p.line}
                      </button>
                    ) : null}{' '}
                    {p.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
        <div className="lab-actions">
          <button
            type="button"
            className="button-primary"
            aria-disabled={!reading.ok || undefined}
            onClick={play}
          >
            {mode.kind === 'play' ? 'Play it again, as it is now' : 'Play it here'}
          </button>
          <button type="button" aria-disabled={!reading.ok || undefined} onClick={check}>
            Check every step in the browser
          </button>
          {mode.kind !== 'edit' ? (
            <button type="button" onClick={() => setMode({ kind: 'edit' })}>
              Close the {mode.kind === 'play' ? 'player' : 'check'}
            </button>
          ) : null}
        </div>
      </section>

      {mode.kind === 'check' ? (
        <section aria-labelledby={`${ids}-check`}>
          <h2 id={`${ids}-check`}>Check in the browser</h2>
          <p>
            Every run (each combination of the choices) is played on PostgreSQL 18 in your browser,
            so you know before you share which step, if any, the browser cannot show truthfully, and
            why.
          </p>
          <DryRunPanel
            key={mode.key}
            scenario={mode.scenario}
            onDone={(results) => setChecked({ source: mode.source, results })}
          />
        </section>
      ) : null}

      {mode.kind === 'play' ? (
        <section aria-labelledby={`${ids}-play`}>
          <h2 id={`${ids}-play`}>Play it</h2>
          <ScenarioPlayer key={mode.key} demo="scenario" scenario={mode.scenario} heading />
        </section>
      ) : null}

      <section aria-labelledby={`${ids}-share`}>
        <h2 id={`${ids}-share`}>Share it</h2>
        <LinkPanel
          source={reading.ok ? text : null}
          title={reading.ok ? reading.scenario.title : ''}
          check={checkState}
        />
      </section>
    </div>
  );
}

/** The scenario under an id of its own for the check, apart from the player's tables. */
function checkCopy(scenario: Scenario): Scenario {
  return { ...scenario, id: scenario.id.replace(/^custom-/, 'check-') };
}
