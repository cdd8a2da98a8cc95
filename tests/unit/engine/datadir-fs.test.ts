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

/** Where PGlite keeps the data directory in its file system. */
const dataDir = '/pglite/data';

/** What of Emscripten's file system the test reads. */
interface EmscriptenFs {
  readFile(path: string): Uint8Array;
  stat(path: string): { mode: number; mtime: Date };
  isDir(mode: number): boolean;
  readdir(path: string): string[];
}

/**
 * What a worker boots from, with the data directory as `dataDir`: gzipped, as a Blob (as
 * Node hands it over), or plain, as bytes (as the browser does).
 */
async function artifacts(dataDir: Uint8Array<ArrayBuffer>) {
  const [wasm, fsBundle] = await Promise.all([
    readFile(require.resolve('@electric-sql/pglite/pglite.wasm')),
    readFile(require.resolve('@electric-sql/pglite/pglite.data')),
  ]);
  return {
    wasmModule: await WebAssembly.compile(wasm),
    fsBundle: new Blob([fsBundle]),
    dataDir: isGzip(dataDir) ? new Blob([dataDir]) : dataDir.slice().buffer,
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

  it('puts each file of the archive in the file system with its bytes and modification time', async () => {
    const db = await bootPglite(await artifacts(tar));
    dbs.push(db);
    const fs = (db as unknown as { mod: { FS: EmscriptenFs } }).mod.FS;
    const entries = readTar(tar);
    // Files PostgreSQL reads as it starts but does not write.
    for (const path of ['PG_VERSION', 'postgresql.conf', 'pg_hba.conf', 'base/5/PG_VERSION']) {
      const entry = entries.find((e) => e.path === path)!;
      const file = `${dataDir}/${path}`;
      expect(fs.readFile(file)).toEqual(entry.data);
      expect(fs.stat(file).mtime.getTime()).toBe(entry.mtime * 1000);
    }
    expect(fs.isDir(fs.stat(`${dataDir}/base/5`).mode)).toBe(true);
    expect(fs.readdir(`${dataDir}/base`).sort()).toEqual(
      [
        '.',
        '..',
        ...entries.filter((e) => /^base\/[^/]+$/.test(e.path)).map((e) => e.path.slice(5)),
      ].sort(),
    );
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
