/** Splits a command tag such as `INSERT 0 5` or `CREATE TABLE` into verb and row count. */
export function parseCommandTag(tag: string): { command: string; rowCount: number | null } {
  const match = /^(.*?)(?: (\d+))?$/.exec(tag.trim());
  const words = (match?.[1] ?? tag).replace(/ 0$/, ''); // INSERT's tag carries an OID, always 0
  const count = match?.[2];
  return { command: words, rowCount: count === undefined ? null : Number(count) };
}
