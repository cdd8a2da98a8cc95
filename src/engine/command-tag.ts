/** Splits a command tag such as `INSERT 0 5` or `CREATE TABLE` into verb and row count. */
export function parseCommandTag(tag: string): { command: string; rowCount: number | null } {
  // Read from the end rather than with one regex: this runs for every statement's answer.
  const text = tag.trim();
  const space = text.lastIndexOf(' ');
  const last = space >= 0 ? text.slice(space + 1) : '';
  const counted = last !== '' && /^\d+$/.test(last);
  const words = counted ? text.slice(0, space) : text;
  return {
    command: words.endsWith(' 0') ? words.slice(0, -2) : words, // INSERT's tag carries an OID, always 0
    rowCount: counted ? Number(last) : null,
  };
}
