// The snippet a teacher copies, with the embed's address and a Copy button.
import { useId, useState } from 'react';

export function Snippet({ snippet, src }: { snippet: string; src: string }) {
  // What copying said, for the snippet it copied: a changed snippet has not been copied.
  const [status, setStatus] = useState<{ snippet: string; text: string } | null>(null);
  const id = useId();
  const copy = () =>
    navigator.clipboard.writeText(snippet).then(
      () => setStatus({ snippet, text: 'Copied.' }),
      () => setStatus({ snippet, text: 'Copying failed: select the snippet and copy it by hand.' }),
    );
  return (
    <section className="builder-snippet" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>The snippet</h3>
      <p>
        The embed’s address: <a href={src}>{src}</a>
      </p>
      <pre className="snippet" tabIndex={0} aria-labelledby={`${id}-h`}>
        <code data-snippet>{snippet}</code>
      </pre>
      <p>
        <button type="button" className="button-primary" onClick={() => void copy()}>
          Copy the snippet
        </button>{' '}
        <span role="status">{status?.snippet === snippet ? status.text : ''}</span>
      </p>
    </section>
  );
}
