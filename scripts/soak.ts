// `npm run soak [-- --minutes N]`: the counter at 8× in Node for an hour (or N minutes),
// with a console session running a statement every second beside it, printing what the
// page's data structures hold at the start, every minute, and at the end: the journal
// behind the watchdog, its last checkpoint, the sim's event log, the sessions and their
// waits. They should stay flat. Run with `node --expose-gc` to have the heap measured
// after a collection.
import './resolve-ts.ts';

const { soakCounter } = await import('./soak-counter.ts');

const at = process.argv.indexOf('--minutes');
const minutes = at >= 0 ? Number(process.argv[at + 1]) : Number(process.env.SOAK_MINUTES ?? 60);
if (!(minutes > 0)) {
  console.error('usage: npm run soak -- --minutes N (N > 0; default 60)');
  process.exit(2);
}

const columns = [
  'realSeconds',
  'simSeconds',
  'journalEntries',
  'journalBytes',
  'checkpoints',
  'checkpointBytes',
  'pendingCalls',
  'events',
  'eventsDropped',
  'sessions',
  'waiting',
  'consoleStatements',
  'heapMB',
] as const;

console.log(`soak: the counter at 8× for ${minutes} minutes, a console statement a second`);
console.log(columns.join('\t'));
const samples = await soakCounter({
  realSeconds: minutes * 60,
  sampleEverySeconds: 60,
  onSample: (f) => console.log(columns.map((c) => String(Math.round(f[c] * 10) / 10)).join('\t')),
});
// The start is taken a minute in, once the counter's pools and seats have filled.
const first = samples.find((f) => f.realSeconds >= 60) ?? samples[0]!;
const last = samples.at(-1)!;
const most = (c: (typeof columns)[number]) => Math.max(...samples.map((f) => f[c]));
console.log('\nstart (a minute in) → end, and the most any sample held');
for (const c of columns) console.log(`${c}: ${first[c]} → ${last[c]} (most ${most(c)})`);
