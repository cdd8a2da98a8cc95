/**
 * Everything a chapter (content/chapters/*.mdx) may place, and nothing else: chapters
 * import no components themselves. Pass this map as `<Content components={mdxComponents} />`.
 *
 * - `<ConsoleDemo />`: the SQL console (demo id `console`), a live PostgreSQL 18 session.
 *   It starts PostgreSQL only when the reader scrolls near it.
 * - `<ScenarioDemo id="…" />`: a scenario demo (content/scenarios/<id>.yaml), played step
 *   by step on the reader's own sessions. At most one per chapter: demos on one page share
 *   one PostgreSQL, and the horizon one demo shows is every session's.
 * - `<Demo id="…" />`: any demo of the registry (src/components/demo-list.ts) by its id,
 *   e.g. the counter or slots.
 */
import ConsoleDemo from './ConsoleDemo.astro';
import Demo from './Demo.astro';
import ScenarioDemo from './ScenarioDemo.astro';

export const mdxComponents = {
  ConsoleDemo,
  Demo,
  ScenarioDemo,
} as const;
