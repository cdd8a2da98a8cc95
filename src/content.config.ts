import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { chapterSchema } from './chapter-schema';
import { recordingSchema } from './scenario/recording';
import { scenarioSchema } from './scenario/schema';

/**
 * The explainer chapters: MDX files in the top-level `content/chapters/` folder. A file's
 * name (without `.mdx`) is its id and its URL: `content/chapters/foo.mdx` is `/chapters/foo/`.
 */
const chapters = defineCollection({
  loader: glob({ pattern: '**/*.mdx', base: './content/chapters' }),
  schema: chapterSchema,
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
