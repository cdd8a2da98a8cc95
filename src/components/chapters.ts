import { getCollection, type CollectionEntry } from 'astro:content';

/** The chapters readers see (drafts left out), in reading order. */
export async function publishedChapters(): Promise<CollectionEntry<'chapters'>[]> {
  const chapters = await getCollection('chapters', (entry) => !entry.data.draft);
  return chapters.sort((a, b) => a.data.order - b.data.order);
}
