// A scenario from a link (`/embed/scenario/#s=…`), played in the step-through player like
// any scenario demo, posting the same messages. The link is read and checked first; a
// link that is too long, changed, cut short or not a scenario says so in plain words, and
// nothing of the engine is fetched.
import { useEffect, useRef, useState } from 'react';
import type { Scenario } from '../scenario/schema';
import { postToParent } from './embed-messages';
import ScenarioPlayer from './ScenarioPlayer';
import { decodeScenarioLink, describeLinkProblem, type LinkProblem } from './scenario-link';
import { readScenarioSource, scenarioIdFor } from './scenario-source';
import { sitePath } from './site-url';

/** The demo id a scenario from a link plays under, in `data-demo` and in its messages. */
export const LINK_DEMO = 'scenario';

type State =
  | { kind: 'reading' }
  | { kind: 'ready'; scenario: Scenario }
  | { kind: 'problem'; problem: LinkProblem['kind'] | 'invalid'; words: string[] };

export function ScenarioLinkPlayer({ embed = false }: { embed?: boolean }) {
  const [state, setState] = useState<State>({ kind: 'reading' });
  useEffect(() => {
    let alive = true;
    void (async () => {
      const link = await decodeScenarioLink(location.hash);
      if (!alive) return;
      if (!link.ok) {
        setState({
          kind: 'problem',
          problem: link.problem.kind,
          words: [describeLinkProblem(link.problem)],
        });
        return;
      }
      const read = readScenarioSource(link.source, scenarioIdFor(link.source));
      if (read.ok) document.title = `${read.scenario.title} · Seat & Ledger`;
      setState(
        read.ok
          ? { kind: 'ready', scenario: read.scenario }
          : {
              kind: 'problem',
              problem: 'invalid',
              words: [
                'This link’s scenario does not pass the checks every scenario must pass:',
                ...read.problems.map((p) => (p.line ? `line ${p.line}: ${p.message}` : p.message)),
              ],
            },
      );
    })();
    return () => {
      alive = false;
    };
  }, []);

  if (state.kind === 'ready')
    return (
      <ScenarioPlayer demo={LINK_DEMO} scenario={state.scenario} embed={embed} heading followUrl />
    );
  return <LinkNotice state={state} embed={embed} />;
}

export default ScenarioLinkPlayer;

/** The reading, or what is wrong with the link; in an embed, its height for the page. */
function LinkNotice({
  state,
  embed,
}: {
  state: Exclude<State, { kind: 'ready' }>;
  embed: boolean;
}) {
  const rootRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = rootRef.current;
    if (!embed || !root) return;
    postToParent({
      type: 'seat-ledger:resize',
      demo: LINK_DEMO,
      height: Math.ceil(root.getBoundingClientRect().height),
    });
  }, [embed, state]);
  return (
    <div
      ref={rootRef}
      className="demo link-notice"
      data-demo={LINK_DEMO}
      data-engine="idle"
      data-link={state.kind === 'reading' ? 'reading' : state.problem}
    >
      {state.kind === 'reading' ? (
        <p role="status">Reading the scenario from the link…</p>
      ) : (
        <div className="demo-placeholder demo-error" role="alert">
          <p>
            <strong>This scenario cannot be played.</strong>
          </p>
          {state.words.map((w) => (
            <p key={w}>{w}</p>
          ))}
          <p>
            Nothing was started. <a href={sitePath('lab/scenario/')}>The lab</a> makes links that
            play.
          </p>
        </div>
      )}
    </div>
  );
}
