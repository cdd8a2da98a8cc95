// Runs one `.spec` file the way `npm run spec` does, collecting the tester's output.
import { readFileSync } from 'node:fs';
import type { Engine } from '../../src/engine/types';
import { parseSpec } from '../../src/spec/parse';
import { runSpec, type RunOptions } from '../../src/spec/run';

/** The output of `file` on `engine`, and the tester's exit status. */
export async function runSpecFile(
  file: string,
  engine: Engine,
  options: Pick<RunOptions, 'role' | 'testName'> = {},
): Promise<{ out: string; status: number }> {
  let out = '';
  const status = await runSpec(parseSpec(readFileSync(file, 'utf8')), {
    engine,
    ...options,
    write: (text) => (out += text),
  });
  return { out, status };
}
