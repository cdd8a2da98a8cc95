// Lets Node run src/ directly: its relative imports carry no extension (Vite and vitest
// resolve them), so this hook tries `.ts` first. Import it before any src/ module, and
// load those with a dynamic import() so the hook is in place when they resolve.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (/^\.\.?\//.test(specifier) && !/\.[cm]?[jt]sx?$/.test(specifier)) {
      try {
        return nextResolve(`${specifier}.ts`, context);
      } catch {
        // not a TypeScript module: fall through to the ordinary resolution
      }
    }
    return nextResolve(specifier, context);
  },
});
