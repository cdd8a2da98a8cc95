// URLs of the files the browser engine starts from. PGlite's package does not export
// its dist files, so they are imported by path; Vite copies each into the build once.
import fsBundleUrl from '../../../node_modules/@electric-sql/pglite/dist/pglite.data?url';
import wasmUrl from '../../../node_modules/@electric-sql/pglite/dist/pglite.wasm?url';

/** pglite.wasm, pglite.data and the prepared data directory (built into public/engine/). */
export function engineAssetUrls(baseUrl: string) {
  return {
    wasm: wasmUrl,
    fsBundle: fsBundleUrl,
    dataDir: `${baseUrl.replace(/\/?$/, '/')}engine/pgdata.tar.gz`,
  };
}
