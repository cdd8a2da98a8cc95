// The Astro integration behind reading offline: the data directory's address carries a hash
// of its content (so a new one is never mistaken for the old one by a cache), and after the
// build, sw.js is bundled from service-worker.ts with the list of the build's files
// (manifest.ts) at the site's base, where its scope covers every page.
import type { AstroIntegration } from 'astro';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { dataDirVersion, offlineManifest } from './manifest.ts';

const root = new URL('../../', import.meta.url);

/** Reading offline: sw.js at the site's base, and a versioned address for the data directory. */
export function offline(): AstroIntegration {
  let base = '/';
  return {
    name: 'seat-ledger:offline',
    hooks: {
      'astro:config:setup': ({ config, updateConfig }) => {
        base = config.base.replace(/\/?$/, '/');
        const version = dataDirVersion(fileURLToPath(new URL('public/engine/pgdata.tar.gz', root)));
        updateConfig({ vite: { define: { __ENGINE_DATA_VERSION__: JSON.stringify(version) } } });
      },
      'astro:build:done': async ({ dir, logger }) => {
        const outDir = fileURLToPath(dir);
        const { bytes, ...manifest } = offlineManifest(outDir, base);
        await build({
          configFile: false,
          root: fileURLToPath(root),
          publicDir: false,
          logLevel: 'warn',
          define: { __OFFLINE_MANIFEST__: JSON.stringify(manifest) },
          build: {
            outDir,
            emptyOutDir: false,
            copyPublicDir: false,
            target: 'es2022',
            lib: {
              entry: fileURLToPath(new URL('src/offline/service-worker.ts', root)),
              formats: ['iife'],
              name: 'seatLedgerServiceWorker',
              fileName: () => 'sw.js',
            },
          },
        });
        const mb = (n: number) => (n / 1_000_000).toFixed(1);
        logger.info(
          `sw.js: keeps ${manifest.site.length} pages and assets (${mb(bytes.site)} MB) on install, ` +
            `and the engine's ${manifest.engine.length} files (${mb(bytes.engine)} MB) once a demo has run`,
        );
      },
    },
  };
}
