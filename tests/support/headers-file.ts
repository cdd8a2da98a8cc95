// Reads dist/_headers as Netlify and Cloudflare Pages apply it, so browser tests serve the
// site with the headers a host would send: every rule whose path matches (`*` matches
// anything, nothing included) adds its headers, and values of one name are joined by ", ".
import { readFileSync } from 'node:fs';

interface Rule {
  path: RegExp;
  headers: [string, string][];
}

/** The rules of a _headers file. */
export function parseHeadersFile(text: string): Rule[] {
  const rules: Rule[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (!/^\s/.test(line)) {
      const pattern = line
        .trim()
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
      rules.push({ path: new RegExp(`^${pattern.join('.*')}$`), headers: [] });
      continue;
    }
    const colon = line.indexOf(':');
    const rule = rules.at(-1);
    if (!rule || colon < 0) throw new Error(`_headers: cannot read the line ${line.trim()}`);
    rule.headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return rules;
}

/** The headers `rules` give the request path `path`, names in lower case. */
export function headersFor(rules: Rule[], path: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const rule of rules.filter((r) => r.path.test(path))) {
    for (const [name, value] of rule.headers) {
      found[name] = found[name] === undefined ? value : `${found[name]}, ${value}`;
    }
  }
  return found;
}

/** The rules of the built site's _headers. */
export function builtHeaders(file: string): Rule[] {
  return parseHeadersFile(readFileSync(file, 'utf8'));
}
