// Every chapter: its frontmatter, the demos it places, and its links on the site.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chapterSchema } from '../../../src/chapter-schema';
import { demos } from '../../../src/components/demo-list';
import { chapterFiles, internalLinks, placedDemos } from '../../support/chapter-files';

const chapters = chapterFiles();

/** Every path of the built site a chapter may link to, as `/a/b/`. */
const routes = new Set([
  '/',
  '/chapters/',
  '/demos/',
  '/lab/',
  '/lab/counter/',
  '/glossary/',
  ...chapters.map((c) => `/chapters/${c.id}/`),
  ...demos.flatMap((d) => [`/demos/${d.id}/`, `/embed/${d.id}/`]),
]);

describe('the chapters', () => {
  it('are numbered 1, 2, 3… in reading order, each with a title and a description', () => {
    const orders = chapters.map((c) => c.frontmatter.order).sort((a, b) => Number(a) - Number(b));
    expect(orders).toEqual(chapters.map((_c, i) => i + 1));
    for (const c of chapters) {
      expect(typeof c.frontmatter.title, c.id).toBe('string');
      expect(typeof c.frontmatter.description, c.id).toBe('string');
    }
  });

  it.each(chapters.map((c) => [c.id, c] as const))(
    '%s has frontmatter the build’s schema accepts',
    (_id, c) => {
      const parsed = chapterSchema.safeParse(c.frontmatter);
      expect(parsed.error?.issues ?? []).toEqual([]);
    },
  );

  it('the schema refuses a misspelt field, a missing one and an order that is not a number', () => {
    const good = { title: 'T', description: 'D', order: 1 };
    expect(chapterSchema.safeParse(good).success).toBe(true);
    expect(chapterSchema.safeParse({ ...good, descripton: 'D' }).success).toBe(false);
    expect(chapterSchema.safeParse({ title: 'T', order: 1 }).success).toBe(false);
    expect(chapterSchema.safeParse({ ...good, order: 'first' }).success).toBe(false);
  });

  it.each(chapters.map((c) => [c.id, c] as const))('%s places only demos that exist', (_id, c) => {
    for (const { tag, id } of placedDemos(c.body)) {
      const demo = demos.find((d) => d.id === id);
      expect(demo, `${tag} ${id}`).toBeDefined();
      if (tag === 'ScenarioDemo') expect(demo!.kind, `${id} is a scenario demo`).toBe('scenario');
    }
  });

  it.each(chapters.map((c) => [c.id, c] as const))(
    '%s links only to pages that exist',
    (_id, c) => {
      for (const href of internalLinks(c.body)) {
        const target = path.posix.resolve(`/chapters/${c.id}/`, href.split('#')[0]!);
        expect(
          routes.has(target.endsWith('/') ? target : `${target}/`),
          `${href} → ${target}`,
        ).toBe(true);
      }
    },
  );
});
