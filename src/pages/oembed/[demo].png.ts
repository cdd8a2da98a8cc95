// `/oembed/<id>.png`: each demo's thumbnail, drawn at build time by scripts/thumbnails.ts
// (run once per build, in Node, for every demo) from the demo's real picture or output.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { APIRoute, GetStaticPaths } from 'astro';
import { demos } from '../../components/demo-list';

export const getStaticPaths = (() =>
  demos.map((demo) => ({ params: { demo: demo.id } }))) satisfies GetStaticPaths;

let drawn: Promise<string> | null = null;

/** The folder the thumbnails are drawn into, once per build. */
function thumbnails(): Promise<string> {
  drawn ??= (async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'seat-ledger-thumbnails-'));
    const script = path.join(process.cwd(), 'scripts', 'thumbnails.ts');
    await promisify(execFile)(process.execPath, [script, dir], { maxBuffer: 1 << 20 });
    return dir;
  })();
  return drawn;
}

export const GET: APIRoute = async ({ params }) => {
  const png = await readFile(path.join(await thumbnails(), `${params.demo}.png`));
  return new Response(png, { headers: { 'content-type': 'image/png' } });
};
