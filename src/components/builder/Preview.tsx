// The embed builder's live preview: the embed as configured, in an iframe that reloads as
// the form changes and is sized from its resize messages by the snippet's own rule.
import { useEffect, useRef, useState } from 'react';
import type { EmbedMessage } from '../embed-messages';
import { snippetBounds } from '../embed-snippet';

/** How long the preview waits after the last change before it reloads. */
const PREVIEW_DELAY_MS = 600;

/**
 * The embed as configured, in an iframe that follows the form, sized by the same rule as
 * the snippet's. Shown on request: it starts a PostgreSQL of its own.
 */
export function Preview({
  src,
  title,
  height,
  sandbox,
}: {
  src: string;
  title: string;
  height: number;
  sandbox: boolean;
}) {
  const [shown, setShown] = useState(false);
  const [frameSrc, setFrameSrc] = useState(src);
  const [frameHeight, setFrameHeight] = useState(height);
  const frameRef = useRef<HTMLIFrameElement>(null);

  useEffect(() => {
    if (src === frameSrc) return;
    const timer = setTimeout(() => setFrameSrc(src), PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [src, frameSrc]);

  useEffect(() => {
    if (!shown) return;
    const onMessage = (event: MessageEvent<Partial<EmbedMessage>>) => {
      const data = event.data;
      if (event.source !== frameRef.current?.contentWindow || data?.type !== 'seat-ledger:resize')
        return;
      if (typeof data.height !== 'number' || !(data.height > 0)) return;
      setFrameHeight(
        Math.min(snippetBounds.max, Math.max(snippetBounds.min, Math.ceil(data.height))),
      );
    };
    addEventListener('message', onMessage);
    return () => removeEventListener('message', onMessage);
  }, [shown]);

  return (
    <section className="builder-preview" aria-label="Preview">
      <h3>Preview</h3>
      {shown ? (
        <>
          <p className="builder-help">
            The embed exactly as the snippet below shows it; it reloads as you change the form.
          </p>
          <iframe
            ref={frameRef}
            key={`${frameSrc} ${sandbox}`}
            src={frameSrc}
            title={`Preview: ${title}`}
            style={{ height: frameHeight }}
            allow="clipboard-write"
            {...(sandbox ? { sandbox: 'allow-scripts allow-same-origin' } : {})}
          />
          <p>
            <button type="button" onClick={() => setShown(false)}>
              Close the preview
            </button>
          </p>
        </>
      ) : (
        <p>
          <button type="button" onClick={() => setShown(true)}>
            Show the live preview
          </button>{' '}
          <span className="builder-help">It starts a PostgreSQL of its own in this tab.</span>
        </p>
      )}
    </section>
  );
}
