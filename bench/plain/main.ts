// The baseline for engine-start-ratio: PGlite started the plain documented way, on the
// main thread, with initdb, then one query.
import { PGlite } from '@electric-sql/pglite';

const db = await PGlite.create();
const { rows } = await db.query<{ v: string }>('SELECT version() AS v');
performance.mark('seat-ledger:first-result');
document.getElementById('out')!.textContent = rows[0]!.v;
