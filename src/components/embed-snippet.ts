// The HTML a teacher pastes to embed a demo: an iframe, and a few lines of script that set
// its height from the demo's `seat-ledger:resize` messages. The script listens only to its
// own iframe (`event.source`), reads only the message type it knows, and keeps the height
// within bounds, so a misbehaving frame cannot make the page around it absurdly tall.
// (Kept out of .astro frontmatter: Vite's dependency scan reads a script tag in there as code.)
import { sitePath } from './site-url';
import { paramsSearch, type ParamSpec, type ParamValues } from './url-params';

/** The heights the snippet allows its iframe, in CSS pixels. */
export const snippetBounds = { min: 240, max: 4000 } as const;

/** What the snippet embeds. */
export interface SnippetOptions {
  /** The embed's address, absolute once the page knows where it is served from. */
  src: string;
  /** The demo's title; the iframe's accessible name. */
  title: string;
  /** Its height before the demo reports one. */
  height: number;
  /** Adds `sandbox="allow-scripts allow-same-origin"`, for pages that sandbox what they embed. */
  sandbox?: boolean;
}

/** The embed's path for `values` of `specs`: `/embed/counter/?workers=30`. */
export function embedPath(id: string, specs: readonly ParamSpec[], values: ParamValues): string {
  const search = paramsSearch(specs, values);
  return sitePath(`embed/${id}/${search ? `?${search}` : ''}`);
}

/** The snippet's HTML. */
export function embedSnippet({ src, title, height, sandbox = false }: SnippetOptions): string {
  const { min, max } = snippetBounds;
  return [
    `<iframe src="${escapeAttribute(src)}" title="${escapeAttribute(title)} (Seat &amp; Ledger)"`,
    `  width="100%" height="${height}" style="width:100%;border:0" loading="lazy"`,
    `  allow="clipboard-write"${sandbox ? ' sandbox="allow-scripts allow-same-origin"' : ''}></iframe>`,
    `<script>`,
    `  (function (frame) {`,
    `    addEventListener('message', function (event) {`,
    `      var data = event.data;`,
    `      if (event.source !== frame.contentWindow || !data) return;`,
    `      if (data.type !== 'seat-ledger:resize' || typeof data.height !== 'number') return;`,
    `      if (!(data.height > 0)) return;`,
    `      var height = Math.min(${max}, Math.max(${min}, Math.ceil(data.height)));`,
    `      frame.style.height = height + 'px';`,
    `    });`,
    `  })(document.currentScript.previousElementSibling);`,
    `</` + `script>`,
  ].join('\n');
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
