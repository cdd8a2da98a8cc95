// Which chapters the reader has opened, in localStorage where the browser allows it.
const key = 'seat-ledger:chapters-read';

/** The ids of the chapters the reader has opened; empty when storage is refused. */
export function readChapters(): Set<string> {
  try {
    const saved = JSON.parse(localStorage.getItem(key) ?? '[]') as unknown;
    return new Set(Array.isArray(saved) ? saved.filter((x) => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}

/** Notes that the reader opened chapter `id`; does nothing when storage is refused. */
export function markChapterRead(id: string): void {
  try {
    const read = readChapters();
    read.add(id);
    localStorage.setItem(key, JSON.stringify([...read]));
  } catch {
    // storage refused: progress lasts as long as the page
  }
}
