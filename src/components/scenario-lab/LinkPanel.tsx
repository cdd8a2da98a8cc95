// The links to a scenario of your own: to play it (and embed it) and to edit it in the
// lab, with its size against the limit, and whether it was checked in the browser as it is.
import { useEffect, useId, useState } from 'react';
import { embedSnippet } from '../embed-snippet';
import {
  describeLinkProblem,
  encodeScenarioLink,
  MAX_FRAGMENT_CHARS,
  type LinkProblem,
} from '../scenario-link';
import { sitePath } from '../site-url';

/** What the check in the browser said about the text as it is now, if it ran on it. */
export type CheckState = 'unchecked' | 'truthful' | 'problems';

export function LinkPanel({
  source,
  title,
  check,
}: {
  /** The scenario's text; null while it has problems. */
  source: string | null;
  title: string;
  check: CheckState;
}) {
  const ids = useId();
  const [link, setLink] = useState<
    { source: string; fragment: string } | { source: string; problem: LinkProblem } | null
  >(null);
  const [copied, setCopied] = useState<string | null>(null);

  // The link follows the text, a moment after the typing stops.
  useEffect(() => {
    if (source === null) return;
    let alive = true;
    const timer = setTimeout(() => {
      void encodeScenarioLink(source).then((encoded) => {
        if (!alive) return;
        setLink(
          encoded.ok
            ? { source, fragment: encoded.fragment }
            : { source, problem: encoded.problem },
        );
      });
    }, 250);
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [source]);

  if (source === null)
    return (
      <p className="lab-link-none">
        No link yet: the scenario has problems (listed above). Your text is kept in this browser
        meanwhile.
      </p>
    );
  if (!link || link.source !== source) return <p className="lab-link-none">Making the link…</p>;
  if ('problem' in link)
    return (
      <p className="lab-link-none" role="alert">
        No link: {describeLinkProblem(link.problem)} Shorten the narration, or drop steps or
        choices.
      </p>
    );

  const play = absolute(`embed/scenario/#${link.fragment}`);
  const edit = absolute(`lab/scenario/#${link.fragment}`);
  const snippet = embedSnippet({ src: play, title, height: 1200 });
  const copy = (what: string, text: string) =>
    navigator.clipboard.writeText(text).then(
      () => setCopied(`${what} copied.`),
      () => setCopied(`Copying failed: select the ${what.toLowerCase()} and copy it by hand.`),
    );

  return (
    <div className="lab-link">
      <p>
        The link holds the whole scenario, compressed, after its <code>#</code>: nothing is sent to
        a server. It is {link.fragment.length.toLocaleString('en')} of{' '}
        {MAX_FRAGMENT_CHARS.toLocaleString('en')} characters.
      </p>
      <p className={check === 'truthful' ? 'lab-checked' : 'lab-unchecked'}>
        {check === 'truthful'
          ? 'Checked in this browser as it is now: every run plays truthfully.'
          : check === 'problems'
            ? 'Checked in this browser as it is now: some runs need a look (see the check below).'
            : 'Not checked in the browser since your last change: Check it before you share.'}
      </p>
      <label htmlFor={`${ids}-play`}>Link that plays it (and embeds it)</label>
      <div className="lab-link-row">
        <input
          id={`${ids}-play`}
          type="text"
          readOnly
          value={play}
          onFocus={(e) => e.target.select()}
        />
        <button type="button" onClick={() => void copy('Link', play)}>
          Copy link
        </button>
        <a href={play} target="_blank" rel="noopener">
          Open it
        </a>
      </div>
      <label htmlFor={`${ids}-edit`}>Link that opens it here, in the lab</label>
      <div className="lab-link-row">
        <input
          id={`${ids}-edit`}
          type="text"
          readOnly
          value={edit}
          onFocus={(e) => e.target.select()}
        />
        <button type="button" onClick={() => void copy('Lab link', edit)}>
          Copy lab link
        </button>
      </div>
      <p id={`${ids}-snippet`}>Embed snippet:</p>
      <code className="snippet" tabIndex={0} role="group" aria-labelledby={`${ids}-snippet`}>
        {snippet}
      </code>
      <button type="button" onClick={() => void copy('Snippet', snippet)}>
        Copy snippet
      </button>{' '}
      <span role="status">{copied}</span>
    </div>
  );
}

function absolute(path: string): string {
  return new URL(sitePath(path), location.href).href;
}
