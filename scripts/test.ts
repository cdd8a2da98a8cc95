// `npm test`: every check in one command, in order: data directory, type-check, lint,
// formatting, unit and fidelity tests, isolation-spec conformance, the static build,
// browser tests. It runs them all, then prints one closing line with the counts and fails
// if any step failed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { findChromiumOrExit } from '../tests/support/find-chromium.ts';

const bin = (name: string) => join('node_modules', '.bin', name);
const reports = mkdtempSync(join(tmpdir(), 'seat-ledger-test-'));
const totals = { passed: 0, failed: 0, skipped: 0 };
const failedSteps: string[] = [];
/** Each failed test, named with its file and the first line of why: printed again at the end. */
const failedTests: string[] = [];

function step(name: string, command: string, args: string[]): boolean {
  console.log(`\n▶ ${name}: ${command} ${args.join(' ')}`);
  const { status } = spawnSync(command, args, { stdio: 'inherit', env: process.env });
  if (status !== 0) failedSteps.push(name);
  return status === 0;
}

/** The parts of vitest's JSON report read here. */
interface JsonReport {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: {
    name: string;
    assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

/** Runs vitest projects and adds their test counts to the totals. */
function vitest(name: string, projects: string[]): boolean {
  const out = join(reports, `${name}.json`);
  const ok = step(name, bin('vitest'), [
    'run',
    ...projects.flatMap((p) => ['--project', p]),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${out}`,
  ]);
  if (existsSync(out)) {
    const r = JSON.parse(readFileSync(out, 'utf8')) as JsonReport;
    totals.passed += r.numPassedTests ?? 0;
    totals.failed += r.numFailedTests ?? 0;
    totals.skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    for (const file of r.testResults ?? []) {
      for (const test of file.assertionResults ?? []) {
        if (test.status !== 'failed') continue;
        const why = test.failureMessages?.[0]?.split('\n')[0] ?? '';
        failedTests.push(
          `${relative('.', file.name)} › ${test.fullName}\n    ${why.slice(0, 300)}`,
        );
      }
    }
  } else if (!ok) totals.failed += 1;
  return ok;
}

// Before twenty minutes of tests: a browser for the last step, or one line on how to get one.
console.log(`browser: ${findChromiumOrExit().source}`);
step('data directory', bin('node'), ['scripts/build-datadir.ts']);
step('type-check (astro)', bin('astro'), ['check']);
step('type-check (tsc)', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']);
step('lint', bin('eslint'), ['--max-warnings', '0', '.']);
step('format', bin('prettier'), ['--check', '.']);
vitest('unit and fidelity', ['unit', 'fidelity']);
// PostgreSQL's own isolation specs on both engines; skips itself without ../shared.
step('conformance', bin('node'), ['scripts/conformance.ts']);
if (step('build', bin('astro'), ['build'])) vitest('browser', ['e2e']);
else console.log('browser tests skipped: the build failed');

rmSync(reports, { recursive: true, force: true });
console.log(
  failedSteps.length
    ? `\nFailed steps: ${failedSteps.join(', ')}`
    : '\nAll steps passed: type-check, lint, format, unit, fidelity, conformance, build, browser.',
);
if (failedTests.length) console.log(`\nFailed tests:\n${failedTests.join('\n')}`);
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedSteps.length ? 1 : 0);
