// The audit of the chapters' claims (tests/support/chapter-claims.ts) against the chapters
// themselves: each claim is still in its chapter's words, a demo that backs it is one the
// chapter places, a source is a URL the chapter links, and a test file named exists.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chapterClaims, readableText } from '../../support/chapter-claims';
import { chapterFiles, placedDemos } from '../../support/chapter-files';

const chapters = new Map(chapterFiles().map((c) => [c.id, c]));
const repoRoot = path.join(import.meta.dirname, '..', '..', '..');

/** Every demo id a chapter places, the console (`<ConsoleDemo`) included. */
function demosIn(body: string): string[] {
  const ids = placedDemos(body).map((d) => d.id);
  return body.includes('<ConsoleDemo') ? [...ids, 'console'] : ids;
}

describe('the audit of the chapters’ claims', () => {
  it('covers every chapter', () => {
    expect(new Set(chapterClaims.map((c) => c.chapter))).toEqual(new Set(chapters.keys()));
  });

  it.each(chapterClaims.map((c) => [c.chapter, c.says, c] as const))(
    '%s: “%s” is in the chapter, and its backing is there',
    (_chapter, _says, claim) => {
      const chapter = chapters.get(claim.chapter);
      expect(chapter, claim.chapter).toBeDefined();
      expect(readableText(chapter!.body)).toContain(claim.says);
      const [kind, ...rest] = claim.backed.split(':');
      const target = rest.join(':');
      if (kind === 'demo') expect(demosIn(chapter!.body)).toContain(target);
      else if (kind === 'source') {
        expect(target).toMatch(/^https:\/\/[^\s)]+$/);
        expect(chapter!.body, 'the chapter links its source').toContain(`](${target})`);
      } else if (kind === 'test' && target)
        expect(existsSync(path.join(repoRoot, target))).toBe(true);
      else expect(claim.backed).toBe('test');
    },
  );
});
