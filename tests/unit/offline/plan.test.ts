import { describe, expect, it } from 'vitest';
import { cacheNames, routeFor, staleCaches, type OfflineManifest } from '../../../src/offline/plan';

const manifest: OfflineManifest = {
  base: '/seat-ledger/',
  siteVersion: 'aaaa',
  engineVersion: 'eeee',
  site: [
    '/seat-ledger/',
    '/seat-ledger/404.html',
    '/seat-ledger/lab/',
    '/seat-ledger/embed/counter/',
    '/seat-ledger/_astro/Console.abc.js',
  ],
  engine: ['/seat-ledger/_astro/pglite.x1.wasm', '/seat-ledger/engine/pgdata.tar.gz?v=1234'],
};
const origin = 'https://example.org';
const route = (path: string, mode = 'cors', method = 'GET') =>
  routeFor(manifest, new URL(path, origin), method, mode, origin);

describe('routeFor', () => {
  it('answers a page from the network first, with or without a demo’s parameters', () => {
    expect(route('/seat-ledger/embed/counter/?workers=30', 'navigate')).toEqual({
      kind: 'page',
      key: '/seat-ledger/embed/counter/',
    });
    expect(route('/seat-ledger/lab', 'navigate')).toEqual({
      kind: 'page',
      key: '/seat-ledger/lab/',
    });
    expect(route('/seat-ledger/', 'navigate')).toEqual({ kind: 'page', key: '/seat-ledger/' });
  });

  it('answers this build’s hashed files from the cache, and passes others by', () => {
    expect(route('/seat-ledger/_astro/Console.abc.js')).toEqual({
      kind: 'site',
      key: '/seat-ledger/_astro/Console.abc.js',
    });
    expect(route('/seat-ledger/_astro/Console.old.js')).toEqual({ kind: 'pass' });
    expect(route('/seat-ledger/oembed/counter.json')).toEqual({ kind: 'pass' });
  });

  it('keeps the engine’s files by their exact address, version and all', () => {
    expect(route('/seat-ledger/engine/pgdata.tar.gz?v=1234')).toEqual({
      kind: 'engine',
      key: '/seat-ledger/engine/pgdata.tar.gz?v=1234',
    });
    expect(route('/seat-ledger/engine/pgdata.tar.gz?v=9999')).toEqual({ kind: 'pass' });
    expect(route('/seat-ledger/_astro/pglite.x1.wasm').kind).toBe('engine');
  });

  it('leaves other origins, other methods and paths outside the base to the browser', () => {
    expect(
      routeFor(
        manifest,
        new URL('https://other.example/seat-ledger/lab/'),
        'GET',
        'navigate',
        origin,
      ),
    ).toEqual({ kind: 'pass' });
    expect(route('/seat-ledger/lab/', 'navigate', 'POST')).toEqual({ kind: 'pass' });
    expect(route('/elsewhere/', 'navigate')).toEqual({ kind: 'pass' });
  });

  it('tells a page it does not have from one it has', () => {
    expect(route('/seat-ledger/no-such-page/', 'navigate')).toEqual({ kind: 'unknown-page' });
  });
});

describe('caches', () => {
  it('names a build’s caches by its base and versions, and deletes only its own old ones', () => {
    const names = cacheNames(manifest);
    expect(names.site).toBe('seat-ledger /seat-ledger/ site aaaa');
    expect(names.engine).toBe('seat-ledger /seat-ledger/ engine eeee');
    expect(
      staleCaches(manifest, [
        names.site,
        names.engine,
        'seat-ledger /seat-ledger/ site old1',
        'seat-ledger /seat-ledger/ engine old2',
        'seat-ledger / site another-site-on-this-origin',
        'someone else',
      ]),
    ).toEqual(['seat-ledger /seat-ledger/ site old1', 'seat-ledger /seat-ledger/ engine old2']);
  });
});
