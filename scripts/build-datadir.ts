// Builds the PostgreSQL data directory the browser starts from, so no reader's browser
// runs initdb: loading a dumped directory is several times faster than a fresh start.
// Output: public/engine/pgdata.tar.gz (rebuilt only when PGlite's version changes).
import { PGlite } from '@electric-sql/pglite';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineStartParams } from '../src/engine/pglite/settings.ts';
import { simSchemaSql } from '../src/engine/pglite/sim-schema.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'public', 'engine');
const out = join(outDir, 'pgdata.tar.gz');
const stamp = join(outDir, 'pgdata.version');
const pgliteVersion = JSON.parse(
  readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
).version as string;
// Rebuilt when PGlite or the sim schema changes.
const version = `${pgliteVersion} ${createHash('sha256').update(simSchemaSql).digest('hex').slice(0, 12)}`;

if (existsSync(out) && existsSync(stamp) && readFileSync(stamp, 'utf8') === version) {
  console.log(`datadir: ${out} is current (PGlite ${pgliteVersion})`);
} else {
  const started = performance.now();
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
  mkdirSync(outDir, { recursive: true });
  writeFileSync(out, Buffer.from(await dump.arrayBuffer()));
  writeFileSync(stamp, version);
  const ms = Math.round(performance.now() - started);
  console.log(`datadir: wrote ${out} (${dump.size} bytes, PGlite ${pgliteVersion}, ${ms} ms)`);
}
