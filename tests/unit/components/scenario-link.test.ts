// A scenario in a link: what goes in comes out, every built-in scenario fits, and a link
// that is too long, changed, cut short, of another version or a flood when unpacked is
// named by its kind, never read.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeScenarioLink,
  describeLinkProblem,
  encodeScenarioLink,
  MAX_FRAGMENT_CHARS,
  MAX_UNPACKED_BYTES,
  type LinkProblem,
} from '../../../src/components/scenario-link';
import { scenarioDir, scenarioIds } from '../../../src/scenario/load';

const template = readFileSync(
  path.join(import.meta.dirname, '../../../src/components/scenario-lab/template.yaml'),
  'utf8',
);

async function fragmentOf(source: string): Promise<string> {
  const encoded = await encodeScenarioLink(source);
  if (!encoded.ok) throw new Error(describeLinkProblem(encoded.problem));
  return encoded.fragment;
}

async function problemOf(hash: string): Promise<LinkProblem['kind']> {
  const read = await decodeScenarioLink(hash);
  if (read.ok) throw new Error('the link was read');
  return read.problem.kind;
}

/** Deflate of `bytes` with zlib's header, as a link would carry it. */
async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart])
    .stream()
    .pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const base64url = (bytes: Uint8Array) =>
  Buffer.from(bytes).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

describe('scenario links', () => {
  it('give back the very text that went in, comments and all', async () => {
    const fragment = await fragmentOf(template);
    expect(fragment).toMatch(/^s=1\.[A-Za-z0-9_-]+$/);
    expect(await decodeScenarioLink(`#${fragment}`)).toEqual({ ok: true, source: template });
    const text = 'title: Ünïcödé — “quotes” ✓\n';
    expect(await decodeScenarioLink(await fragmentOf(text))).toEqual({ ok: true, source: text });
  });

  it.each(scenarioIds())('fit the built-in scenario %s in 8 KB', async (id) => {
    const source = readFileSync(path.join(scenarioDir, `${id}.yaml`), 'utf8');
    expect((await fragmentOf(source)).length).toBeLessThanOrEqual(MAX_FRAGMENT_CHARS);
  });

  it('refuse to make a link longer than the limit, and say how long it would be', async () => {
    // Text that does not compress: each line a different number.
    const big = Array.from({ length: 3000 }, (_, i) => `# ${(i * 7919) % 100_003} ${i ** 3}`).join(
      '\n',
    );
    const encoded = await encodeScenarioLink(big);
    expect(encoded.ok).toBe(false);
    if (!encoded.ok) {
      expect(encoded.problem).toMatchObject({ kind: 'too-long', limit: MAX_FRAGMENT_CHARS });
      expect(describeLinkProblem(encoded.problem)).toContain(String(MAX_FRAGMENT_CHARS));
    }
  });

  it('read nothing of a fragment over the limit', async () => {
    const fragment = await fragmentOf(template);
    expect(await problemOf(`#${fragment}${'A'.repeat(MAX_FRAGMENT_CHARS)}`)).toBe('too-long');
  });

  it('tell a changed link from a good one', async () => {
    const fragment = await fragmentOf(template);
    const at = Math.floor(fragment.length / 2);
    const changed =
      fragment.slice(0, at) + (fragment[at] === 'A' ? 'B' : 'A') + fragment.slice(at + 1);
    expect(await problemOf(changed)).toBe('damaged');
  });

  it('tell a link cut short', async () => {
    const fragment = await fragmentOf(template);
    expect(await problemOf(fragment.slice(0, fragment.length - 12))).toBe('damaged');
    expect(await problemOf(fragment.slice(0, 40))).toBe('damaged');
  });

  it('name a link without a scenario, of another version, or with foreign characters', async () => {
    expect(await problemOf('')).toBe('missing');
    expect(await problemOf('#step=3')).toBe('missing');
    expect(await problemOf('#s=2.eJwrSS0u0U1JLEkEAA')).toBe('version');
    expect(await problemOf('#s=eJwrSS0u0U1JLEkEAA')).toBe('version');
    expect(await problemOf('#s=1.eJw$rSS0u0U1JLEkEAA')).toBe('not-base64');
  });

  it('stop unpacking a small link that would flood the page', async () => {
    const flood = await deflate(new Uint8Array(MAX_UNPACKED_BYTES * 4).fill(0x61));
    const fragment = `s=1.${base64url(flood)}`;
    expect(fragment.length).toBeLessThan(MAX_FRAGMENT_CHARS);
    expect(await problemOf(fragment)).toBe('too-large');
  });

  it('tell bytes that are not UTF-8 text', async () => {
    const fragment = `s=1.${base64url(await deflate(new Uint8Array([0xff, 0xfe, 0x00, 0x80])))}`;
    expect(await problemOf(fragment)).toBe('damaged');
  });

  it('word every problem', () => {
    const problems: LinkProblem[] = [
      { kind: 'missing' },
      { kind: 'too-long', chars: 9000, limit: MAX_FRAGMENT_CHARS },
      { kind: 'version', version: '2' },
      { kind: 'not-base64' },
      { kind: 'damaged' },
      { kind: 'too-large', limit: MAX_UNPACKED_BYTES },
    ];
    for (const p of problems) expect(describeLinkProblem(p)).toMatch(/^This .+\.$/);
  });
});
