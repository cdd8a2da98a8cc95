// Lets Node run src/ directly: its relative imports carry no extension and may name a
// folder (Vite and vitest resolve both), so this hook tries `.ts`, then the folder's
// `index.ts`. Import it before any src/ module, and load those with a dynamic import()
// so the hook is in place when they resolve.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (/^\.\.?\//.test(specifier) && !/\.[cm]?[jt]sx?$/.test(specifier)) {
      for (const candidate of [`${specifier}.ts`, `${specifier}/index.ts`]) {
        try {
          return nextResolve(candidate, context);
        } catch {
          // not a TypeScript module: try the next, then the ordinary resolution
        }
      }
    }
    return nextResolve(specifier, context);
  },
});
