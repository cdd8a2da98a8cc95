// @ts-check
import { defineConfig } from 'astro/config';
import mdx from '@astrojs/mdx';
import react from '@astrojs/react';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cspConfig } from './src/components/csp.ts';
import { offline } from './src/offline/integration.ts';
import { strictPage } from './scripts/strict-page.ts';

// Both the page build and the engine's worker build name assets the same way, so the
// PGlite WASM (about 9 MB) gets one file name and is emitted once, not inlined twice.
const assetFileNames = '_astro/[name].[hash][extname]';

// What the browser engine downloads before it starts: PGlite's WASM and file bundle and
// the prepared data directory (`npm run build` makes it first). The worker script adds
// about half a megabyte more. Shown on the start button of a demo embedded with `load=click`.
const engineFiles = [
  './node_modules/@electric-sql/pglite/dist/pglite.wasm',
  './node_modules/@electric-sql/pglite/dist/pglite.data',
  './public/engine/pgdata.tar.gz',
].map((file) => new URL(file, import.meta.url));
// 0 (a button without a size) rather than a wrong size when a file is missing.
const engineBytes = engineFiles.every((file) => existsSync(file))
  ? engineFiles.reduce((sum, file) => sum + statSync(file).size, 0)
  : 0;

/** `client:nearby`: islands hydrate after the first paint, near the viewport (see the file). */
const nearby = {
  name: 'seat-ledger:nearby',
  hooks: {
    'astro:config:setup': (/** @type {any} */ { addClientDirective }) =>
      addClientDirective({
        name: 'nearby',
        entrypoint: fileURLToPath(new URL('./src/components/client-nearby.ts', import.meta.url)),
      }),
  },
};

export default defineConfig({
  output: 'static',
  // Hosting under a sub-path (e.g. GitHub Pages): BASE_PATH=/seat-ledger/ npm run build
  base: process.env.BASE_PATH ?? '/',
  // Where the site will be served from, for the absolute addresses of its oEmbed files
  // (SITE_URL=https://example.org npm run build); the preview's address by default.
  site: process.env.SITE_URL ?? 'http://localhost:4321',
  trailingSlash: 'always',
  // strictPage before offline: the service worker's list hashes the pages as finished.
  integrations: [react(), mdx(), nearby, strictPage(), offline()],
  // Code blocks stay plain text styled by the site's stylesheet: no theme colours to check.
  markdown: { syntaxHighlight: false },
  devToolbar: { enabled: false },
  // The page's Content-Security-Policy (src/components/csp.ts), first in every <head>.
  security: { csp: cspConfig },
  vite: {
    define: { __ENGINE_BYTES__: JSON.stringify(engineBytes) },
    optimizeDeps: { exclude: ['@electric-sql/pglite'] },
    worker: {
      format: 'es',
      rollupOptions: { output: { assetFileNames } },
    },
    build: {
      assetsInlineLimit: 0,
      rollupOptions: { output: { assetFileNames } },
    },
  },
});
