// URLs of the files the browser engine starts from. PGlite's package does not export
// its dist files, so they are imported by path; Vite copies each into the build once.
import fsBundleUrl from '../../../node_modules/@electric-sql/pglite/dist/pglite.data?url';
import wasmUrl from '../../../node_modules/@electric-sql/pglite/dist/pglite.wasm?url';

/**
 * A hash of the prepared data directory, set by the build (src/offline/integration.ts): its
 * address changes with its content, as the hashed names of the files above do, so no cache
 * (the HTTP cache, the service worker's) gives a new page an old directory.
 */
const dataDirVersion = typeof __ENGINE_DATA_VERSION__ === 'string' ? __ENGINE_DATA_VERSION__ : '';

/** pglite.wasm, pglite.data and the prepared data directory (built into public/engine/). */
export function engineAssetUrls(baseUrl: string) {
  return {
    wasm: wasmUrl,
    fsBundle: fsBundleUrl,
    dataDir: `${baseUrl.replace(/\/?$/, '/')}engine/pgdata.tar.gz${dataDirVersion ? `?v=${dataDirVersion}` : ''}`,
  };
}
