// The site's Content-Security-Policy: only its own origin, plus 'wasm-unsafe-eval' for
// PGlite's WebAssembly. Astro writes it into every page's <meta http-equiv> with a hash of
// each inline script it emits; the theme script hashes itself (ThemeScript.astro). Every
// page carries the same policy, so a host can send it as one header (scripts/strict-page.ts
// writes dist/_headers; README, "Headers a host should send").
import { createHash } from 'node:crypto';

/** A CSP source for exactly `text` (an inline script). */
export function cspHash(text: string): `sha256-${string}` {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}

/**
 * Directives besides script-src and style-src, which Astro writes. frame-ancestors is
 * not here: a <meta> policy cannot carry it (dist/_headers sends it).
 */
export const cspDirectives = [
  "default-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  // PGlite's worker is a file of the site; a service worker is one too.
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
] as const;

/** Astro's `security.csp` setting. */
export const cspConfig = {
  algorithm: 'SHA-256',
  directives: [...cspDirectives],
  scriptDirective: {
    // PGlite compiles its WebAssembly in the engine's worker. No 'unsafe-eval': the
    // engine's one eval (Emscripten's, for an extension's code) never runs, as the site
    // loads no extension, and zod is told not to probe for eval (src/scenario/zod.ts).
    resources: ["'self'", "'wasm-unsafe-eval'"],
  },
  styleDirective: {
    // Styles may be inline. CodeMirror 6, the SQL editor, writes its styles into a <style>
    // element as it starts (a nonce, its one alternative, needs a server per response), and
    // React writes the demo placeholders' heights as style attributes. A style runs no
    // script, and default-src 'self' leaves an injected one nowhere to send anything.
    resources: ["'self'", "'unsafe-inline'"],
  },
} as const;
