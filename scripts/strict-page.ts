// An Astro integration for the strict page, run after the build:
// - moves each page's Content-Security-Policy <meta> to the top of its <head>: Astro
//   writes it where the head ends, after the theme script, and a <meta> policy governs
//   only what comes after it;
// - checks every page carries the same policy, so that a host can send it as one header;
// - writes dist/_headers (the format Netlify and Cloudflare Pages read): that policy as a
//   header, plus `frame-ancestors 'self'` on every page but the embeds, which any site
//   may frame, the engine files' content types, and how long each file may be cached.
//   README: "Headers a host should send".
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';

const policyMeta = /<meta http-equiv="content-security-policy" content="([^"]*)">/;
const charset = '<meta charset="utf-8">';

/** Moves the policy right after `<meta charset>`, which must stay in the first 1024 bytes. */
export function policyFirst(html: string): string {
  const meta = html.match(policyMeta)?.[0];
  if (!meta || !html.includes(charset)) return html;
  return html.replace(meta, '').replace(charset, `${charset}${meta}`);
}

/** The attribute text of a <meta> as the policy it stands for. */
function unescape(content: string): string {
  return content.replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&');
}

/** For a file whose address carries a hash of its content (`_astro/`, the data directory's `?v=`). */
const keepForGood = 'Cache-Control: public, max-age=31536000, immutable';
/** For what changes under the same address (pages, sw.js): the browser asks again each time. */
const askAgain = 'Cache-Control: no-cache';

/** The headers of files other than pages, by path below the base. */
const fileRules: [string, string[]][] = [
  ['sw.js', [askAgain]],
  ['_astro/*', [keepForGood]],
  ['_astro/*.wasm', ['Content-Type: application/wasm']],
  ['_astro/*.data', ['Content-Type: application/octet-stream']],
  ['engine/*.tar.gz', ['Content-Type: application/gzip', keepForGood]],
];

/** dist/_headers for `policy`, with `pages` (paths below the base) kept from other sites' frames. */
export function headersFile(policy: string, base: string, pages: string[]): string {
  const pageRules = new Map<string, string[]>();
  for (const page of pages) {
    const [top, ...rest] = page.split('/');
    const path = rest.length > 0 ? `${top}/*` : top === 'index.html' ? '' : top!;
    const framed = top === 'embed' ? [] : ["Content-Security-Policy: frame-ancestors 'self'"];
    pageRules.set(path, [...framed, askAgain]);
  }
  const rule = (path: string, ...headers: string[]) =>
    `${base}${path}\n${headers.map((header) => `  ${header}\n`).join('')}`;
  return [
    '# The headers a host should send (README, "Headers a host should send"), in the\n',
    '# _headers format of Netlify and Cloudflare Pages. Written by `npm run build`.\n',
    rule('*', `Content-Security-Policy: ${policy}`),
    ...[...pageRules]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([path, headers]) => rule(path, ...headers)),
    ...fileRules.map(([path, headers]) => rule(path, ...headers)),
  ].join('');
}

export function strictPage(): AstroIntegration {
  let base = '/';
  return {
    name: 'seat-ledger:strict-page',
    hooks: {
      'astro:config:done': ({ config }) => {
        base = config.base.endsWith('/') ? config.base : `${config.base}/`;
      },
      'astro:build:done': async ({ dir }) => {
        const root = fileURLToPath(dir);
        const pages = (await readdir(root, { recursive: true }))
          .filter((name) => name.endsWith('.html'))
          .map((name) => name.split(sep).join('/'));
        const policies = new Set<string>();
        for (const page of pages) {
          const file = join(root, page);
          const html = await readFile(file, 'utf8');
          const content = html.match(policyMeta)?.[1];
          if (content === undefined) throw new Error(`${page}: no Content-Security-Policy`);
          policies.add(unescape(content));
          const moved = policyFirst(html);
          if (moved !== html) await writeFile(file, moved);
        }
        if (policies.size !== 1) {
          throw new Error(`pages carry ${policies.size} different policies; one header needs one`);
        }
        await writeFile(join(root, '_headers'), headersFile([...policies][0]!, base, pages));
      },
    },
  };
}
