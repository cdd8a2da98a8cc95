// Each scenario demo's printable handout in the built site: labelled with the server its
// recordings came from, one section per choice with every step of that run, each step's
// SQL and PostgreSQL's printed output, and a stylesheet for print.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demos } from '../../src/components/demo-list';
import { loadScenario } from '../../src/scenario/load';
import { planSteps } from '../../src/scenario/plan';
import { everySelection } from '../../src/scenario/recording';
import { serveStatic, type StaticServer } from '../support/static-server';
import { distDir } from './site';

const count = (html: string, cls: string) =>
  html.match(new RegExp(`class="${cls}"`, 'g'))?.length ?? 0;

describe('the handouts', () => {
  let server: StaticServer;
  beforeAll(async () => {
    server = await serveStatic(distDir);
  });
  afterAll(() => server?.close());

  it.each(demos.filter((d) => d.kind === 'scenario').map((d) => d.id))(
    '%s: every choice, every step, PostgreSQL 18’s output',
    async (id) => {
      const response = await fetch(new URL(`demos/${id}/handout/`, server.url));
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toMatch(/Recorded on PostgreSQL 18\.\d+/);
      const scenario = loadScenario(id);
      const runs = everySelection(scenario);
      expect(count(html, 'handout-run')).toBe(runs.length);
      const steps = runs.flatMap((s) => planSteps(scenario, s));
      expect(count(html, 'handout-step')).toBe(steps.length);
      expect(count(html, 'handout-sql')).toBe(steps.filter((s) => s.sql).length);
      // Every step that sends SQL printed something: a tag, rows, a notice or an error.
      expect(count(html, 'handout-output')).toBe(steps.filter((s) => s.sql).length);
    },
  );

  it('print without the site’s header, each choice on a page of its own', () => {
    const css = readdirSync(join(distDir, '_astro'))
      .filter((f) => f.endsWith('.css'))
      .map((f) => readFileSync(join(distDir, '_astro', f), 'utf8'))
      .join('\n');
    const print = /@media print\s*\{[\s\S]*?\}\s*\}/.exec(css)?.[0] ?? '';
    expect(print).toContain('.site-header');
    expect(print).toMatch(/\.handout-run\s*\{\s*break-before:\s*page/);
  });
});
