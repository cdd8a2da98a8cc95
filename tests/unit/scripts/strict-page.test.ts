import { describe, expect, it } from 'vitest';
import { headersFile, policyFirst } from '../../../scripts/strict-page';
import { headersFor, parseHeadersFile } from '../../support/headers-file';

const policy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";
const pages = [
  'index.html',
  '404.html',
  'lab/index.html',
  'lab/counter/index.html',
  'embed/console/index.html',
];

describe('policyFirst', () => {
  it('moves the policy right after <meta charset>, ahead of the theme script', () => {
    const html =
      '<html><head><meta charset="utf-8"><title>t</title><script>theme()</script>' +
      `<meta http-equiv="content-security-policy" content="${policy}"></head></html>`;
    expect(policyFirst(html)).toBe(
      `<html><head><meta charset="utf-8"><meta http-equiv="content-security-policy" content="${policy}"><title>t</title><script>theme()</script></head></html>`,
    );
  });
});

describe('headersFile', () => {
  it('sends the policy everywhere, and frame-ancestors on every page but the embeds, under the base path', () => {
    const rules = parseHeadersFile(headersFile(policy, '/seat-ledger/', pages));
    const csp = (path: string) => headersFor(rules, path)['content-security-policy'];
    for (const path of [
      '/seat-ledger/',
      '/seat-ledger/lab/',
      '/seat-ledger/lab/counter/',
      '/seat-ledger/404.html',
    ]) {
      expect(csp(path)).toBe(`${policy}, frame-ancestors 'self'`);
    }
    expect(csp('/seat-ledger/embed/console/')).toBe(policy);
    expect(headersFor(rules, '/seat-ledger/_astro/pglite.abc.wasm')['content-type']).toBe(
      'application/wasm',
    );
  });

  it('lets files named by their content be cached for good, and has pages and sw.js asked for again', () => {
    const rules = parseHeadersFile(headersFile(policy, '/seat-ledger/', pages));
    const cache = (path: string) => headersFor(rules, path)['cache-control'];
    for (const path of [
      '/seat-ledger/_astro/pglite.abc.wasm',
      '/seat-ledger/_astro/Console.abc.js',
      '/seat-ledger/engine/pgdata.tar.gz',
    ]) {
      expect(cache(path)).toBe('public, max-age=31536000, immutable');
    }
    for (const path of [
      '/seat-ledger/',
      '/seat-ledger/lab/counter/',
      '/seat-ledger/404.html',
      '/seat-ledger/embed/console/',
      '/seat-ledger/sw.js',
    ]) {
      expect(cache(path)).toBe('no-cache');
    }
  });
});
