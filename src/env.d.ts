/// <reference types="astro/client" />

// For plain `tsc`, which does not read .astro files: `astro check` types them fully.
declare module '*.astro' {
  const Component: (props: Record<string, unknown>) => unknown;
  export default Component;
}

/** Bytes the browser engine downloads before it starts (astro.config.mjs measures them). */
declare const __ENGINE_BYTES__: number | undefined;

/** A hash of the prepared data directory, for its address (the offline integration sets it). */
declare const __ENGINE_DATA_VERSION__: string | undefined;

/** Islands that hydrate after the first paint, near the viewport (src/components/client-nearby.ts). */
declare namespace Astro {
  interface ClientDirectives {
    'client:nearby'?: boolean;
  }
}
