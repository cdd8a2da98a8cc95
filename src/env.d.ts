/// <reference types="astro/client" />

// For plain `tsc`, which does not read .astro files: `astro check` types them fully.
declare module '*.astro' {
  const Component: (props: Record<string, unknown>) => unknown;
  export default Component;
}
