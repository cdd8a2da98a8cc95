/**
 * A link to a page of this site that works when the site is hosted under a sub-path
 * (`BASE_PATH=/seat-ledger/`): `sitePath('lab/')` is `/seat-ledger/lab/`.
 */
export function sitePath(path = ''): string {
  const base = import.meta.env.BASE_URL.endsWith('/')
    ? import.meta.env.BASE_URL
    : `${import.meta.env.BASE_URL}/`;
  return base + path.replace(/^\/+/, '');
}
