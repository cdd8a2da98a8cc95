// The prepared PostgreSQL data directory every PGlite engine starts from, so that no
// engine runs initdb: loading a dumped directory is several times faster than a fresh
// start. Node only. It lands in public/engine/, which the site serves as it is; Node
// engines build it themselves when it is missing, so no command needs a prior step.
// Imports carry their extension: scripts/build-datadir.ts runs this without a bundler.
import { PGlite } from '@electric-sql/pglite';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import { engineStartParams } from './settings.ts';
import { simSchemaSql } from './sim-schema.ts';

const root = new URL('../../../', import.meta.url);
const outDir = fileURLToPath(new URL('public/engine/', root));

/** Where the prepared data directory is, as a gzipped tar. */
export const dataDirPath = fileURLToPath(new URL('public/engine/pgdata.tar.gz', root));
const stampPath = fileURLToPath(new URL('public/engine/pgdata.version', root));

/** What `ensureDataDir` found or did. */
export type DataDirReport =
  | { built: false; path: string; pgliteVersion: string }
  | { built: true; path: string; pgliteVersion: string; bytes: number; ms: number };

/** The version the directory is built for: PGlite's, and the sim schema's hash. */
async function currentVersion(): Promise<{ pgliteVersion: string; version: string }> {
  const manifest = new URL('node_modules/@electric-sql/pglite/package.json', root);
  const { version: pgliteVersion } = JSON.parse(await readFile(manifest, 'utf8')) as {
    version: string;
  };
  const schema = createHash('sha256').update(simSchemaSql).digest('hex').slice(0, 12);
  return { pgliteVersion, version: `${pgliteVersion} ${schema}` };
}

/** Runs initdb with the sim schema and dumps the result, gzipped. */
async function build(): Promise<Blob> {
  const db = await PGlite.create({
    // 1 MB WAL segments instead of 16 MB: the dump carries whole segments.
    initDbStartParams: ['--wal-segsize=1'],
    startParams: engineStartParams,
  });
  await db.exec(simSchemaSql);
  await db.exec('CHECKPOINT');
  // initdb leaves recycled segments ahead of the current one; PostgreSQL never needs
  // them (it makes new ones when it gets there), and each costs a megabyte in the dump.
  const { rows } = await db.query<{ dir: string; current: string }>(
    `SELECT current_setting('data_directory') AS dir,
            pg_walfile_name(pg_current_wal_lsn()) AS current`,
  );
  const { dir, current } = rows[0]!;
  const { rows: files } = await db.query<{ name: string }>(
    `SELECT name FROM pg_ls_waldir() WHERE name > $1 AND length(name) = 24`,
    [current],
  );
  // `mod` is PGlite's Emscripten module; its FS is the only way to delete a file here.
  const fs = (db as unknown as { mod: { FS: { unlink(path: string): void } } }).mod.FS;
  for (const { name } of files) fs.unlink(`${dir}/pg_wal/${name}`);
  const dump = await db.dumpDataDir('gzip');
  await db.close();
  return dump;
}

/** Writes `data` to `path` through a temporary file, so no reader sees half of it. */
async function writeWhole(path: string, data: string | Uint8Array): Promise<void> {
  const temporary = `${path}.${process.pid}-${threadId}.tmp`;
  await writeFile(temporary, data);
  await rename(temporary, path);
}

let ensured: Promise<DataDirReport> | undefined;

/**
 * Builds the prepared data directory unless it is there and current for this PGlite
 * and sim schema; once per process. Test files running side by side may each build it:
 * every write replaces whole files, so the last one wins and none is read half-written.
 */
export function ensureDataDir(): Promise<DataDirReport> {
  ensured ??= (async (): Promise<DataDirReport> => {
    const { pgliteVersion, version } = await currentVersion();
    const stamp = existsSync(stampPath) ? await readFile(stampPath, 'utf8') : undefined;
    if (existsSync(dataDirPath) && stamp === version) {
      return { built: false, path: dataDirPath, pgliteVersion };
    }
    const started = performance.now();
    const dump = await build();
    await mkdir(outDir, { recursive: true });
    await writeWhole(dataDirPath, new Uint8Array(await dump.arrayBuffer()));
    await writeWhole(stampPath, version);
    const ms = Math.round(performance.now() - started);
    return { built: true, path: dataDirPath, pgliteVersion, bytes: dump.size, ms };
  })();
  ensured.catch(() => (ensured = undefined)); // a failed build may be tried again
  return ensured;
}
