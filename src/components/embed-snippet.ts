import { sitePath } from './site-url';

/**
 * The HTML a teacher pastes to embed demo `id`: an iframe, plus a listener that lets each
 * embedded demo set its iframe's height from its `seat-ledger:resize` messages.
 * (Kept out of .astro frontmatter: Vite's dependency scan reads a script tag in there as code.)
 */
export function embedSnippet(id: string, title: string, height: number): string {
  return [
    `<iframe src="${sitePath(`embed/${id}/`)}" title="${title} (Seat & Ledger)"`,
    `  data-seat-ledger width="100%" height="${height}" style="border:0" loading="lazy"></iframe>`,
    `<script>`,
    `  addEventListener('message', (event) => {`,
    `    const data = event.data;`,
    `    if (!data || data.type !== 'seat-ledger:resize') return;`,
    `    for (const frame of document.querySelectorAll('iframe[data-seat-ledger]')) {`,
    `      if (frame.contentWindow === event.source) frame.style.height = data.height + 'px';`,
    `    }`,
    `  });`,
    `</` + `script>`,
  ].join('\n');
}
