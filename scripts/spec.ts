// `npm run spec -- [--engine pglite|server] FILE.spec`: prints the isolation tester's
// `.out` text for FILE.spec to standard output (its stderr lines too, merged as pg_regress
// merges them). Exit status 1 when the tester would have given up, 2 on bad usage.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import './resolve-ts.ts';

const usage = 'usage: npm run spec -- [--engine pglite|server] FILE.spec';
const args = process.argv.slice(2);
let engineKind: 'pglite' | 'server' = 'server';
let file: string | undefined;
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (arg === '--engine') {
    const value = args[++i];
    if (value !== 'pglite' && value !== 'server') {
      console.error(usage);
      process.exit(2);
    }
    engineKind = value;
  } else if (arg.startsWith('--engine=')) {
    const value = arg.slice('--engine='.length);
    if (value !== 'pglite' && value !== 'server') {
      console.error(usage);
      process.exit(2);
    }
    engineKind = value;
  } else if (file === undefined && !arg.startsWith('-')) file = arg;
  else {
    console.error(usage);
    process.exit(2);
  }
}
if (file === undefined) {
  console.error(usage);
  process.exit(2);
}

const { parseSpec, SpecError } = await import('../src/spec/parse.ts');
const { runSpec, regressSettings } = await import('../src/spec/run.ts');

let spec;
try {
  spec = parseSpec(readFileSync(file, 'utf8'));
} catch (error) {
  if (!(error instanceof SpecError)) throw error;
  console.error(error.message);
  process.exit(1);
}

// PGISOLATIONTIMEOUT (seconds), as the tester reads it.
const timeout = Number(process.env.PGISOLATIONTIMEOUT);
const maxStepWaitMs = Number.isFinite(timeout) && timeout > 0 ? timeout * 1000 : undefined;

let stop: () => Promise<void>;
let engine;
if (engineKind === 'server') {
  const { startTestServer } = await import('../src/engine/server/server.ts');
  const server = await startTestServer(regressSettings);
  engine = server.engine;
  stop = () => server.stop();
} else {
  const { createNodePgliteEngine } = await import('../src/engine/pglite/node.ts');
  engine = await createNodePgliteEngine();
  stop = () => engine!.close();
}

let status = 1;
try {
  status = await runSpec(spec, {
    engine,
    write: (text) => process.stdout.write(text),
    testName: basename(file).replace(/\.spec$/, ''),
    ...(maxStepWaitMs ? { maxStepWaitMs } : {}),
  });
} finally {
  await stop();
}
process.exitCode = status;
