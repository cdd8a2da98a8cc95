// A fresh PGlite engine in Node for one piece of a test, closed after it.
import { createNodePgliteEngine } from '../../src/engine/pglite/node';
import type { Engine } from '../../src/engine/types';

/** Runs `fn` on a fresh engine, closing it after. */
export async function onFreshEngine<T>(fn: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await createNodePgliteEngine();
  try {
    return await fn(engine);
  } finally {
    await engine.close();
  }
}
