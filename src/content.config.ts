import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { z } from 'astro/zod';
import { recordingSchema } from './scenario/recording';
import { scenarioSchema } from './scenario/schema';

/**
 * The explainer chapters: MDX files in the top-level `content/chapters/` folder. A file's
 * name (without `.mdx`) is its id and its URL: `content/chapters/foo.mdx` is `/chapters/foo/`.
 */
const chapters = defineCollection({
  loader: glob({ pattern: '**/*.mdx', base: './content/chapters' }),
  schema: z.object({
    /** The chapter's heading and the page's `<title>`, in sentence case. */
    title: z.string().min(1),
    /** One or two sentences for the `<meta name="description">` and the chapter list. */
    description: z.string().min(1),
    /** Position in the reading order: 1 is read first and is shown on the home page. */
    order: z.number().int().positive(),
    /** A draft is left out of the chapter list and gets no page. */
    draft: z.boolean().default(false),
  }),
});

/**
 * The demos' scenarios: `content/scenarios/<id>.yaml`, one per scenario demo, its id the
 * demo's. The format is documented field by field in src/scenario/schema.ts.
 */
const scenarios = defineCollection({
  loader: glob({ pattern: '*.yaml', base: './content/scenarios' }),
  schema: scenarioSchema,
});

/** PostgreSQL 18's output for what PGlite cannot show, written by `npm run record`. */
const recordings = defineCollection({
  loader: glob({ pattern: '*.json', base: './content/recordings' }),
  schema: recordingSchema,
});

export const collections = { chapters, scenarios, recordings };
