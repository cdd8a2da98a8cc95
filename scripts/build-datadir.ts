// `npm run datadir`: builds the PostgreSQL data directory the browser starts from
// (src/engine/pglite/datadir.ts), into public/engine/pgdata.tar.gz; rebuilt only when
// PGlite's version or the sim schema changes.
import { ensureDataDir } from '../src/engine/pglite/datadir.ts';

const report = await ensureDataDir();
console.log(
  report.built
    ? `datadir: wrote ${report.path} (${report.bytes} bytes, PGlite ${report.pgliteVersion}, ${report.ms} ms)`
    : `datadir: ${report.path} is current (PGlite ${report.pgliteVersion})`,
);
