// The chapters as files: their frontmatter, the demos they place, their links, and the SQL
// blocks marked `runnable` (with the output the text quotes after one, if any).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';

export const chapterDir = path.join(import.meta.dirname, '..', '..', 'content', 'chapters');

export interface ChapterFile {
  id: string;
  frontmatter: Record<string, unknown>;
  body: string;
}

/** Every chapter file, by name. */
export function chapterFiles(): ChapterFile[] {
  return readdirSync(chapterDir)
    .filter((f) => f.endsWith('.mdx'))
    .sort()
    .map((f) => {
      const text = readFileSync(path.join(chapterDir, f), 'utf8');
      const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
      if (!match) throw new Error(`${f}: no frontmatter`);
      return {
        id: f.slice(0, -'.mdx'.length),
        frontmatter: yaml.load(match[1]!) as Record<string, unknown>,
        body: match[2]!,
      };
    });
}

/** The demos a chapter places: `<Demo id="…" />` and `<ScenarioDemo id="…" />`. */
export function placedDemos(body: string): { tag: string; id: string }[] {
  return [...body.matchAll(/<(Demo|ScenarioDemo)\s+id="([^"]+)"/g)].map((m) => ({
    tag: m[1]!,
    id: m[2]!,
  }));
}

/** The targets of a chapter's Markdown links that stay on the site (relative ones). */
export function internalLinks(body: string): string[] {
  return [...body.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((href) => !/^[a-z]+:/i.test(href) && !href.startsWith('#'));
}

/** A ```sql runnable block, and the ```text output block that follows it, if any. */
export interface RunnableBlock {
  sql: string;
  output: string[] | null;
}

/** The runnable SQL blocks of a chapter, in order. */
export function runnableBlocks(body: string): RunnableBlock[] {
  const fences = [...body.matchAll(/```([^\n]*)\n([\s\S]*?)```/g)].map((m) => ({
    info: m[1]!.trim(),
    text: m[2]!,
  }));
  const blocks: RunnableBlock[] = [];
  fences.forEach((fence, i) => {
    if (fence.info !== 'sql runnable') return;
    const next = fences[i + 1];
    blocks.push({
      sql: fence.text,
      output:
        next?.info === 'text output'
          ? next.text
              .split('\n')
              .map((l) => l.trimEnd())
              .filter((l) => l.trim() !== '')
          : null,
    });
  });
  return blocks;
}
