import { z } from 'zod';

/**
 * A chapter's frontmatter (`content/chapters/<id>.mdx`), checked when the site is built
 * (src/content.config.ts) and by the chapters' unit test, so a chapter with a field
 * missing, misspelt or of the wrong type fails before it reaches a reader.
 */
export const chapterSchema = z.strictObject({
  /** The chapter's heading and the page's `<title>`, in sentence case. */
  title: z.string().min(1),
  /** One or two sentences for the `<meta name="description">` and the chapter list. */
  description: z.string().min(1),
  /** Position in the reading order: 1 is read first and is shown on the home page. */
  order: z.number().int().positive(),
  /** A draft is left out of the chapter list and gets no page. */
  draft: z.boolean().default(false),
});
