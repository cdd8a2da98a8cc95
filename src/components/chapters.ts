import { getCollection, type CollectionEntry } from 'astro:content';

/** The chapters readers see (drafts left out), in reading order. */
export async function publishedChapters(): Promise<CollectionEntry<'chapters'>[]> {
  const chapters = await getCollection('chapters', (entry) => !entry.data.draft);
  return chapters.sort((a, b) => a.data.order - b.data.order);
}

/**
 * Minutes to read a chapter's text at about 220 words a minute, at least one. Code blocks
 * and the tags that place demos count as words too: readers read the SQL.
 */
export function readingMinutes(body: string): number {
  const words = body.replace(/<[^>]+>/g, ' ').match(/[\p{L}\p{N}_'’-]+/gu) ?? [];
  return Math.max(1, Math.round(words.length / 220));
}
