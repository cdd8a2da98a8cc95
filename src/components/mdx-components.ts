/**
 * Everything a chapter (content/chapters/*.mdx) may place, and nothing else: chapters
 * import no components themselves. Pass this map as `<Content components={mdxComponents} />`.
 *
 * - `<ConsoleDemo />`: the SQL console (demo id `console`), a live PostgreSQL 18 session.
 *   It starts PostgreSQL only when the reader scrolls near it.
 */
import ConsoleDemo from './ConsoleDemo.astro';

export const mdxComponents = {
  ConsoleDemo,
} as const;
