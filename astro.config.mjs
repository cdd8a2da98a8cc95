// @ts-check
import { defineConfig } from 'astro/config';
import mdx from '@astrojs/mdx';
import react from '@astrojs/react';

// Both the page build and the engine's worker build name assets the same way, so the
// PGlite WASM (about 9 MB) gets one file name and is emitted once, not inlined twice.
const assetFileNames = '_astro/[name].[hash][extname]';

export default defineConfig({
  output: 'static',
  // Hosting under a sub-path (e.g. GitHub Pages): BASE_PATH=/seat-ledger/ npm run build
  base: process.env.BASE_PATH ?? '/',
  trailingSlash: 'always',
  integrations: [react(), mdx()],
  // Code blocks stay plain text styled by the site's stylesheet: no theme colours to check.
  markdown: { syntaxHighlight: false },
  devToolbar: { enabled: false },
  vite: {
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
