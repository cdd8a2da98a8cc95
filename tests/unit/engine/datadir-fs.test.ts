import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGzip, readTar } from '../../../src/engine/pglite/datadir-fs';
import { ensureDataDir } from '../../../src/engine/pglite/datadir';
import { makeBackend } from '../../../src/engine/pglite/backend';
import { bootPglite } from '../../../src/engine/pglite/serve';

const require = createRequire(import.meta.url);

/** What a worker boots from, with the data directory as `dataDir` (gzipped or not). */
async function artifacts(dataDir: Uint8Array<ArrayBuffer>) {
  const [wasm, fsBundle] = await Promise.all([
    readFile(require.resolve('@electric-sql/pglite/pglite.wasm')),
    readFile(require.resolve('@electric-sql/pglite/pglite.data')),
  ]);
  return {
    wasmModule: await WebAssembly.compile(wasm),
    fsBundle: new Blob([fsBundle]),
    dataDir: new Blob([dataDir]),
  };
}

/** The catalog as PostgreSQL lists it: every relation, with its kind, and the sim schema's. */
async function catalog(db: PGlite): Promise<unknown> {
  const backend = makeBackend(db);
  const [relations] = await backend.exec(
    `SELECT n.nspname, c.relname, c.relkind FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace ORDER BY 1, 2`,
  );
  const [databases] = await backend.exec('SELECT datname FROM pg_database ORDER BY 1');
  return { relations: relations!.rows, databases: databases!.rows };
}

describe('the prepared data directory, loaded into the file system as PostgreSQL starts', () => {
  let gzipped: Uint8Array<ArrayBuffer>;
  let tar: Uint8Array<ArrayBuffer>;
  const dbs: PGlite[] = [];

  beforeAll(async () => {
    gzipped = new Uint8Array(await readFile((await ensureDataDir()).path));
    tar = new Uint8Array(gunzipSync(gzipped));
  });
  afterAll(async () => {
    await Promise.all(dbs.map((db) => db.close()));
  });

  it('reads the tar PGlite dumped: PG_VERSION says 18, and files view the archive', () => {
    expect(isGzip(gzipped)).toBe(true);
    expect(isGzip(tar)).toBe(false);
    const entries = readTar(tar);
    const version = entries.find((e) => e.path === 'PG_VERSION');
    expect(new TextDecoder().decode(version!.data).trim()).toBe('18');
    expect(version!.data.buffer).toBe(tar.buffer);
    expect(entries.some((e) => e.kind === 'directory' && e.path === 'base')).toBe(true);
    expect(entries.some((e) => e.path === 'global/pg_control')).toBe(true);
  });

  it('refuses an archive with a damaged header or cut short', () => {
    const damaged = tar.slice();
    damaged[0] = damaged[0]! ^ 0xff;
    expect(() => readTar(damaged)).toThrow(/damaged/);
    expect(() => readTar(tar.subarray(0, 600))).toThrow(/cut short/);
  });

  it('boots the same database as PGlite’s own loadDataDir does', async () => {
    const fast = await bootPglite(await artifacts(tar));
    dbs.push(fast);
    const plain = await bootPglite(await artifacts(gzipped));
    dbs.push(plain);
    const seen = await catalog(fast);
    expect(seen).toEqual(await catalog(plain));
    expect(JSON.stringify(seen)).toContain('"sim","pg_stat_activity","v"');
  });
});
